// Runs a floor export over an index range split across threads: the calling
// thread takes the first part, workers the others. Workers spin on a shared
// generation word between runs, so a split run pays no wake-up: this is the
// best a thread split can do here, the floor multicore kernels are held to.
import { Worker } from "node:worker_threads";
import type { FloorExports } from "./plain-wasm.js";

/** Control words: [generation, done, function index, failed thread, begin/end per thread..., fixed args...]. */
const GEN = 0, DONE = 1, FN = 2, FAILED = 3, RANGES = 4, MAX_THREADS = 64, ARGS = RANGES + 2 * MAX_THREADS;
export const FUNCTIONS: (keyof FloorExports)[] = ["giou", "relu_forward", "relu_backward", "copy_chunks", "add"];

export class ThreadSplit {
  private constructor(private readonly control: Int32Array, private readonly workers: Worker[]) {}

  static async start(module: WebAssembly.Module, memory: WebAssembly.Memory, threads: number): Promise<ThreadSplit> {
    const control = new Int32Array(new SharedArrayBuffer(4 * (ARGS + 16)));
    const workers: Worker[] = [];
    for (let t = 1; t < threads; t++) {
      const w = new Worker(new URL("./split-worker.js", import.meta.url), { workerData: { module, memory, control, thread: t } });
      await new Promise<void>((resolve, reject) => { w.once("message", () => resolve()); w.once("error", reject); });
      workers.push(w);
    }
    return new ThreadSplit(control, workers);
  }

  run(exports: FloorExports, fn: keyof FloorExports, fixed: number[], total: number, align: number): void {
    const c = this.control, threads = this.workers.length + 1;
    const units = Math.ceil(total / align);
    for (let t = 0; t < threads; t++) {
      c[RANGES + 2 * t] = Math.min(total, Math.floor((units * t) / threads) * align);
      c[RANGES + 2 * t + 1] = Math.min(total, Math.floor((units * (t + 1)) / threads) * align);
    }
    fixed.forEach((v, i) => { c[ARGS + i] = v; });
    c[FN] = FUNCTIONS.indexOf(fn);
    Atomics.store(c, DONE, 0);
    Atomics.add(c, GEN, 1); // workers spin on this word, and sleep on it when idle long
    Atomics.notify(c, GEN);
    (exports[fn] as (...a: number[]) => void)(...fixed, c[RANGES], c[RANGES + 1]);
    // Spin briefly (a part usually ends within microseconds of ours), then sleep on the done word.
    for (let spins = 0, done = Atomics.load(c, DONE); done < this.workers.length; done = Atomics.load(c, DONE)) {
      if (++spins > 20_000) Atomics.wait(c, DONE, done, 10);
      // A worker that threw says so here (its error event could not reach a thread waiting like this one).
      if (Atomics.load(c, FAILED)) throw new Error(`bench floors: floor thread ${Atomics.load(c, FAILED)} failed (its error is on standard error)`);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

export { GEN, DONE, FN, FAILED, RANGES, ARGS };
