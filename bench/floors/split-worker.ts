// A floor thread (split.ts): instantiates the floor module over the shared
// memory, then claims parts of every split run until none is left (one that
// wakes after the calling thread took them all claims nothing). It spins
// briefly after a run (in a burst the next one follows at once) and then
// sleeps on the generation word until notified: a long spin would take a CPU
// from the kernels timed in the same rounds (2 CPUs here).
import { parentPort, workerData } from "node:worker_threads";
import { GEN, DONE, FN, FAILED, ARGS, FUNCTIONS, runParts } from "./split.js";
import type { FloorExports } from "./plain-wasm.js";

const { module, memory, control, thread, tcmBuffer } = workerData as { module: WebAssembly.Module; memory: WebAssembly.Memory; control: Int32Array; thread: number; tcmBuffer: number };
const exports = new WebAssembly.Instance(module, { env: { memory, abort: () => { throw new Error("floor module aborted"); } } }).exports as Record<string, (...a: number[]) => void>;
exports.set_tcm_buffer(tcmBuffer); // this thread's TCM, for the TCM floors
// Fixed arguments before (begin, end), per export (a Record over every export: one left out does not compile).
const ARITY: Record<keyof FloorExports, number> = { giou: 3, giou_tcm: 3, relu_forward: 2, relu_forward_tcm: 2, set_tcm_buffer: 0, relu_backward: 3, copy_chunks: 3, add: 3 };
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
    runParts(control, seen, (begin, end) => exports[fn](...fixed, begin, end));
  } catch (e) {
    process.stderr.write(`bench floors: floor thread ${thread}: ${e instanceof Error ? e.stack : String(e)}\n`);
    Atomics.store(control, FAILED, thread);
    Atomics.notify(control, DONE);
  }
}
