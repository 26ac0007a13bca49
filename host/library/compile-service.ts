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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

/**
 * How long a build may take unless the caller says (custom_op.load's build_timeout_ms): 300 s, plus 1 s per KB of
 * source beyond the first 100 KB, so that a source of 10,000 functions or kernels is not stopped for its size alone.
 * A build past its deadline is given up: its compiler thread is stopped and its temporary folder removed.
 */
export function defaultBuildTimeoutMs(sourceBytes: number): number {
  return 300_000 + Math.max(0, Math.ceil((sourceBytes - 100 * 1024) / 1024)) * 1000;
}

let worker: Worker | null = null;
const ANSWER_BYTES = 1 << 20;

/** One build as the calling thread saw it: when it started and ended (performance.now()), and the compiler thread's answer. */
export interface BuildRecord { name: string; startMs: number; endMs: number; answer: CompileAnswer; optimizeLevel?: number }

let lastBuild: BuildRecord | null = null;

let optimizeLevel: number | undefined;

/**
 * Builds libraries at Binaryen optimize level `level` instead of -O3 from now on in this process (undefined: -O3
 * again): an AssemblyScript library's whole optimisation, a C++ library's optimisation of its kernel merged with the
 * runtime (clang's own -O3 is unchanged). `gpsimd watch` rebuilds at -O1: the optimiser is most of a rebuild at -O3,
 * and the checks are the same at every level (inserted before it runs). The level goes into the library's hash, so a library built
 * so is rebuilt at -O3 by anything that builds without it.
 */
export function setBuildOptimizeLevel(level: number | undefined): void {
  optimizeLevel = level;
}

let keepToolsWarm = false;

/**
 * Whether the compiler thread loads the next C++ build's Binaryen tool processes after each build (build/cpp/
 * binaryen-tools.ts), so that they are loaded when the next build needs them: `gpsimd watch`, whose next build comes
 * with the next save. A process that builds once would load them for nothing. Set before the first build (the
 * compiler thread reads it when it starts; a thread already running is replaced).
 */
export function setKeepBuildToolsWarm(on: boolean): void {
  if (on === keepToolsWarm) return;
  keepToolsWarm = on;
  if (worker) { void worker.terminate(); worker = null; }
}

/** The optimize level builds of this process use instead of -O3 (undefined: -O3). */
export function buildOptimizeLevel(): number | undefined {
  return optimizeLevel;
}

/** The request with this process's optimize level. */
function withOptimizeLevel(request: BuildRequest): BuildRequest {
  if (optimizeLevel === undefined) return request;
  return { ...request, optimizeLevel, hashSettings: { settings: request.hashSettings, optimizeLevel } };
}

/** The last build buildSync ran since the previous call (null if none), emptied: `gpsimd watch --verbose` shows its stages. */
export function takeLastBuild(): BuildRecord | null {
  const record = lastBuild;
  lastBuild = null;
  return record;
}

/**
 * Builds lib<name>.wasm at outFile and waits for it, at most timeoutMs; `waiting` is called about once a second
 * meanwhile (progress displays).
 */
export function buildSync(request: BuildRequest, outFile: string, waiting?: (elapsedMs: number) => void, timeoutMs = defaultBuildTimeoutMs(0)): CompileAnswer {
  // Here, before the compiler runs: a folder that cannot be made fails at once (see make-directory.ts).
  const dir = path.dirname(outFile);
  try {
    makeDirectory(dir);
  } catch (e) {
    throw new BuildError("E_BUILD_DIRECTORY", `custom_op.load(${request.name}): cannot create build_directory ${dir}: ${e instanceof Error ? e.message : String(e)}`, { details: { directory: dir }, cause: e });
  }
  if (!worker) {
    worker = new Worker(new URL("../../build/compile-worker.js", import.meta.url), threadOptions({ workerData: { keepBinaryenToolsWarm: keepToolsWarm } }));
    worker.unref();
    worker.on("exit", () => { worker = null; });
  }
  const answer = new SharedArrayBuffer(ANSWER_BYTES);
  const header = new Int32Array(answer, 0, 2);
  const tempRoot = mkdtempSync(path.join(tmpdir(), "gpsimd-build-"));
  const job: CompileJob = { request: withOptimizeLevel(request), outFile, answer, tempRoot };
  try {
    const start = performance.now();
    worker.postMessage(job);
    // The worker thread runs on its own event loop: blocking here cannot stall it.
    const deadline = start + timeoutMs;
    while (Atomics.load(header, 0) === 0) {
      const left = deadline - performance.now();
      if (left <= 0) {
        void worker.terminate();
        worker = null;
        throw new BuildError("E_BUILD_TIMEOUT", `building ${request.name} did not finish within ${describeMs(timeoutMs)}; the compiler thread was stopped (allow more with custom_op.load's build_timeout_ms)`, { details: { timeout_ms: timeoutMs } });
      }
      if (Atomics.wait(header, 0, 0, Math.min(1000, left)) === "timed-out") waiting?.(performance.now() - start);
    }
    const result = JSON.parse(new TextDecoder().decode(new Uint8Array(answer, 8, header[1]).slice())) as CompileAnswer; // always fits (compile-worker.ts cuts it)
    if (result.compilerReset) { void worker.terminate(); worker = null; }
    lastBuild = { name: request.name, startMs: start, endMs: performance.now(), answer: result, optimizeLevel: job.request.optimizeLevel };
    return result;
  } finally {
    // Whatever the build left there (all of it, if its thread was stopped midway: build/build-temp.ts).
    rmSync(tempRoot, { recursive: true, force: true });
  }
}

function describeMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
