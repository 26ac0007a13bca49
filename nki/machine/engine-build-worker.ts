// The helper thread that compiles the tile engine while the thread that needs it waits (engine-build.ts).
// Answers in the shared buffer: [state, length] then the bytes: state 1 with the compiled module (also
// stored in the cache when the cache folder is writable), 2 with a UTF-8 error message; then wakes the waiter.
import { workerData } from "node:worker_threads";
import { compileEngine, readEngineSources, storeInCache } from "./engine-build.js";

const { answer } = workerData as { answer: SharedArrayBuffer };
const state = new Int32Array(answer, 0, 2);

function finish(code: number, bytes: Uint8Array): void {
  const room = answer.byteLength - 8;
  if (bytes.length > room) return finish(2, new TextEncoder().encode(`the compiled engine (${bytes.length} bytes) does not fit the answer (${room})`));
  new Uint8Array(answer, 8).set(bytes);
  state[1] = bytes.length;
  Atomics.store(state, 0, code);
  Atomics.notify(state, 0);
}

const sources = readEngineSources();
compileEngine(sources).then(
  (bytes) => { storeInCache(sources, bytes); finish(1, bytes); },
  (e: unknown) => finish(2, new TextEncoder().encode(e instanceof Error ? e.message : String(e))),
);
