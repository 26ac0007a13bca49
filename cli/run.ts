// gpsimd run <library> <op> --shape ...: calls the operator once on random
// inputs and prints a summary of the output.
import { GpsimdError, type Tensor } from "../host/index.js";
import { openTarget } from "./library-source.js";
import { RUN } from "./specs.js";
import { kernelArguments, describeArguments } from "./inputs.js";
import { parseCommand, parseSizes, listOption, intOption, UsageError, CommandError, EXIT, VALUE_KINDS, type ValueKind } from "./options.js";
import { duration } from "./format.js";
import { callReport, recordInputs, recordOutputs } from "./report.js";

/** Summary statistics of a tensor's values. */
export function summarise(t: Tensor, show: number): string {
  const data = t.data();
  const values = Array.from(data as ArrayLike<number | bigint>, Number);
  const finite = values.filter(Number.isFinite);
  const nan = values.filter(Number.isNaN).length;
  const inf = values.length - finite.length - nan;
  const min = finite.reduce((a, b) => Math.min(a, b), Infinity);
  const max = finite.reduce((a, b) => Math.max(a, b), -Infinity);
  const mean = finite.reduce((a, b) => a + b, 0) / Math.max(1, finite.length);
  const std = Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, finite.length));
  const lines = [
    `output: ${t.describe()}, ${values.length} elements`,
    `  min ${fmt(min)}  max ${fmt(max)}  mean ${fmt(mean)}  std ${fmt(std)}${nan ? `  NaN ${nan}` : ""}${inf ? `  ±Inf ${inf}` : ""}`,
    `  first ${Math.min(show, values.length)}: [${values.slice(0, show).map(fmt).join(", ")}${values.length > show ? ", ..." : ""}]`,
  ];
  return lines.join("\n");
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(3) : v.toFixed(4);
}

/** The value kind option. */
export function valueKind(values: Record<string, unknown>): ValueKind {
  const kind = (values.values as string | undefined) ?? "normal";
  if (!(VALUE_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--values ${kind}: expected one of ${VALUE_KINDS.join(", ")}`);
  return kind as ValueKind;
}

/** Runs gpsimd run. */
export function runCommand(argv: string[]): number {
  const parsed = parseCommand(RUN, argv);
  if (!parsed) return EXIT.OK;
  const { values, positionals } = parsed;
  const { library, opName } = openTarget("run", positionals, values);
  const kernel = library.ops.get(opName)!.kernel;
  const args = kernelArguments(kernel, listOption(values, "shape").map((s) => parseSizes(s)), listOption(values, "dtype"), listOption(values, "arg"), { kind: valueKind(values), seed: intOption(values, "seed", 0) });
  callReport().target = { library: library.namespace, op: `${library.namespace}::${opName}`, cores: library.multicore ? library.cores : 1 };
  recordInputs(kernel.params.map((p, i) => [p.name, args[i]]));
  process.stdout.write(`${library.namespace}::${opName}(${describeArguments(args)})${library.multicore ? ` on ${library.cores} cores` : ""}\n`);
  const t0 = performance.now();
  let out: Tensor;
  try {
    out = library.call(opName, args) as Tensor;
  } catch (e) {
    if (e instanceof GpsimdError) throw new CommandError(`${e.name} [${e.code}]: ${e.message}`, EXIT.FAILED, e);
    throw e;
  }
  const ms = performance.now() - t0;
  recordOutputs([["output", out]]);
  callReport().timing.wallMs = ms;
  process.stdout.write(`${summarise(out, intOption(values, "show", 8))}\n  wall time ${duration(ms)} (first call on this machine; gpsimd profile for timings)\n`);
  return EXIT.OK;
}
