// Builds A and B of an AssemblyScript library (the same compile at two static-data bases, build/relocate.ts) on two
// threads at once: B on a second thread that stays up between builds, A on the compiler thread. Each compile is
// asc's whole pipeline (parse, compile, gpsimd's passes, optimise, emit), so two threads halve a rebuild's
// compile time when two CPUs are free, and on a machine shared with other work the build gets two threads' share of
// the CPUs instead of one.
//
// B must compile exactly the texts A compiled. B reads the files itself; the caller compares what both read
// (sameTexts) and compiles B again on its own thread, from A's texts, when a file changed between the two reads, or
// when the second thread is gone or failed. The result is then the sequential build's, byte for byte.
import { Worker } from "node:worker_threads";
import { threadOptions } from "../host/cores/thread-options.js";
import type { KernelCompileSettings } from "./kernel-compile.js";

/** A compile of build B, posted to the second thread. */
export interface SecondBuildJob { id: number; settings: KernelCompileSettings; memoryBase: number }

/** What the second thread compiled: the module, asc's error messages, and every text it read (by absolute path). */
export interface SecondBuildAnswer {
  id: number;
  binary: Uint8Array | null;
  text: string;
  errors: string[];
  texts: [string, string][];
  /** The compile threw (a crash of asc or Binaryen): its stack. */
  failure?: string;
}

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, (answer: SecondBuildAnswer | null) => void>();

/** Set GPSIMD_SECOND_BUILD_THREAD=0 to compile builds A and B one after the other on the compiler thread. */
function enabled(): boolean {
  return process.env.GPSIMD_SECOND_BUILD_THREAD !== "0";
}

function secondThread(): Worker | null {
  if (!enabled()) return null;
  if (worker) return worker;
  try {
    worker = new Worker(new URL("./second-build-worker.js", import.meta.url), threadOptions());
  } catch {
    return null;
  }
  const gone = () => {
    worker = null;
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
  };
  worker.on("message", (answer: SecondBuildAnswer) => {
    const resolve = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (waiting.size === 0) worker?.unref();
    // After an abort of Binaryen its state on that thread is undefined: the next build gets a new thread.
    if (answer.failure && /^(RuntimeError: )?Aborted\(/.test(answer.failure)) void stopSecondThread();
    resolve?.(answer);
  });
  worker.on("error", gone);
  worker.on("exit", gone);
  // Idle, the thread keeps no process up; while a build waits for it, it does (startSecondBuild), or a process whose
  // only work is that build would end with the build unfinished. After the listeners: adding one refs it again.
  worker.unref();
  return worker;
}

/**
 * Starts compiling build B on the second thread; resolves with its answer, or null when there is no second thread
 * (disabled, could not start, or it died): the caller then compiles B itself.
 */
export function startSecondBuild(settings: KernelCompileSettings, memoryBase: number): Promise<SecondBuildAnswer | null> {
  const thread = secondThread();
  if (!thread) return Promise.resolve(null);
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    thread.ref();
    thread.postMessage({ id, settings, memoryBase } satisfies SecondBuildJob);
  });
}

/** Stops the second thread (the next build starts a new one). */
export async function stopSecondThread(): Promise<void> {
  const thread = worker;
  worker = null;
  await thread?.terminate();
}

/** Whether B read exactly the texts A compiled: every file B read, A read with the same text, and the other way. */
export function sameTexts(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [file, text] of b) if (a.get(file) !== text) return false;
  return true;
}
