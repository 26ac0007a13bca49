// Runs clang in a child process of its own (clang-child.ts: node --liftoff-only, see there why), one per thread that
// builds C++, started at the first C++ build and kept for the next ones (gpsimd watch). The RunClang it gives behaves
// as @yowasp/clang's own: the output tree, or a rejection after stdout and stderr were handed over. The child keeps
// no process up: its handle and channel are unref'd whenever no answer is awaited, and it exits when the channel
// closes (the process or the build thread ended).
import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_ROOT } from "../paths.js";
import type { FileTree, RunClang } from "./toolchain.js";

/** Node's flags for the compiler's process: Liftoff alone (clang-child.ts). */
export const CLANG_NODE_FLAGS = ["--liftoff-only"];

/** The child's script: beside this file when running from dist/, else dist/'s (tests run the sources). */
function childScript(): string {
  const beside = fileURLToPath(new URL("./clang-child.js", import.meta.url));
  return existsSync(beside) ? beside : path.join(PACKAGE_ROOT, "dist", "build", "cpp", "clang-child.js");
}

type Answer = { id: number; ok: boolean; files?: FileTree; message?: string; stdout: Uint8Array; stderr: Uint8Array };
type Pending = { resolve: (files: FileTree) => void; reject: (e: Error) => void; options?: Parameters<RunClang>[2] };

/**
 * Starts the compiler's process for the package entry `entry` (resolved by the caller); resolves when clang is loaded.
 * `exited` is called if the process ends (a later build starts another).
 */
export function startClangProcess(entry: string, exited: () => void): Promise<RunClang> {
  const child: ChildProcess = fork(childScript(), [entry], { execArgv: CLANG_NODE_FLAGS, serialization: "advanced", stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let ready = false;
  // Keeps this process up exactly while something waits for the child.
  const holdIfWaiting = () => {
    const channel = child.channel as unknown as { ref(): void; unref(): void } | undefined;
    if (!ready || pending.size) { child.ref(); channel?.ref(); } else { child.unref(); channel?.unref(); }
  };
  holdIfWaiting();
  const run: RunClang = (args, files, options) => new Promise<FileTree>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject, options });
    holdIfWaiting();
    child.send({ id, args, files });
  });
  return new Promise<RunClang>((resolve, reject) => {
    child.on("message", (m: Answer | { ready: true } | { loadError: string }) => {
      if ("ready" in m) { ready = true; holdIfWaiting(); resolve(run); return; }
      if ("loadError" in m) { reject(new Error(`the C++ compiler (@yowasp/clang) did not load: ${m.loadError}`)); return; }
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      holdIfWaiting();
      hand(m.stdout, p.options?.stdout);
      hand(m.stderr, p.options?.stderr);
      if (m.ok) p.resolve(m.files!);
      else p.reject(new Error(m.message ?? "clang failed"));
    });
    child.on("exit", (code, signal) => {
      exited();
      const e = new Error(`the C++ compiler's process ended (${signal ?? `exit code ${code}`})`);
      if (!ready) reject(e);
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    });
  });
}

/** Hands clang's output to the caller's callback as @yowasp/clang does (bytes, then null); no callback: to stdout. */
function hand(bytes: Uint8Array, to: ((b: Uint8Array | null) => void) | undefined): void {
  if (!bytes.length) return;
  if (to) { to(bytes); to(null); } else process.stdout.write(bytes);
}
