// The helper thread that compiles the tile engine into the cache while the thread that needs it waits
// (engine-build.ts). Answers in the shared buffer: state 1 done, 2 failed (then the message's length and
// UTF-8 text), and wakes the waiter.
import { workerData } from "node:worker_threads";
import { buildEngineCache } from "./engine-build.js";

const { answer } = workerData as { answer: SharedArrayBuffer };
const state = new Int32Array(answer, 0, 2);

function finish(code: number, message = ""): void {
  const bytes = new TextEncoder().encode(message).slice(0, answer.byteLength - 8);
  new Uint8Array(answer, 8).set(bytes);
  state[1] = bytes.length;
  Atomics.store(state, 0, code);
  Atomics.notify(state, 0);
}

buildEngineCache().then(() => finish(1), (e: unknown) => finish(2, e instanceof Error ? e.message : String(e)));
