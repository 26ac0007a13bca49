// Creates a folder and its missing parents, one level at a time. Node's own
// recursive mkdir never returns for a path under /proc (mkdir answers ENOENT
// there although the parent exists, and it retries forever); an asynchronous
// one also keeps a libuv thread busy for good, so the process never exits.
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";

/** Makes `dir` (absolute) and its parents; throws the first file-system error (ENOENT, EACCES, ENOTDIR...). */
export function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      if (statSync(d).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${d}'`), { code: "ENOTDIR" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing) mkdirSync(d);
}
