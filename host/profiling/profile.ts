// profile(library, op, args): wall time of plain calls, then traced calls
// for the per-core timeline and counters, and the cost model's estimate of
// the device time. What `gpsimd profile` prints and writes comes from here.
import type { Library } from "../library/library.js";
import type { Tensor } from "../device/tensor.js";
import type { LaunchTrace } from "./trace.js";
import { estimateLaunch, onDevice, type DeviceEstimate, type LaunchCounts } from "./cost-model.js";
import { countingLibrary } from "./counting.js";
import { DEVICES, type DeviceName } from "./device.js";
import { OptionError } from "../checks/errors.js";

export { GPSIMD_COST_MODEL, estimateLaunch, onDevice, type CostModel, type DeviceEstimate, type CoreEstimate, type LaunchCounts, type ComputeSource } from "./cost-model.js";
export { countingLibrary } from "./counting.js";
export { CYCLES_PER_INSTRUCTION, computeCycles, cyclesByClass } from "./compute-cycles.js";
export { INSTRUCTION_CLASSES, type InstructionClass, type InstructionCounts } from "../../build/count-names.js";
export { DEVICES, TRN1, TRN2, type DeviceProfile, type DeviceName } from "./device.js";
export { fitCostModel, predictions, trainingEstimateIterPerSecond, CALIBRATION_POINTS, HOST_FLOOR_NS, type CalibrationPoint, type Fit } from "./cost-calibration.js";
export { chromeTrace, type ChromeTrace, type ChromeTraceEvent } from "./chrome-trace.js";
export type { LaunchTrace, CoreTrace, CoreCounters, TraceEvent } from "./trace.js";

/** How many calls to make. */
export interface ProfileOptions {
  /** Untraced calls timed for the wall time (default 10). */
  runs?: number;
  /** Traced calls; the one with the median duration is kept as the timeline (default 3). */
  traceRuns?: number;
  /** Untimed calls first, so the timings see warm code (default 2). */
  warmup?: number;
  /** Called after each call with (done, total), for progress displays. */
  progress?: (done: number, total: number) => void;
  /** The device the estimate describes (default trn1: custom C++ operators run on NeuronCore-v2). */
  device?: DeviceName;
  /** Count the kernel's executed instructions in the traced calls (default true): the compute term then comes from them. */
  count?: boolean;
}

/** Median, minimum and maximum of a set of times (ms). */
export interface Timing { median: number; min: number; max: number; }

/** What profile found. */
export interface ProfileResult {
  /** lib::op */
  op: string;
  multicore: boolean;
  /** Names of the kernel's parameters, by descriptor slot (for naming tensors in events). */
  params: string[];
  /** Wall time of untraced calls (checks as the library is configured), ms. */
  wall: Timing;
  /** Wall time of traced calls (checks on, every event timestamped, instructions counted when `counted`), ms. */
  tracedWall: Timing;
  /** Whether the traced calls counted executed instructions (the counting copy of the library ran them). */
  counted: boolean;
  /** The traced call with the median duration. */
  trace: LaunchTrace;
  /** The cost model's device time for that call (an estimate, not a measurement). */
  estimate: DeviceEstimate;
}

/** What the cost model reads of a traced launch. */
export function launchCounts(trace: LaunchTrace): LaunchCounts {
  return { cores: trace.cores.map((c) => c.counters), returnedBytes: trace.returnedBytes, instructions: trace.cores.map((c) => c.instructions) };
}

function timing(times: number[]): Timing {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
}

function count(value: number | undefined, fallback: number, name: string, min: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min) throw new OptionError("E_OPTION", `profile: ${name} must be an integer >= ${min}, got ${String(value)}`);
  return v;
}

/**
 * Profiles operator `opName` of `library` on `args`: times untraced calls, then makes traced calls (trace and
 * checks on, for the counters) and returns the median one's timeline with the estimated device time.
 * The library's settings are restored afterwards.
 */
export function profile(library: Library, opName: string, args: unknown[], options: ProfileOptions = {}): ProfileResult {
  const runs = count(options.runs, 10, "runs", 1);
  const traceRuns = count(options.traceRuns, 3, "traceRuns", 1);
  const warmup = count(options.warmup, 2, "warmup", 0);
  const device = options.device ?? "trn1";
  if (!(device in DEVICES)) throw new OptionError("E_OPTION", `profile: device must be one of ${Object.keys(DEVICES).join(", ")}, got ${String(device)}`);
  const op = library.ops.get(opName);
  if (!op) throw new OptionError("E_OPTION", `profile: ${library.namespace} has no operator ${opName}; it has ${[...library.ops.keys()].join(", ")}`);
  const total = warmup + runs + traceRuns;
  let done = 0;
  const call = (): number => {
    const t0 = performance.now();
    (library.call(opName, args) as Tensor).dispose();
    const ms = performance.now() - t0;
    options.progress?.(++done, total);
    return ms;
  };
  const counted = options.count ?? true;
  const saved = { trace: library.options.trace, checks: library.options.checks };
  try {
    library.configure({ trace: false });
    for (let i = 0; i < warmup; i++) call();
    const wall = Array.from({ length: runs }, call);
    library.configure({ trace: true, checks: true });
    // The traced calls run the counting copy (its module counts executed instructions), with the library's settings.
    const traceOn = counted ? countingLibrary(library).configure({ ...library.options }) : library;
    const tracedCall = (): { ms: number; trace: LaunchTrace } => {
      const t0 = performance.now();
      (traceOn.call(opName, args) as Tensor).dispose();
      const ms = performance.now() - t0;
      options.progress?.(++done, total);
      return { ms, trace: traceOn.lastTrace! };
    };
    const traced = Array.from({ length: traceRuns }, tracedCall);
    const median = [...traced].sort((a, b) => a.ms - b.ms)[Math.floor(traced.length / 2)];
    return {
      op: op.qualifiedName, multicore: library.multicore, params: op.kernel.params.map((p) => p.name),
      wall: timing(wall), tracedWall: timing(traced.map((t) => t.ms)), counted, trace: median.trace,
      estimate: estimateLaunch(launchCounts(median.trace), onDevice(DEVICES[device])),
    };
  } finally {
    library.configure(saved);
  }
}
