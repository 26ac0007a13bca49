// The C++ compiler: LLVM clang and lld built as WebAssembly (@yowasp/clang),
// run in a child process on Liftoff (clang-process.ts). It is an optional
// dependency: AssemblyScript-only users do not install it, and a C++ source
// without it is a clear build failure.
import { createRequire } from "node:module";
import { startClangProcess } from "./clang-process.js";

/** Runs clang++ or a linker step over a virtual file tree; returns the tree after the run. */
export type RunClang = (args: string[], files: FileTree, options?: { stdout?: (b: Uint8Array | null) => void; stderr?: (b: Uint8Array | null) => void; fetchProgress?: (e: { totalLength: number; doneLength: number }) => void }) => Promise<FileTree>;
/** A virtual folder: names to contents or sub-folders. */
export interface FileTree { [name: string]: FileTree | string | Uint8Array }

/** The compiler is not installed. */
export class MissingCompilerError extends Error {}

const PACKAGE = "@yowasp/clang";
let loaded: Promise<RunClang> | null = null;

/**
 * Starts @yowasp/clang's process once per thread (its first run reads ~105 MB of resources; the child reads them
 * quietly: left to the first compile, the package prints "yowasp-llvm: fetched N%" lines on stdout). Again after that
 * process ended.
 */
export function clang(): Promise<RunClang> {
  loaded ??= (async () => {
    const entry = process.env.GPSIMD_NO_CLANG === "1" ? null : resolved();
    if (!entry) {
      throw new MissingCompilerError(`C++ kernel sources need the C++ compiler package ${PACKAGE} (LLVM clang and lld as WebAssembly, about 100 MB): install it with \`npm install ${PACKAGE}\``);
    }
    return startClangProcess(entry, () => { loaded = null; });
  })();
  return loaded;
}

/** The compiler package's entry file, or null if it is not installed. */
function resolved(): string | null {
  try {
    return createRequire(import.meta.url).resolve(PACKAGE);
  } catch {
    return null;
  }
}
