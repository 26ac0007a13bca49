// Threads that ran a timed subject spin for a while before they sleep: the core pool's workers SPIN_MS after a
// launch (host/cores/executor.ts), the split floor's workers for their spin count (floors/split-worker.ts). Rounds
// that interleave subjects wait that long between bursts, or the next subject shares the machine's CPUs with the
// previous one's spinning threads: on 2 CPUs the two-thread floor measured no faster than one thread right after a
// multicore burst, and the multicore kernel twice as slow right after the split floor.
import { SPIN_MS } from "../host/cores/executor.js";

/** How long a round waits between two bursts: the longest spin, and a margin for the thread to reach its sleep. */
export const SETTLE_MS = SPIN_MS + 3;

/** Resolves once the threads of the burst before have gone to sleep. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}
