// Where the host time of a synchronous single-core call goes, stage by stage:
// the launch benchmark's split of the tiny call (bench/suites/launch.ts). Off
// in normal use, when each split point is one test of a module variable; on,
// each point reads the clock (performance.now(), some tens of ns, which the
// split then counts in the stage that ends there).

/** The stages, in call order; each split point ends the stage it names. */
export const CALL_STAGES = [
  "arguments",       // operator lookup, checkArguments
  "shape function",  // meta tensors, the shape function, its result checked
  "output tensor",   // the output's device memory and Tensor object
  "launch setup",    // the core's region and trusted fields, descriptors, instance, watchdog armed
  "heap hygiene",    // clearing what the previous call left on the core's heap
  "enter",           // __gpsimd_enter: TCM, heap, streams, counters, the ownership checks' per-launch state
  "kernel",          // the kernel function itself
  "exit",            // __gpsimd_exit: guard bytes, leaks, streams; the C++ stack's low-water mark
  "after the kernel",// watchdog disarmed, printf and warnings, descriptors verified, result, output coverage
] as const;

export type CallStage = (typeof CALL_STAGES)[number];

export const S_ARGUMENTS = 0, S_SHAPE = 1, S_OUTPUT = 2, S_SETUP = 3, S_HEAP = 4, S_ENTER = 5, S_KERNEL = 6, S_EXIT = 7, S_AFTER = 8;

/** Milliseconds per stage, added up over the calls made while a split is on. */
class StageSplit {
  readonly totals = new Float64Array(CALL_STAGES.length);
  private last = 0;
  /** The call starts now. */
  start(): void { this.last = performance.now(); }
  /** Stage `stage` ends now. */
  mark(stage: number): void {
    const now = performance.now();
    this.totals[stage] += now - this.last;
    this.last = now;
  }
}

/** The split being recorded (null: none, the normal case). */
export let split: StageSplit | null = null;

/**
 * Runs fn with the stage split on and returns the milliseconds each stage took in total (by CALL_STAGES order);
 * only synchronous single-core calls made by fn are split.
 */
export function splitStages(fn: () => void): Float64Array {
  const saved = split;
  const s = split = new StageSplit();
  try { fn(); } finally { split = saved; }
  return s.totals;
}
