// profileKernel: runs an NKI kernel (every check on unless asked otherwise) while recording its
// instructions, then estimates each SPMD instance's time on a NeuronCore: a per-engine timeline,
// time per engine, the critical path with source lines and a Chrome trace. The estimate is a model
// (nki/profile/cost.ts, docs/cost-model.md), not a measurement of this machine.
import type { Program } from "../python/index.js";
import type { SourceSite } from "../python/values.js";
import type { KernelRun } from "../machine/kernel-run.js";
import { launchKernel, type KernelFunction, type LaunchOptions, type LaunchResult } from "../language/run.js";
import { addConsumer, removeConsumer, type InstructionEvent, type RunConsumer } from "../checks/index.js";
import { nkiInstructions } from "./instructions.js";
import { schedule, criticalPath, ENGINES, type Timeline, type Placed } from "./timeline.js";
import { chromeTrace, type ChromeTrace } from "./chrome-trace.js";
import type { EngineName } from "./cost.js";

export { COSTS, instructionCost, type EngineName } from "./cost.js";
export { chromeTrace, type ChromeTrace } from "./chrome-trace.js";

export interface PathStep {
  readonly instruction: string;
  readonly engine: EngineName;
  readonly file?: string;
  readonly line?: number;
  readonly startUs: number;
  readonly durUs: number;
}

export interface InstanceProfile {
  readonly ids: readonly number[];
  readonly totalUs: number;
  readonly busyUs: Record<EngineName, number>;
  readonly counts: Record<EngineName, number>;
  readonly criticalPath: readonly PathStep[];
  readonly timeline: Timeline;
}

export interface KernelProfile {
  readonly kernel: string;
  /** The estimate for the launch: the slowest instance (instances run at once on their cores). */
  readonly totalUs: number;
  /** Per engine, of the slowest instance. */
  readonly busyUs: Record<EngineName, number>;
  readonly counts: Record<EngineName, number>;
  readonly criticalPath: readonly PathStep[];
  readonly instances: readonly InstanceProfile[];
  readonly trace: ChromeTrace;
}

/** Collects the instructions of every run of one launch, by run. */
class Collector implements RunConsumer {
  readonly runs = new Map<KernelRun, InstructionEvent[]>();
  instruction(e: InstructionEvent): void {
    let list = this.runs.get(e.run);
    if (!list) this.runs.set(e.run, (list = []));
    list.push(e);
  }
}

/** The estimate of events already recorded (one list per instance). */
export function profileRuns(kernel: string, runs: readonly { ids: readonly number[]; events: readonly InstructionEvent[] }[]): KernelProfile {
  const instances = runs.map(({ ids, events }): InstanceProfile => {
    const timeline = schedule(nkiInstructions(events));
    return { ids, totalUs: timeline.totalUs, busyUs: timeline.busyUs, counts: timeline.counts, criticalPath: criticalPath(timeline).map(step), timeline };
  });
  const slowest = instances.reduce<InstanceProfile | null>((a, b) => (!a || b.totalUs > a.totalUs ? b : a), null);
  const zero = () => Object.fromEntries(ENGINES.map((e) => [e, 0])) as Record<EngineName, number>;
  return {
    kernel,
    totalUs: slowest?.totalUs ?? 0,
    busyUs: slowest?.busyUs ?? zero(),
    counts: slowest?.counts ?? zero(),
    criticalPath: slowest?.criticalPath ?? [],
    instances,
    trace: chromeTrace(kernel, instances),
  };
}

function step(p: Placed): PathStep {
  const s: SourceSite | undefined = p.instruction.site;
  return { instruction: p.instruction.name, engine: p.engine, file: s?.file, line: s?.line, startUs: p.startUs, durUs: p.endUs - p.startUs };
}

/** Runs the kernel as launchKernel does and returns its result with the estimate. */
export function profileKernel(program: Program, kernel: KernelFunction, args: unknown[], kwargs: Record<string, unknown> = {}, options: LaunchOptions = {}): { result: LaunchResult; profile: KernelProfile } {
  const collector = new Collector();
  addConsumer(collector);
  let result: LaunchResult;
  try {
    result = launchKernel(program, kernel, args, kwargs, options);
  } finally {
    removeConsumer(collector);
  }
  const runs = [...collector.runs].map(([run, events]) => ({ ids: run.programIds, events }));
  return { result, profile: profileRuns(kernel.name, runs) };
}

const us = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(3)} ms` : `${x.toFixed(2)} µs`);

/** The profile as text: total, per engine, the critical path (longest steps first when it is long). */
export function formatProfile(p: KernelProfile, maxPathSteps = 12): string {
  const lines = [`estimated time on a NeuronCore-v2 (trn1): ${us(p.totalUs)}${p.instances.length > 1 ? ` (slowest of ${p.instances.length} instances)` : ""}`];
  lines.push("per engine (busy time, share of the total, instructions):");
  for (const e of ENGINES) {
    if (!p.counts[e]) continue;
    lines.push(`  ${e.padEnd(7)} ${us(p.busyUs[e]).padStart(12)}  ${((100 * p.busyUs[e]) / Math.max(p.totalUs, 1e-9)).toFixed(1).padStart(5)}%  ${p.counts[e]}`);
  }
  const repeats = p.instances.find((i) => i.totalUs === p.totalUs)?.timeline.repeats ?? 0;
  if (repeats) lines.push(`  (${repeats} instructions repeat an earlier one on unchanged inputs: computed once, not charged)`);
  const path = p.criticalPath;
  lines.push(`critical path (${path.length} instructions):`);
  const shown = path.length <= maxPathSteps ? path : [...path].sort((a, b) => b.durUs - a.durUs).slice(0, maxPathSteps).sort((a, b) => a.startUs - b.startUs);
  if (shown.length < path.length) lines.push(`  (the ${shown.length} longest steps, in time order)`);
  for (const s of shown) lines.push(`  ${us(s.startUs).padStart(12)} +${us(s.durUs).padEnd(11)} ${s.engine.padEnd(7)} ${s.instruction}${s.line ? ` at ${s.file}:${s.line}` : ""}`);
  return lines.join("\n");
}
