// Where a build's time goes: each stage the build runs (compiler start, the kernel's compile, the link, each
// post-link pass, the optimiser, writing the library) is timed on the compiler thread, handed back with the build's
// answer (compile-worker.ts) like build warnings, and shown by `--verbose` and the build benchmark. Stages run one
// after another, so their times add up to (nearly) the build's total: what is left is the bookkeeping between them.
// A detail is a part of an enclosing stage (a post-link pass inside "instrument the kernel", the two builds A and B
// of a stage that runs them side by side): shown under it, never added to the total.

/** One timed stage of a build; `detail`: a part of the stage recorded before it, not counted in the sum. */
export interface BuildStage { name: string; ms: number; detail?: boolean }

/** The `detail` argument of timeStage and timeStageAsync. */
export const DETAIL = true;

const recorded: BuildStage[] = [];

/**
 * Records `ms` for stage `name` (added to the stage's earlier time in this build, if any). A stage is listed where
 * it started: its entry is made when it starts, so the details inside it come after it.
 */
export function recordStage(name: string, ms: number, detail = false): void {
  stageEntry(name, detail).ms += ms;
}

function stageEntry(name: string, detail: boolean): BuildStage {
  let entry = recorded.find((s) => s.name === name);
  if (!entry) {
    entry = detail ? { name, ms: 0, detail } : { name, ms: 0 };
    recorded.push(entry);
  }
  return entry;
}

/** Runs `work` as stage `name` (synchronous work). */
export function timeStage<T>(name: string, work: () => T, detail = false): T {
  const entry = stageEntry(name, detail);
  const start = performance.now();
  try {
    return work();
  } finally {
    entry.ms += performance.now() - start;
  }
}

/** Runs `work` as stage `name` (asynchronous work: timed until it settles). */
export async function timeStageAsync<T>(name: string, work: () => Promise<T>, detail = false): Promise<T> {
  const entry = stageEntry(name, detail);
  const start = performance.now();
  try {
    return await work();
  } finally {
    entry.ms += performance.now() - start;
  }
}

/** The stages recorded since the last call, emptied: one build's. */
export function takeBuildStages(): BuildStage[] {
  return recorded.splice(0);
}

/** The milliseconds of the stages that are not details: what adds up to a build's total. */
export function stagesTotal(stages: BuildStage[]): number {
  return stages.reduce((n, s) => (s.detail ? n : n + s.ms), 0);
}

/** The stages as lines of a breakdown: name, milliseconds, share of `totalMs`; details indented under their stage. */
export function formatStages(stages: BuildStage[], totalMs: number): string[] {
  const label = (s: BuildStage) => (s.detail ? `  ${s.name}` : s.name);
  const width = Math.max(5, ...stages.map((s) => label(s).length));
  const share = (ms: number) => (totalMs > 0 ? `${((100 * ms) / totalMs).toFixed(0).padStart(3)} %` : "");
  const lines = stages.map((s) => `${label(s).padEnd(width)}  ${s.ms.toFixed(0).padStart(6)} ms  ${s.detail ? "" : share(s.ms)}`.trimEnd());
  const other = Math.max(0, totalMs - stagesTotal(stages));
  lines.push(`${"other".padEnd(width)}  ${other.toFixed(0).padStart(6)} ms  ${share(other)}`.trimEnd());
  return lines;
}
