// Synchronous builds: the compiler (asynchronous, and slow to start) lives on
// one worker thread for the whole process; the caller blocks on a shared
// buffer until its build is answered.
import { threadOptions } from "../cores/thread-options.js";
import { Worker } from "node:worker_threads";
import type { BuildRequest } from "../../build/compile.js";
import type { CompileJob, CompileAnswer } from "../../build/compile-worker.js";
import { BuildError } from "../checks/errors.js";
import { makeDirectory } from "../../build/make-directory.js";
import path from "node:path";

/** A build that has not answered after this long is given up (the compiler thread is presumed dead). */
const BUILD_TIMEOUT_MS = 300_000;

let worker: Worker | null = null;
const ANSWER_BYTES = 1 << 20;

/** Builds lib<name>.wasm at outFile and waits for it; `waiting` is called about once a second meanwhile (progress displays). */
export function buildSync(request: BuildRequest, outFile: string, waiting?: (elapsedMs: number) => void): CompileAnswer {
  // Here, before the compiler runs: a folder that cannot be made fails at once (see make-directory.ts).
  const dir = path.dirname(outFile);
  try {
    makeDirectory(dir);
  } catch (e) {
    throw new BuildError("E_BUILD_DIRECTORY", `custom_op.load(${request.name}): cannot create build_directory ${dir}: ${e instanceof Error ? e.message : String(e)}`, { details: { directory: dir }, cause: e });
  }
  if (!worker) {
    worker = new Worker(new URL("../../build/compile-worker.js", import.meta.url), threadOptions());
    worker.unref();
    worker.on("exit", () => { worker = null; });
  }
  const answer = new SharedArrayBuffer(ANSWER_BYTES);
  const header = new Int32Array(answer, 0, 2);
  const job: CompileJob = { request, outFile, answer };
  worker.postMessage(job);
  // The worker thread runs on its own event loop: blocking here cannot stall it.
  const start = performance.now();
  const deadline = start + BUILD_TIMEOUT_MS;
  while (Atomics.load(header, 0) === 0) {
    if (performance.now() > deadline) {
      void worker.terminate();
      worker = null;
      throw new BuildError("E_BUILD_TIMEOUT", `building ${request.name} did not finish within ${BUILD_TIMEOUT_MS / 1000} s; the compiler thread was stopped`);
    }
    if (Atomics.wait(header, 0, 0, 1000) === "timed-out") waiting?.(performance.now() - start);
  }
  return JSON.parse(new TextDecoder().decode(new Uint8Array(answer, 8, header[1]).slice())) as CompileAnswer; // always fits (compile-worker.ts cuts it)
}
