// gpsimd profile <file.py> --kernel K [--grid G] --arg ...: wall time of a
// kernel call on this machine and, for the median call, of each instance.
import { Tensor } from "../host/index.js";
import type { CallTimings } from "../nki/index.js";
import { NKI_PROFILE } from "./nki-specs.js";
import { parseCommand, intOption, EXIT } from "./options.js";
import { duration, table } from "./format.js";
import { openNkiTarget, madeArguments, callKernel, shownCall, disposeMade } from "./nki-target.js";
import { callValues, describeMade } from "./nki-inputs.js";
import { estimateKernelFile } from "../nki/profile/cli-estimate.js";
import { callReport, recordInputs } from "./report.js";

/** The text summary of a profile: call times, then the instances of the median call. */
export function nkiProfileSummary(call: string, calls: CallTimings[]): string {
  const sorted = [...calls].sort((a, b) => a.wallMs - b.wallMs);
  const median = sorted[sorted.length >> 1];
  const lines = [
    `profile ${call}: ${calls.length} call${calls.length === 1 ? "" : "s"} on ${median.threads} thread${median.threads === 1 ? "" : "s"}`,
    `wall time on this machine: median ${duration(median.wallMs)} (min ${duration(sorted[0].wallMs)}, max ${duration(sorted[sorted.length - 1].wallMs)})`,
  ];
  if (median.instances.length) {
    const engines = [...new Set(median.instances.flatMap((i) => Object.keys(i.counts ?? {})))];
    const rows = median.instances.map((i) => [`[${i.ids.join(", ")}]`, i.thread < 0 ? "main" : String(i.thread), duration(i.ms), ...engines.map((e) => i.counts?.[e] ?? 0)]);
    const spans = median.instances.map((i) => i.ms);
    const mean = spans.reduce((a, b) => a + b, 0) / spans.length;
    lines.push("", "instances of the median call (wall time of each on its thread):", table(["instance", "thread", "wall", ...engines.map((e) => `${e} instr.`)], rows));
    lines.push("", `instance imbalance (slowest / mean): ${(Math.max(...spans) / mean).toFixed(2)}`);
    if (!engines.length) lines.push("instructions per engine: not counted by this version of the NKI machine");
  } else {
    lines.push(median.grid ? "one thread: the launch ran whole, no per-instance rows (--threads 2 or more for them)" : "one instance (no grid): no per-instance rows");
  }
  return lines.join("\n");
}

/** Runs gpsimd profile on a kernel file. */
export function nkiProfileCommand(argv: string[]): number {
  const parsed = parseCommand(NKI_PROFILE, argv);
  if (!parsed) return EXIT.OK;
  const { values, positionals } = parsed;
  const target = openNkiTarget("profile", positionals, values);
  const made = madeArguments(values, intOption(values, "seed", 0));
  const runs = intOption(values, "runs", 5, 1);
  try {
    callReport().target = { file: target.file, kernel: target.kernel, grid: target.grid ?? null };
    recordInputs([...made.positional, ...made.keyword].map((m) => [m.label, m.value]));
    process.stdout.write(`${shownCall(target)}(${describeMade(made)}) from ${target.file}\n`);
    const dispose = (r: unknown) => { if (r instanceof Tensor) r.dispose(); else if (Array.isArray(r)) r.forEach((t: Tensor) => t.dispose()); };
    dispose(callKernel(target, callValues(made))); // warm-up: loads the file on every thread
    const calls: CallTimings[] = [];
    for (let i = 0; i < runs; i++) {
      dispose(callKernel(target, callValues(made)));
      calls.push(target.launcher.lastTimings!);
    }
    process.stdout.write(`${nkiProfileSummary(shownCall(target), calls)}\n`);
    const median = [...calls].sort((a, b) => a.wallMs - b.wallMs)[calls.length >> 1];
    callReport().timing.wallMedianMs = median.wallMs;
    // One more call on this thread, recorded: the estimate of the device's time (nki/profile).
    const estimate = estimateKernelFile(target.file, target.kernel, target.grid, callValues(made), values.trace as string | undefined, { checks: !values["no-checks"] });
    process.stdout.write(`\n${estimate.text}\n`);
    // Per SPMD instance, the model's figures (deterministic; wall times go to timing): time, busy time and instructions per engine.
    const p = estimate.profile;
    callReport().profile = {
      totalUs: p.totalUs, busyUs: { ...p.busyUs }, counts: { ...p.counts },
      instances: p.instances.map((i) => ({ instance: [...i.ids], totalUs: i.totalUs, busyUs: { ...i.busyUs }, counts: { ...i.counts } })),
    };
    return EXIT.OK;
  } finally {
    disposeMade(made);
  }
}
