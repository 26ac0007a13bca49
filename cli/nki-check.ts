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
  process.stdout.write(`check ${shownCall(target)} (${target.file}) against ${reference.name} (${refFile}): ${runs} run${runs === 1 ? "" : "s"}, seeds ${seed} to ${seed + runs - 1}\n`);
  for (let r = 0; r < runs; r++) {
    const made = madeArguments(values, seed + r);
    try {
      const result = callKernel(target, callValues(made));
      const [out] = producedTensors(result, made);
      if (!out) {
        process.stdout.write(`FAIL ${shownCall(target)}: the kernel returned None and no empty/zeros argument holds an output to compare\n`);
        return EXIT.FAILED;
      }
      let expected: ReturnType<typeof expectedOf>;
      try {
        expected = expectedOf(reference.fn, made);
      } catch (e) {
        process.stdout.write(`FAIL: the reference threw: ${e instanceof Error ? e.message : String(e)}\n`);
        return EXIT.FAILED;
      }
      const info = dtypeInfo(out.tensor.dtype);
      const rtol = values.rtol !== undefined ? numberOption(values, "rtol", 1e-5) : info.bytes === 2 && info.isFloating ? 1e-2 : 1e-5;
      if (expected.data.length !== out.tensor.numel() || (expected.sizes && expected.sizes.join() !== out.tensor.sizes().join())) {
        process.stdout.write(`FAIL ${shownCall(target)} (seed ${seed + r}): the kernel's ${out.label} is ${out.tensor.describe()}, the reference gave ${expected.sizes ? `[${expected.sizes.join(", ")}]` : `${expected.data.length} values`}\n`);
        return EXIT.FAILED;
      }
      const mismatch = compareOutput(out.tensor, expected.data, { atol, rtol });
      if (mismatch) {
        const at = unflatten(mismatch.index, out.tensor.sizes());
        process.stdout.write(`FAIL ${shownCall(target)} (seed ${seed + r}): ${out.label} element ${mismatch.index} ([${at.join(", ")}]) is ${mismatch.got}, the reference says ${mismatch.expected}; ${mismatch.count} of ${out.tensor.numel()} elements differ (atol ${atol}, rtol ${rtol})\n`);
        return EXIT.FAILED;
      }
      process.stdout.write(`  seed ${seed + r}: ${out.label} ${out.tensor.describe()} agrees\n`);
      if (result instanceof Tensor) result.dispose();
      else if (Array.isArray(result)) result.forEach((t) => t.dispose());
    } finally {
      disposeMade(made);
    }
  }
  process.stdout.write(`OK: ${runs} run${runs === 1 ? "" : "s"} agreed with the reference\n`);
  return EXIT.OK;
}
