// Where this package's kernel library is, found from this file (which runs
// from build/ or dist/build/). Kept apart from asc.ts so the runtime can know
// it without loading the compiler.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

/** The kernel library's folder (assembly/) of this package: found upwards from this file, which runs from build/ or dist/build/. */
export const ASSEMBLY_DIR = findAssemblyDir(path.dirname(fileURLToPath(import.meta.url)));

function findAssemblyDir(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "assembly", "index.ts"))) return path.join(dir, "assembly");
    if (path.dirname(dir) === dir) throw new Error(`gpsimd: cannot find the kernel library (assembly/index.ts) above ${from}`);
  }
}
