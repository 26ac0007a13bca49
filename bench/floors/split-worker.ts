// A floor thread (split.ts): instantiates the floor module over the shared
// memory, then runs its part of every split run. It spins briefly after a run
// (in a burst the next one follows at once) and then sleeps on the generation
// word until notified: a long spin would take a CPU from the kernels timed in
// the same rounds (2 CPUs here).
import { parentPort, workerData } from "node:worker_threads";
import { GEN, DONE, FN, FAILED, RANGES, ARGS, FUNCTIONS } from "./split.js";

const { module, memory, control, thread } = workerData as { module: WebAssembly.Module; memory: WebAssembly.Memory; control: Int32Array; thread: number };
const exports = new WebAssembly.Instance(module, { env: { memory, abort: () => { throw new Error("floor module aborted"); } } }).exports as Record<string, (...a: number[]) => void>;
const ARITY: Record<string, number> = { giou: 3, relu_forward: 2, relu_backward: 3, copy_chunks: 3 };
// The generation is read before "ready" is posted: the first run may bump it the moment "ready" arrives.
let seen = Atomics.load(control, GEN);
parentPort!.postMessage("ready");
for (;;) {
  let spins = 0;
  while (Atomics.load(control, GEN) === seen) {
    if (++spins > 100_000) Atomics.wait(control, GEN, seen);
  }
  seen = Atomics.load(control, GEN);
  const fn = FUNCTIONS[control[FN]];
  const fixed = Array.from(control.subarray(ARGS, ARGS + ARITY[fn]));
  try {
    exports[fn](...fixed, control[RANGES + 2 * thread], control[RANGES + 2 * thread + 1]);
  } catch (e) {
    process.stderr.write(`bench floors: floor thread ${thread}: ${e instanceof Error ? e.stack : String(e)}\n`);
    Atomics.store(control, FAILED, thread);
  }
  Atomics.add(control, DONE, 1);
  Atomics.notify(control, DONE);
}
