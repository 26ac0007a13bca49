// gpsimd profile <library> <op> --shape ...: a Chrome trace JSON with one
// lane per core, and a text summary: bytes moved and calls per core, load
// imbalance, wall time on this machine and the estimated device time by
// cause (accessor, DMA/TCM copy, compute from the executed instructions).
import { writeFileSync } from "node:fs";
import { profile, chromeTrace, GpsimdError, Tensor, DEVICES, INSTRUCTION_CLASSES, CYCLES_PER_INSTRUCTION, type ProfileResult, type DeviceName } from "../host/index.js";
import type { CoreEstimate } from "../host/profiling/cost-model.js";
import { openTarget } from "./library-source.js";
import { PROFILE } from "./specs.js";
import { kernelArguments, describeArguments } from "./inputs.js";
import { valueKind } from "./run.js";
import { callReport, recordInputs } from "./report.js";
import { parseCommand, parseSizes, listOption, intOption, UsageError, CommandError, EXIT } from "./options.js";
import { bytes, duration, table } from "./format.js";
import { progress } from "./progress.js";

const ms = (ns: number) => ns / 1e6;

/** Which of the three a core's estimate is mostly. */
function coreBound(c: CoreEstimate): string {
  const parts: [string, number][] = [["accessor", c.accessorNs], ["DMA", c.dmaNs], ["compute", c.computeNs]];
  const top = parts.reduce((a, b) => (b[1] > a[1] ? b : a));
  return top[1] > 0 ? top[0] : "-";
}

/** Column titles of the instruction classes. */
const CLASS_TITLES: Record<(typeof INSTRUCTION_CLASSES)[number], string> = {
  scalar: "scalar", vector: "v128", memory: "load/store", branch: "branch", divide: "div/sqrt", libraryCall: "library calls",
};

/** 1234567 -> "1.23 M" */
function count(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e5 ? 1 : 0)} k`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} M`;
  return `${(n / 1e9).toFixed(2)} G`;
}

/** The text summary of a profile. */
export function profileSummary(r: ProfileResult, traceFile: string): string {
  const t = r.trace;
  const e = r.estimate;
  const spans = t.cores.map((c) => c.end - c.start);
  const meanSpan = spans.reduce((a, b) => a + b, 0) / spans.length;
  const rows = t.cores.map((c, k) => {
    const n = c.counters;
    return [
      c.core, c.thread < 0 ? "host" : String(c.thread), duration(spans[k]), bytes(n.tcmInBytes), n.tcmInCalls, bytes(n.tcmOutBytes), n.tcmOutCalls,
      `${n.elemReads}/${n.elemWrites}`, `${n.streamReads}/${n.streamWrites}`, n.printfCalls,
      duration(ms(e.cores[k].accessorNs)), duration(ms(e.cores[k].dmaNs)), duration(ms(e.cores[k].computeNs)), duration(ms(e.cores[k].totalNs)), coreBound(e.cores[k]),
    ];
  });
  const counted = e.cores.filter((c) => c.instructions);
  const instructionRows = counted.map((c) => [c.core, ...INSTRUCTION_CLASSES.map((k) => count(c.instructions![k])), duration(ms(c.computeNs))]);
  const cycleNote = INSTRUCTION_CLASSES.map((k) => `${CLASS_TITLES[k]} ${CYCLES_PER_INSTRUCTION[k]}`).join(", ");
  const slowest = e.cores.reduce((a, b) => (b.totalNs > a.totalNs ? b : a), e.cores[0]);
  const bound = e.bound === "HBM bandwidth" ? "HBM bandwidth" : `slowest: ${e.bound}`;
  return [
    `profile ${r.op} (${r.multicore ? `multicore, ${t.cores.length} cores` : "single core"})`,
    `wall time on this machine: median ${duration(r.wall.median)} (min ${duration(r.wall.min)}, max ${duration(r.wall.max)}) untraced; ${duration(r.tracedWall.median)} traced${r.counted ? " (instructions counted)" : ""}`,
    `estimated device time on ${e.device} (GpSimd cost model, an estimate): ${duration(ms(e.totalNs))} = launch ${duration(ms(e.launchNs))} + kernel ${duration(ms(e.kernelNs))} (${bound})${e.returnCopyNs ? ` + returned-tensor copy ${duration(ms(e.returnCopyNs))}` : ""}`,
    `  the slowest core's estimate: accessor ${duration(ms(slowest.accessorNs))}, DMA/TCM copy ${duration(ms(slowest.dmaNs))}, compute ${duration(ms(slowest.computeNs))}: ${e.limitedBy}-bound${e.cores.length > 1 ? `; it holds the others back by ${duration(ms(Math.max(0, e.heldBackNs)))} (${Math.max(0, (e.imbalance - 1) * 100).toFixed(0)} % over the mean)` : ""}`,
    `  compute from ${e.computeFrom === "counted instructions" ? "the kernel's executed instructions, counted per core (cycles each: " + cycleNote + ")" : "the bytes copied into TCM (instruction counting was off)"}`,
    "",
    table(["core", "thread", "span", "TCM in", "calls", "TCM out", "calls", "elem r/w", "stream r/w", "printf", "est. accessor", "est. DMA", "est. compute", "est. total", "bound"], rows),
    ...(instructionRows.length ? ["", "executed kernel instructions per core:", table(["core", ...INSTRUCTION_CLASSES.map((k) => CLASS_TITLES[k]), "est. compute"], instructionRows)] : []),
    "",
    `load imbalance (slowest / mean): wall spans ${(Math.max(...spans) / meanSpan).toFixed(2)}, estimate ${e.imbalance.toFixed(2)}`,
    `bytes moved: ${bytes(t.cores.reduce((s, c) => s + c.counters.tcmInBytes + c.counters.tcmOutBytes, 0))} through TCM copies${t.returnedBytes ? `, ${bytes(t.returnedBytes)} returned-tensor copy` : ""}`,
    ...(t.cores.some((c) => c.dropped) ? [`note: ${t.cores.reduce((s, c) => s + c.dropped, 0)} events past the per-core limit were not kept (counters are complete)`] : []),
    `trace: ${traceFile} (open in https://ui.perfetto.dev or chrome://tracing)`,
  ].join("\n");
}

