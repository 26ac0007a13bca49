// The headers of a C++ author that the compiler must see: those next to the
// kernel's and shape function's sources (#include "tcm_utils.h", also in
// sub-folders: #include "util/math.h") and those under each folder given in
// extra_include_paths (passed to the build as -I<folder>). clang runs on a
// virtual file tree, so each is read here, placed in the tree, and goes into
// the library's hash (a changed header rebuilds the library).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** File names that are headers. */
export const HEADER_FILE = /\.(h|hh|hpp|hxx|h\+\+|inc|inl|ipp|tpp|cuh)$/i;
/** How deep below a folder headers are looked for, and how many at most: a source in a home folder must not read it all. */
const MAX_DEPTH = 4;
const MAX_HEADERS = 2000;
/** Folders that never hold an author's headers. */
const SKIPPED = /^(?:\.|node_modules$|__pycache__$)/;

/** The headers under `dir`, as (path relative to dir, text) pairs. */
export function headersUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (folder: string, depth: number) => {
    let entries;
    try { entries = readdirSync(folder, { withFileTypes: true }); } catch { return; } // unreadable: clang names what it misses
    for (const entry of entries) {
      if (out.size >= MAX_HEADERS) return;
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_DEPTH && !SKIPPED.test(entry.name)) walk(file, depth + 1);
      } else if (entry.isFile() && HEADER_FILE.test(entry.name)) {
        try { out.set(path.relative(dir, file), readFileSync(file, "utf8")); } catch { /* unreadable: clang names it if included */ }
      }
    }
  };
  walk(dir, 0);
  return out;
}

/** The folders of -I flags (absolute), and the flags without them. */
export function splitIncludeFlags(flags: readonly string[]): { includeDirs: string[]; rest: string[] } {
  const includeDirs: string[] = [];
  const rest: string[] = [];
  for (const f of flags) {
    if (f.startsWith("-I") && f.length > 2) includeDirs.push(path.resolve(f.slice(2)));
    else rest.push(f);
  }
  return { includeDirs, rest };
}

/** extra_include_paths as -I flags (absolute folders), appended to extra_cflags by custom_op.load. */
export function includePathFlags(paths: readonly string[] | undefined): string[] {
  return (paths ?? []).map((p) => `-I${path.resolve(p)}`);
}
