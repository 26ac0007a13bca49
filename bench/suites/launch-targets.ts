// The launch suite's own lines: its two targets (issue 22) as measured in the
// run, met or missed by how much, and where the tiny call's host time goes,
// stage by stage (host/library/call-stages.ts), so that a gap is explained.
import os from "node:os";
import type { Library, Tensor } from "gpsimd";
import { splitStages, CALL_STAGES } from "../../host/library/call-stages.js";
import { median } from "../stats.js";
import type { SuiteMeta } from "../results.js";

/** Runtime overhead of the tiny call: its median latency minus the plain-wasm floor (µs). */
export const TINY_CALL_GOAL_US = 3;
/** The empty 8-core launch, synchronous: median and p99 (µs). */
export const EMPTY_8CORE_MEDIAN_GOAL_US = 15, EMPTY_8CORE_P99_GOAL_US = 100;

/** Calls the split is taken over (each split alone: per-stage medians). */
const SPLIT_CALLS = 20_000;

/** "2.41" */
function us(v: number): string {
  return v.toFixed(2);
}

function verdict(value: number, goal: number): string {
  return value <= goal ? "met" : `NOT met, ${us(value - goal)} µs over`;
}

function load(): string {
  return `load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`;
}

/** Per-stage medians (µs) of calls of `call`, each split alone, and the median of the rest (what lies outside the stages). */
function stageMedians(call: () => void, calls: number): { stages: number[]; outside: number; total: number } {
  const perStage: number[][] = CALL_STAGES.map(() => []);
  const outside: number[] = [], totals: number[] = [];
  for (let i = 0; i < calls; i++) {
    let total = 0;
    const split = splitStages(() => {
      const start = performance.now();
      call();
      total = (performance.now() - start) * 1e3;
    });
    let staged = 0;
    for (let s = 0; s < split.length; s++) { perStage[s].push(split[s] * 1e3); staged += split[s] * 1e3; }
    outside.push(total - staged);
    totals.push(total);
  }
  return { stages: perStage.map(median), outside: median(outside), total: median(totals) };
}

/** The cost of one read of the split's clock (µs): each of the call's split points reads it once. Median of batches (a preempted batch does not count). */
function clockRead(): number {
  const batches: number[] = [];
  for (let b = 0; b < 50; b++) {
    const n = 1000, start = performance.now();
    for (let i = 0; i < n; i++) performance.now();
    batches.push(((performance.now() - start) * 1e3) / n);
  }
  return median(batches);
}

/** What the launch suite prints after its measurements: the tiny call's library and input, and the empty kernel's. */
export interface LaunchTargetsInput {
  tiny: { library: Library; call: (x: Tensor) => Tensor; input: Tensor };
}

/** The launch suite's targets from this run's results, and the tiny call's split measured now. */
export function launchTargets(meta: SuiteMeta, input: LaunchTargetsInput): string[] {
  const lines: string[] = [];
  const tinyLatency = meta.latency["tiny-relu-256/tcm"];
  const floor = meta.floors["tiny-relu-256"]?.seconds["wasm-1t"];
  if (tinyLatency && floor !== undefined) {
    const overhead = tinyLatency.p50 - floor * 1e6;
    lines.push(`target: tiny single-core call (ReLU of 256 floats), median latency minus the plain-wasm floor ≤ ${TINY_CALL_GOAL_US} µs: ${us(overhead)} µs (call ${us(tinyLatency.p50)} µs, floor ${us(floor * 1e6)} µs): ${verdict(overhead, TINY_CALL_GOAL_US)} [${load()}]`);
  }
  const { library, call, input: x } = input.tiny;
  const run = () => call(x).dispose();
  for (let i = 0; i < 2000; i++) run();
  const on = stageMedians(run, SPLIT_CALLS);
  const clock = clockRead();
  const stages = CALL_STAGES.map((name, i) => `${name} ${us(on.stages[i])}`).join(" | ");
  const staged = on.stages.reduce((a, b) => a + b, 0);
  lines.push(`  the tiny call by stage, medians of ${SPLIT_CALLS} calls with the split on (µs): ${stages} | outside the stages (ops.<lib>.<op>, output dispose) ${us(on.outside)}`);
  lines.push(`  each stage includes one read of the split's clock (${us(clock)} µs here); sum of the stage medians ${us(staged + on.outside)} µs, median call with the split on ${us(on.total)} µs [${load()}]`);
  // The enter stage includes the per-launch state of the default mode's TCM checks (assembly/ownership.ts own_enter);
  // with checks off it has none of it, so the difference is its share.
  const saved = library.options.checks;
  library.configure({ checks: false });
  let off: ReturnType<typeof stageMedians>;
  try {
    for (let i = 0; i < 2000; i++) run();
    off = stageMedians(run, SPLIT_CALLS / 4);
  } finally {
    library.configure({ checks: saved });
  }
  const enter = CALL_STAGES.indexOf("enter"), kernel = CALL_STAGES.indexOf("kernel");
  lines.push(`  enter ${us(on.stages[enter])} µs with checks on, ${us(off.stages[enter])} µs off (the difference: the checks' per-launch state, own_enter's TCM written-map among it); kernel ${us(on.stages[kernel])} µs on, ${us(off.stages[kernel])} µs off`);
  const sync = meta.latency["launch-sync/multicore-8cores"];
  if (sync) {
    lines.push(`target: empty 8-core launch, synchronous, median ≤ ${EMPTY_8CORE_MEDIAN_GOAL_US} µs: ${us(sync.p50)} µs: ${verdict(sync.p50, EMPTY_8CORE_MEDIAN_GOAL_US)}; p99 ≤ ${EMPTY_8CORE_P99_GOAL_US} µs: ${us(sync.p99)} µs: ${verdict(sync.p99, EMPTY_8CORE_P99_GOAL_US)} [${load()}]`);
  }
  return lines;
}
