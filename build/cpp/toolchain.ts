// The C++ compiler: LLVM clang and lld built as WebAssembly (@yowasp/clang),
// run in-process. It is an optional dependency: AssemblyScript-only users do
// not install it, and a C++ source without it is a clear build failure.
import { createRequire } from "node:module";

/** Runs clang++ or a linker step over a virtual file tree; returns the tree after the run. */
export type RunClang = (args: string[], files: FileTree, options?: { stdout?: (b: Uint8Array | null) => void; stderr?: (b: Uint8Array | null) => void; fetchProgress?: (e: { totalLength: number; doneLength: number }) => void }) => Promise<FileTree>;
/** A virtual folder: names to contents or sub-folders. */
export interface FileTree { [name: string]: FileTree | string | Uint8Array }

/** The compiler is not installed. */
export class MissingCompilerError extends Error {}

const PACKAGE = "@yowasp/clang";
let loaded: Promise<RunClang> | null = null;

/** Loads @yowasp/clang once per process (its first run reads ~105 MB of resources). */
export function clang(): Promise<RunClang> {
  loaded ??= (async () => {
    if (process.env.GPSIMD_NO_CLANG === "1" || !resolvable()) {
      throw new MissingCompilerError(`C++ kernel sources need the C++ compiler package ${PACKAGE} (LLVM clang and lld as WebAssembly, about 100 MB): install it with \`npm install ${PACKAGE}\``);
    }
    const mod = (await import(PACKAGE)) as { runClang: (args: string[] | null, files: FileTree, options?: Parameters<RunClang>[2]) => Promise<FileTree> };
    // Read the package's resources now, quietly: left to the first compile, it prints "yowasp-llvm: fetched N%" lines
    // on stdout while it reads them from disk (its clang driver drops a fetchProgress option), in every process and
    // even into a pipe; builds report their own progress (verbose).
    await mod.runClang(null, {}, { fetchProgress: () => {} });
    return mod.runClang as RunClang;
  })();
  return loaded;
}

function resolvable(): boolean {
  try {
    createRequire(import.meta.url).resolve(PACKAGE);
    return true;
  } catch {
    return false;
  }
}
