// gpsimd run <file.py> --kernel K [--grid G] --arg ...: calls an NKI kernel
// once and prints a summary of what it produced.
import { NKI_RUN } from "./nki-specs.js";
import { parseCommand, intOption, EXIT } from "./options.js";
import { summarise } from "./run.js";
import { duration } from "./format.js";
import { openNkiTarget, madeArguments, callKernel, producedTensors, shownCall, disposeMade } from "./nki-target.js";
import { callValues, describeMade } from "./nki-inputs.js";
import { callReport, recordInputs, recordOutputs } from "./report.js";

/** Runs gpsimd run on a kernel file. */
export function nkiRunCommand(argv: string[]): number {
  const parsed = parseCommand(NKI_RUN, argv);
  if (!parsed) return EXIT.OK;
  const { values, positionals } = parsed;
  const target = openNkiTarget("run", positionals, values);
  const made = madeArguments(values, intOption(values, "seed", 0));
  try {
    callReport().target = { file: target.file, kernel: target.kernel, grid: target.grid ?? null };
    recordInputs([...made.positional, ...made.keyword].map((m) => [m.label, m.value]));
    process.stdout.write(`${shownCall(target)}(${describeMade(made)}) from ${target.file}\n`);
    const t0 = performance.now();
    const result = callKernel(target, callValues(made));
    const ms = performance.now() - t0;
    const produced = producedTensors(result, made);
    recordOutputs(produced.map((p) => [p.label, p.tensor]));
    callReport().timing.wallMs = ms;
    if (produced.length === 0) process.stdout.write("the kernel returned None and wrote no empty/zeros argument\n");
    for (const p of produced) process.stdout.write(`${summarise(p.tensor, intOption(values, "show", 8)).replace(/^output:/, `${p.label}:`)}\n`);
    const timings = target.launcher.lastTimings;
    process.stdout.write(`  wall time ${duration(ms)}${timings && timings.threads > 1 ? ` on ${timings.threads} threads` : ""} (the first call loads the file; gpsimd profile for timings)\n`);
    return EXIT.OK;
  } finally {
    disposeMade(made);
  }
}
