// Runs a floor export over an index range split across threads: the range is
// cut into PARTS parts (as many as a multicore launch has cores), which the
// calling thread and the workers claim one at a time, as the core pool's
// threads claim cores (host/cores/executor.ts). A thread the machine slows or
// deschedules then costs at most the part it holds, not half the work, so the
// floor is what two threads allow on this machine at this moment, the same
// way a multicore kernel is. Workers spin on a shared generation word between
// runs, so a split run pays no wake-up: this is the best a thread split can
// do here, the floor multicore kernels are held to.
import { Worker } from "node:worker_threads";
import type { FloorExports } from "./plain-wasm.js";

/** Control words: [generation, parts done, function index, failed thread, claim word, parts, part bounds..., fixed args...]. */
const GEN = 0, DONE = 1, FN = 2, FAILED = 3, NEXT = 4, PARTS = 5, BOUNDS = 6, MAX_PARTS = 64, ARGS = BOUNDS + MAX_PARTS + 1;
export const FUNCTIONS: (keyof FloorExports)[] = ["giou", "giou_tcm", "relu_forward", "relu_forward_tcm", "relu_backward", "copy_chunks", "add"];
/** Bytes of each thread's buffer for the TCM floors (floors.ts set_tcm_buffer): a core's TCM. */
export const TCM_BUFFER_BYTES = 16384;
/** Parts a run is cut into: the cores of a multicore launch. */
export const SPLIT_PARTS = 8;

/** The claim word: the run's generation (low 24 bits) and its next part, so a thread late for a run claims nothing of the next. */
function claimWord(generation: number, next: number): number {
  return ((generation & 0xFFFFFF) << 8) | next;
}

/**
 * Claims and runs parts of run `generation` until none is left (the calling thread and every worker alike), counting
 * each part done. The calling thread waits for the parts, not for the workers: a worker that wakes too late to claim
 * one costs nothing, as a core thread that claims no core of a launch.
 */
export function runParts(c: Int32Array, generation: number, run: (begin: number, end: number) => void): void {
  const parts = c[PARTS];
  for (;;) {
    const word = Atomics.load(c, NEXT);
    const k = word & 0xFF;
    if (word >>> 8 !== (generation & 0xFFFFFF) || k >= parts) return;
    if (Atomics.compareExchange(c, NEXT, word, claimWord(generation, k + 1)) !== word) continue;
    run(c[BOUNDS + k], c[BOUNDS + k + 1]);
    Atomics.add(c, DONE, 1);
    Atomics.notify(c, DONE);
  }
}

export class ThreadSplit {
  private constructor(private readonly control: Int32Array, private readonly workers: Worker[]) {}

  /** Starts threads - 1 workers; worker t copies through the TCM-sized buffer at tcmBuffers + t * TCM_BUFFER_BYTES. */
  static async start(module: WebAssembly.Module, memory: WebAssembly.Memory, threads: number, tcmBuffers: number): Promise<ThreadSplit> {
    const control = new Int32Array(new SharedArrayBuffer(4 * (ARGS + 16)));
    const workers: Worker[] = [];
    for (let t = 1; t < threads; t++) {
      const w = new Worker(new URL("./split-worker.js", import.meta.url), { workerData: { module, memory, control, thread: t, tcmBuffer: tcmBuffers + t * TCM_BUFFER_BYTES } });
      await new Promise<void>((resolve, reject) => { w.once("message", () => resolve()); w.once("error", reject); });
      workers.push(w);
    }
    return new ThreadSplit(control, workers);
  }

  run(exports: FloorExports, fn: keyof FloorExports, fixed: number[], total: number, align: number, parts = SPLIT_PARTS): void {
    const c = this.control;
    const units = Math.ceil(total / align);
    const n = Math.max(1, Math.min(parts, MAX_PARTS, units));
    for (let k = 0; k <= n; k++) c[BOUNDS + k] = Math.min(total, Math.floor((units * k) / n) * align);
    c[PARTS] = n;
    fixed.forEach((v, i) => { c[ARGS + i] = v; });
    c[FN] = FUNCTIONS.indexOf(fn);
    Atomics.store(c, DONE, 0);
    const generation = Atomics.load(c, GEN) + 1;
    Atomics.store(c, NEXT, claimWord(generation, 0));
    Atomics.store(c, GEN, generation); // workers spin on this word, and sleep on it when idle long
    Atomics.notify(c, GEN);
    const f = exports[fn] as (...a: number[]) => void;
    runParts(c, generation, (begin, end) => f(...fixed, begin, end));
    // Every part done (a worker may still hold one), so none runs when the next run begins.
    for (let spins = 0, done = Atomics.load(c, DONE); done < n; done = Atomics.load(c, DONE)) {
      if (++spins > 20_000) Atomics.wait(c, DONE, done, 10);
      // A worker that threw says so here (its error event could not reach a thread waiting like this one).
      if (Atomics.load(c, FAILED)) throw new Error(`bench floors: floor thread ${Atomics.load(c, FAILED)} failed (its error is on standard error)`);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

export { GEN, DONE, FN, FAILED, ARGS };
