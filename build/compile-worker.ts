// Runs builds for custom_op.load on a worker thread, so the main thread can
// wait for them synchronously (custom_op.load is synchronous, like Python's).
// Requests come by message; each answer is written to the request's shared
// buffer, and the waiting thread is woken with Atomics.notify.
import { parentPort } from "node:worker_threads";
import { mkdir, writeFile, rename } from "node:fs/promises";
import path from "node:path";
import { buildLibrary, type BuildRequest } from "./compile.js";
import { encodeLibrary } from "../host/library/library-file.js";

/** A build request and where to answer. */
export interface CompileJob {
  request: BuildRequest;
  /** Where to write lib<name>.wasm. */
  outFile: string;
  /** Int32 [state, length] + UTF-8 JSON answer: state 0 pending, 1 done. */
  answer: SharedArrayBuffer;
}

/** The JSON answer. */
export interface CompileAnswer { ok: boolean; messages: string[]; millis: number; }

function reply(job: CompileJob, answer: CompileAnswer): void {
  const header = new Int32Array(job.answer, 0, 2);
  const bytes = new TextEncoder().encode(JSON.stringify(answer));
  const room = new Uint8Array(job.answer, 8);
  const n = Math.min(bytes.length, room.length);
  room.set(bytes.subarray(0, n));
  header[1] = n;
  Atomics.store(header, 0, 1);
  Atomics.notify(header, 0);
}

parentPort!.on("message", async (job: CompileJob) => {
  const start = performance.now();
  try {
    const result = await buildLibrary(job.request);
    if ("messages" in result) return reply(job, { ok: false, messages: result.messages, millis: performance.now() - start });
    await mkdir(path.dirname(job.outFile), { recursive: true });
    const tmp = `${job.outFile}.${process.pid}.tmp`;
    await writeFile(tmp, encodeLibrary(result));
    await rename(tmp, job.outFile); // another process loading the library never sees half a file
    reply(job, { ok: true, messages: [], millis: performance.now() - start });
  } catch (e) {
    reply(job, { ok: false, messages: [e instanceof Error ? e.stack ?? e.message : String(e)], millis: performance.now() - start });
  }
});
