// Where a build's time goes: each stage the build runs (compiler start, the kernel's compile, the link, each
// post-link pass, the optimiser, writing the library) is timed on the compiler thread, handed back with the build's
// answer (compile-worker.ts) like build warnings, and shown by `--verbose` and the build benchmark. Stages run one
// after another, so their times add up to (nearly) the build's total: what is left is the bookkeeping between them.

/** One timed stage of a build. */
export interface BuildStage { name: string; ms: number }

const recorded: BuildStage[] = [];

/** Records `ms` for stage `name` (added to the stage's earlier time in this build, if any). */
export function recordStage(name: string, ms: number): void {
  const earlier = recorded.find((s) => s.name === name);
  if (earlier) earlier.ms += ms;
  else recorded.push({ name, ms });
}

/** Runs `work` as stage `name` (synchronous work). */
export function timeStage<T>(name: string, work: () => T): T {
  const start = performance.now();
  try {
    return work();
  } finally {
    recordStage(name, performance.now() - start);
  }
}

/** Runs `work` as stage `name` (asynchronous work: timed until it settles). */
export async function timeStageAsync<T>(name: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    recordStage(name, performance.now() - start);
  }
}

/** The stages recorded since the last call, emptied: one build's. */
export function takeBuildStages(): BuildStage[] {
  return recorded.splice(0);
}

/** The stages as lines of a breakdown: name, milliseconds, share of `totalMs`. */
export function formatStages(stages: BuildStage[], totalMs: number): string[] {
  const width = Math.max(0, ...stages.map((s) => s.name.length));
  const lines = stages.map((s) => `${s.name.padEnd(width)}  ${s.ms.toFixed(0).padStart(6)} ms  ${totalMs > 0 ? ((100 * s.ms) / totalMs).toFixed(0).padStart(3) : "  -"} %`);
  const staged = stages.reduce((n, s) => n + s.ms, 0);
  lines.push(`${"other".padEnd(width)}  ${Math.max(0, totalMs - staged).toFixed(0).padStart(6)} ms  (between stages)`);
  return lines;
}
