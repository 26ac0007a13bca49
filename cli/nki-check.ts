// gpsimd check <file.py> --kernel K --arg ... --ref <module>: calls an NKI
// kernel on a few sets of random inputs and compares each output with a
// TypeScript reference's.
import { Tensor, dtypeInfo } from "../host/index.js";
import { NKI_CHECK } from "./nki-specs.js";
import { parseCommand, intOption, numberOption, UsageError, EXIT } from "./options.js";
import { loadReference, type ReferenceFunction } from "./reference.js";
import { compareOutput, unflatten } from "./compare.js";
import { openNkiTarget, madeArguments, callKernel, producedTensors, shownCall, disposeMade } from "./nki-target.js";
import { callValues, type MadeArgument } from "./nki-inputs.js";
import { readFileSync } from "node:fs";
import { sha256 } from "../host/verdict/verdict.js";
import { callReport, recordInputs, recordOutputs } from "./report.js";
import { CommandError } from "./options.js";

/** What the reference receives for an argument: a tensor's values as a typed array, anything else as given. */
function referenceValue(v: unknown): unknown {
  return v instanceof Tensor ? v.data() : v;
}

function expectedOf(fn: ReferenceFunction, made: { positional: MadeArgument[]; keyword: MadeArgument[] }): { data: ArrayLike<number | bigint>; sizes?: number[] } {
  const args = made.positional.map((m) => referenceValue(m.value));
  const shapes = made.positional.filter((m) => m.value instanceof Tensor).map((m) => (m.value as Tensor).sizes());
  const kwargs = Object.fromEntries(made.keyword.map((m) => [m.label, referenceValue(m.value)]));
  const result = (fn as (...a: unknown[]) => ReturnType<ReferenceFunction>)(...args, shapes, kwargs);
  if (result && typeof result === "object" && "data" in result && !ArrayBuffer.isView(result)) return result;
  if (!result || typeof (result as ArrayLike<number>).length !== "number") throw new Error(`the reference returned ${typeof result}, not an array of values`);
  return { data: result as ArrayLike<number | bigint> };
}