/** Runs gpsimd profile. */
/** The deterministic figures of a profile, per core: bytes and calls counted, instructions, the cost model's estimate. */
function profileFigures(result: ProfileResult, device: string): Record<string, unknown> {
  const e = result.estimate;
  return {
    device, counted: result.counted, returnedBytes: result.trace.returnedBytes,
    estimate: { totalNs: e.totalNs, launchNs: e.launchNs, kernelNs: e.kernelNs, returnCopyNs: e.returnCopyNs },
    cores: result.trace.cores.map((c) => ({ core: c.core, counters: { ...c.counters }, instructions: c.instructions ? { ...c.instructions } : undefined })),
  };
}

export function profileCommand(argv: string[]): number {
  const parsed = parseCommand(PROFILE, argv);
  if (!parsed) return EXIT.OK;
  const { values, positionals } = parsed;
  const device = (values.device as string | undefined) ?? "trn1";
  if (!(device in DEVICES)) throw new UsageError(`gpsimd profile: --device must be one of ${Object.keys(DEVICES).join(", ")}, got ${device}`);
  const { library, opName } = openTarget("profile", positionals, values);
  const kernel = library.ops.get(opName)!.kernel;
  const args = kernelArguments(kernel, listOption(values, "shape").map((s) => parseSizes(s)), listOption(values, "dtype"), listOption(values, "arg"), { kind: valueKind(values), seed: intOption(values, "seed", 0) });
  callReport().target = { library: library.namespace, op: `${library.namespace}::${opName}`, cores: library.multicore ? library.cores : 1 };
  recordInputs(kernel.params.map((p, i) => [p.name, args[i]]));
  process.stdout.write(`${library.namespace}::${opName}(${describeArguments(args)})\n`);
  const bar = progress("gpsimd profile");
  let result: ProfileResult;
  try {
    result = profile(library, opName, args, {
      runs: intOption(values, "runs", 10, 1), traceRuns: intOption(values, "trace-runs", 3, 1), progress: (d, n) => bar.update(d, n), device: device as DeviceName,
      count: !values["no-count"],
    });
  } catch (e) {
    if (e instanceof GpsimdError) throw new CommandError(`${e.name} [${e.code}]: ${e.message}`, EXIT.FAILED, e);
    throw e;
  } finally {
    bar.finish();
    for (const a of args) if (a instanceof Tensor) a.dispose();
  }
  const traceFile = (values.trace as string | undefined) ?? `${library.namespace}-${opName}.trace.json`;
  writeFileSync(traceFile, JSON.stringify(chromeTrace(result)));
  callReport().profile = profileFigures(result, device);
  Object.assign(callReport().timing, { wallMedianMs: result.wall.median, wallMinMs: result.wall.min, wallMaxMs: result.wall.max });
  process.stdout.write(`${profileSummary(result, traceFile)}\n`);
  return EXIT.OK;
}
