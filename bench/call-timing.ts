// The typical call of a burst: each call timed on its own, the median taken. Not the burst's mean: on this 2-vCPU
// machine a multicore call whose worker lost its CPU to another process mid-core waits a scheduler slice (ms), and a
// few such calls in a burst of tens moved its mean by half and more, for a kernel and a two-thread floor alike, while
// the median call stayed put. The floor rounds and the multicore breakdown time kernels and in-process floors so.
import { median } from "./stats.js";

/**
 * Untimed calls first, in every burst, for at least this long: the burst starts after the machine's threads went to
 * sleep (settle.ts), and a sleeping thread is slow to wake here: in the multicore breakdown's rounds the core pool's
 * worker, or the split floor's, often took part in no call of a 10 ms burst that began with it asleep (the burst then
 * ran at one thread's speed, and a kernel at up to 10x its steady time). What is timed is the steady state.
 */
const WARM_UP_MS = 5;

/** The median of `calls` calls of `run`, each timed on its own, in µs (after WARM_UP_MS of untimed calls, two at least). */
export async function medianCallMicros(calls: number, run: () => unknown): Promise<number> {
  const warmUntil = performance.now() + WARM_UP_MS;
  for (let i = 0; i < 2 || performance.now() < warmUntil; i++) await run();
  const times = new Array<number>(calls);
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await run();
    times[i] = (performance.now() - start) * 1e3;
  }
  return median(times);
}

/** Whether a floor runs in this process (plain wasm: timed call by call) or times its own loop elsewhere (native C). */
export function inProcessFloor(name: string): boolean {
  return name.startsWith("wasm-");
}
