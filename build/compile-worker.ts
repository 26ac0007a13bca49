// Runs builds for custom_op.load on a worker thread, so the main thread can
// wait for them synchronously (custom_op.load is synchronous, like Python's).
// Requests come by message; each answer is written to the request's shared
// buffer, and the waiting thread is woken with Atomics.notify.
import { parentPort } from "node:worker_threads";
import { writeFile, rename } from "node:fs/promises";
import path from "node:path";
import type { BuildRequest } from "./compile.js";
import { encodeLibrary } from "../host/library/library-file.js";
import { isCppSource } from "./cpp/kernel-decls.js";
import { clang } from "./cpp/toolchain.js";
import { makeDirectory } from "./make-directory.js";
import { takeBuildWarnings } from "./build-warnings.js";
import { setBuildTempRoot } from "./build-temp.js";
import { takeBuildStages, timeStageAsync, type BuildStage } from "./build-stages.js";

/** A build request and where to answer. */
export interface CompileJob {
  request: BuildRequest;
  /** Where to write lib<name>.wasm. */
  outFile: string;
  /** Int32 [state, length] + UTF-8 JSON answer: state 0 pending, 1 done. */
  answer: SharedArrayBuffer;
  /** The folder the build's temporary folders go in (build-temp.ts); the caller removes it. */
  tempRoot?: string;
}

/**
 * The JSON answer; `warnings` (build-warnings.ts) come with success and failure alike. `compilerReset`: the build
 * ended in an abort of an Emscripten-built tool (Binaryen's "Aborted(...)"), after which that tool's state on this
 * thread is undefined: the caller starts a new compiler thread for the next build. `stages`: where the build's time
 * went on this thread (build/build-stages.ts), `millis` being their total and the bookkeeping between them.
 */
export interface CompileAnswer { ok: boolean; messages: string[]; millis: number; warnings?: string[]; compilerReset?: boolean; stages?: BuildStage[] }

/** Longest compiler message answered; longer ones are cut with a note. */
const MAX_MESSAGE = 64 * 1024;

/** The answer as UTF-8 JSON that fits in `room` bytes: long messages cut, and if still too long, the last messages dropped, each time with a note. */
function encodeAnswer(answer: CompileAnswer, room: number): Uint8Array {
  const encoder = new TextEncoder();
  const cut = (m: string) => (m.length > MAX_MESSAGE ? `${m.slice(0, MAX_MESSAGE)}... [${m.length - MAX_MESSAGE} more characters cut]` : m);
  let messages = answer.messages.map(cut);
  for (;;) {
    const bytes = encoder.encode(JSON.stringify({ ...answer, messages }));
    if (bytes.length <= room) return bytes;
    const keep = Math.floor(messages.length / 2);
    messages = [...messages.slice(0, keep), `... ${answer.messages.length - keep} more compiler messages cut (${bytes.length} bytes did not fit the answer)`];
  }
}

function reply(job: CompileJob, result: CompileAnswer): void {
  const answer = { ...result, warnings: takeBuildWarnings(), stages: takeBuildStages() };
  const header = new Int32Array(job.answer, 0, 2);
  const room = new Uint8Array(job.answer, 8);
  const bytes = encodeAnswer(answer, room.length);
  room.set(bytes);
  header[1] = bytes.length;
  Atomics.store(header, 0, 1);
  Atomics.notify(header, 0);
}

/**
 * The build step (asc, TypeScript, Binaryen: about 0.5 s to load), loaded after the message handler is in place, so
 * that a first C++ build starts clang's process (toolchain.ts) while it loads.
 */
const compiler = import("./compile.js");

parentPort!.on("message", async (job: CompileJob) => {
  const { computeSrcs, shapeSrcs } = job.request;
  if ([...computeSrcs, ...shapeSrcs].some(isCppSource)) clang().catch(() => {}); // a missing compiler is the build's error
  const { buildLibrary } = await compiler;
  const start = performance.now();
  setBuildTempRoot(job.tempRoot ?? null);
  takeBuildStages(); // nothing of an earlier build that ended in a throw
  try {
    const result = await buildLibrary(job.request);
    if ("messages" in result) return reply(job, { ok: false, messages: result.messages, millis: performance.now() - start });
    makeDirectory(path.dirname(job.outFile)); // normally made by the caller already; never Node's recursive mkdir (make-directory.ts)
    await timeStageAsync("write library file", async () => {
      const tmp = `${job.outFile}.${process.pid}.tmp`;
      await writeFile(tmp, encodeLibrary(result));
      await rename(tmp, job.outFile); // another process loading the library never sees half a file
    });
    reply(job, { ok: true, messages: [], millis: performance.now() - start });
  } catch (e) {
    const message = e instanceof Error ? e.stack ?? e.message : String(e);
    reply(job, { ok: false, messages: [message], millis: performance.now() - start, compilerReset: /^(RuntimeError: )?Aborted\(/.test(message) });
  }
});