/** Runs gpsimd check on a kernel file. */
export async function nkiCheckCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(NKI_CHECK, argv);
  if (!parsed) return EXIT.OK;
  const { values, positionals } = parsed;
  const refFile = values.ref as string | undefined;
  if (!refFile) throw new UsageError("gpsimd check: give the reference module with --ref");
  const target = openNkiTarget("check", positionals, values);
  const reference = await loadReference(refFile, target.kernel, values.export as string | undefined);
  const runs = intOption(values, "runs", 3, 1);
  const seed = intOption(values, "seed", 0);
  const atol = numberOption(values, "atol", 1e-5);
  const referenceSha256 = sha256(readFileSync(refFile));
  const pinned = values["reference-hash"] as string | undefined;
  if (pinned !== undefined && pinned !== referenceSha256) {
    const message = `gpsimd check: the reference ${refFile} is not the one pinned by --reference-hash (sha256 ${pinned.slice(0, 12)}... pinned, ${referenceSha256.slice(0, 12)}... now): it changed, so the check is refused instead of run against another reference`;
    callReport().failures.push({ class: "ReferenceChangedError", code: "E_REFERENCE_CHANGED", message, file: refFile, details: { pinned, actual: referenceSha256 } });
    throw new CommandError(message, EXIT.USAGE);
  }
  // NKI checks draw each run's arguments from seed + run: the generator's parameters are the arguments' specs.
  const generatorSha256 = sha256(JSON.stringify({ generator: 1, args: values.arg ?? [], kwargs: values.kwarg ?? [], runs, seed, atol, rtol: values.rtol ?? null }));
  callReport().target = { file: target.file, kernel: target.kernel, grid: target.grid ?? null, reference: refFile };
  let compared = 0;
  const record = (failed: number) => { callReport().check = { runs, seed, generated: compared + failed, compared, rejected: 0, tooBig: 0, failed, referenceSha256, generatorSha256 }; };
  const fail = (code: string, message: string, index?: number) => {
    record(1);
    callReport().failures.push({ class: "CheckFailure", code, message, kernel: target.kernel, ...(index !== undefined ? { location: { space: "hbm" }, index: [index, index] as [number, number] } : {}), details: {} });
  };
  process.stdout.write(`check ${shownCall(target)} (${target.file}) against ${reference.name} (${refFile}): ${runs} run${runs === 1 ? "" : "s"}, seeds ${seed} to ${seed + runs - 1}\n`);
  for (let r = 0; r < runs; r++) {
    const made = madeArguments(values, seed + r);
    recordInputs([...made.positional, ...made.keyword].map((m) => [m.label, m.value]));
    try {
      let result: ReturnType<typeof callKernel>;
      try {
        result = callKernel(target, callValues(made));
      } catch (e) {
        record(1);
        throw e;
      }
      const [out] = producedTensors(result, made);
      if (out) recordOutputs([[out.label, out.tensor]]);
      if (!out) {
        fail("E_CHECK_NO_OUTPUT", "the kernel returned None and no empty/zeros argument holds an output to compare");
        process.stdout.write(`FAIL ${shownCall(target)}: the kernel returned None and no empty/zeros argument holds an output to compare\n`);
        return EXIT.FAILED;
      }
      let expected: ReturnType<typeof expectedOf>;
      try {
        expected = expectedOf(reference.fn, made);
      } catch (e) {
        fail("E_CHECK_REFERENCE", `the reference threw: ${e instanceof Error ? e.message : String(e)}`);
        process.stdout.write(`FAIL: the reference threw: ${e instanceof Error ? e.message : String(e)}\n`);
        return EXIT.FAILED;
      }
      const info = dtypeInfo(out.tensor.dtype);
      const rtol = values.rtol !== undefined ? numberOption(values, "rtol", 1e-5) : info.bytes === 2 && info.isFloating ? 1e-2 : 1e-5;
      if (expected.data.length !== out.tensor.numel() || (expected.sizes && expected.sizes.join() !== out.tensor.sizes().join())) {
        fail("E_CHECK_OPCHECK", `the kernel's ${out.label} is ${out.tensor.describe()}, the reference gave ${expected.sizes ? `[${expected.sizes.join(", ")}]` : `${expected.data.length} values`}`);
        process.stdout.write(`FAIL ${shownCall(target)} (seed ${seed + r}): the kernel's ${out.label} is ${out.tensor.describe()}, the reference gave ${expected.sizes ? `[${expected.sizes.join(", ")}]` : `${expected.data.length} values`}\n`);
        return EXIT.FAILED;
      }
      const mismatch = compareOutput(out.tensor, expected.data, { atol, rtol });
      if (mismatch) {
        const at = unflatten(mismatch.index, out.tensor.sizes());
        fail("E_CHECK_MISMATCH", `${out.label} element ${mismatch.index} ([${at.join(", ")}]) is ${mismatch.got}, the reference says ${mismatch.expected}; ${mismatch.count} of ${out.tensor.numel()} elements differ (atol ${atol}, rtol ${rtol}) (seed ${seed + r})`, mismatch.index);
        process.stdout.write(`FAIL ${shownCall(target)} (seed ${seed + r}): ${out.label} element ${mismatch.index} ([${at.join(", ")}]) is ${mismatch.got}, the reference says ${mismatch.expected}; ${mismatch.count} of ${out.tensor.numel()} elements differ (atol ${atol}, rtol ${rtol})\n`);
        return EXIT.FAILED;
      }
      process.stdout.write(`  seed ${seed + r}: ${out.label} ${out.tensor.describe()} agrees\n`);
      compared++;
      if (result instanceof Tensor) result.dispose();
      else if (Array.isArray(result)) result.forEach((t) => t.dispose());
    } finally {
      disposeMade(made);
    }
  }
  record(0);
  process.stdout.write(`OK: ${runs} run${runs === 1 ? "" : "s"} agreed with the reference\n`);
  return EXIT.OK;
}
