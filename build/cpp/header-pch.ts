// gpsimd's headers, precompiled: <torch/torch.h> (with the libc and libc++
// headers it brings) is most of what clang parses for a kernel, an exports
// unit or a shape source, and it depends only on gpsimd and the flags. clang
// parses it once into a precompiled header (-emit-pch), kept in memory and in
// the cache folder (<cache>/cpp-pch/<key>.pch), and each later compile starts
// from it (-include-pch) instead of parsing the headers again. Those of the
// default flags are also made by `npm run build` into the package's own folder
// (dist/prebuilt/cpp-pch/, prebuild.ts), so a first build with an empty cache
// folder starts from them too; the key decides alike wherever a header is found.
//
// A unit uses it only when the headers would come out the same as written: its
// text starts (after comments and blank lines) with #include lines of system
// headers only (<...>), one of them <torch/torch.h>, and nothing before it that
// could change what the headers mean (no #define, no #if, no header of the
// author's own). clang itself refuses a precompiled header made with other
// flags or header texts; such a refusal, or any failure to make one, falls back
// to compiling without it.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { cacheDir, PREBUILT_DIR } from "../paths.js";
import { makeDirectory } from "../make-directory.js";
import { clang, type FileTree } from "./toolchain.js";

/** The header every precompiled header holds. */
export const PCH_HEADER = "torch/torch.h";
/** Where a unit finds the precompiled header in clang's virtual file tree. */
export const PCH_FILE = "gpsimd-headers.pch";

/** The header clang precompiles; a compile from the precompiled header needs it in its file tree too (clang checks it). */
const PCH_SOURCE = "gpsimd-pch-source.h";
const PCH_SOURCE_TEXT = `#include <${PCH_HEADER}>\n`;

/** The file tree of a compile that starts from `pch` (with -include-pch PCH_FILE). */
export function withPch(tree: FileTree, pch: Uint8Array): FileTree {
  return { ...tree, [PCH_FILE]: pch, [PCH_SOURCE]: PCH_SOURCE_TEXT };
}

/** Lines allowed before and among a unit's leading includes: blank, comments, and #include <system header>. */
const LEADING = /^\s*(?:$|\/\/.*$|\/\*.*\*\/\s*$|#\s*include\s*<[^>]+>\s*(?:\/\/.*)?$)/;

/** Whether `text` may start from the precompiled <torch/torch.h> (see the file's comment). */
export function unitTakesPch(text: string): boolean {
  for (const line of text.split("\n")) {
    if (/^\s*#\s*include\s*<torch\/torch\.h>/.test(line)) return true;
    if (!LEADING.test(line)) return false;
  }
  return false;
}

/** Made (bytes), or being made (the promise): by key. */
const inMemory = new Map<string, Uint8Array | Promise<Uint8Array | null>>();

/**
 * The precompiled <torch/torch.h> for these clang flags (without input or output files), if it is ready: from memory
 * or the cache folder. Otherwise null, and it is made in the background (headersPrepared): a build never waits for
 * it. Making it costs about one parse of the headers, as much as the compile it would save in a process that builds
 * once and exits; a compile that has to parse them itself starts it, so that the next build (in `gpsimd watch`, the
 * next save; in a new process, from the cache folder) starts from it.
 */
export function readyPrecompiledHeader(flags: string[], headerTexts: Iterable<[string, string]>): Uint8Array | null {
  const key = pchKey(flags, headerTexts);
  const known = inMemory.get(key);
  if (known instanceof Uint8Array) return known;
  if (known) return null; // being made
  // The cache folder's, else the package's own (unless clang refused that one in this process).
  for (const file of refused.has(key) ? [pchFile(key)] : [pchFile(key), prebuiltPchFile(key)]) {
    try {
      const stored = new Uint8Array(readFileSync(file));
      inMemory.set(key, stored);
      return stored;
    } catch { /* not there */ }
  }
  return null;
}

/** Keys whose header clang refused in this process: the package's file is not offered again (it cannot be removed). */
const refused = new Set<string>();

/** Headers a compile lacked, to be made once the build is handed back (startWantedHeaders): by key. */
const wanted = new Map<string, () => Promise<Uint8Array | null>>();

/**
 * Asks for the precompiled header for these flags (the headers placed in `tree` as the compile sees them) to be made
 * after this build, unless it is ready or being made: see startWantedHeaders.
 */
export function prepareHeadersInBackground(flags: string[], tree: FileTree, headerTexts: Iterable<[string, string]>): void {
  const key = pchKey(flags, headerTexts);
  if (inMemory.has(key) || wanted.has(key)) return;
  wanted.set(key, async () => {
    const made = await makePch(flags, tree);
    if (made) {
      storePch(pchFile(key), made);
      inMemory.set(key, made);
    } else {
      inMemory.delete(key); // clang could not: try again next time
    }
    return made;
  });
}

/**
 * Makes the headers asked for during a build, starting `delayMs` after the build ends: clang runs on the compiler
 * thread, so made during the build they would hold up its own steps (the answers of its tool processes wait for
 * the thread); after it, they use the time until the next build (in `gpsimd watch`, until the next save). A process
 * that exits first loses only the work.
 */
export function startWantedHeaders(delayMs = 100): void {
  for (const [key, make] of wanted) {
    inMemory.set(key, new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref()).then(make));
  }
  wanted.clear();
}

/** Forgets an in-memory header clang refused (its texts or flags no longer match): the next build makes it again. */
export function forgetPrecompiledHeader(flags: string[], headerTexts: Iterable<[string, string]>): void {
  const key = pchKey(flags, headerTexts);
  inMemory.delete(key);
  refused.add(key);
  rmSync(pchFile(key), { force: true });
}

/**
 * Makes the precompiled header for these flags (the headers placed in `tree`) into the package's own folder, unless it
 * is there: `npm run build` (prebuild.ts). Returns its file, and whether it was made now; null if clang could not.
 */
export async function prebuildPrecompiledHeader(flags: string[], tree: FileTree, headerTexts: Iterable<[string, string]>): Promise<{ file: string; made: boolean } | null> {
  const file = prebuiltPchFile(pchKey(flags, headerTexts));
  if (existsSync(file)) return { file, made: false };
  const made = await makePch(flags, tree);
  return made && storePch(file, made) ? { file, made: true } : null;
}

function pchKey(flags: string[], headerTexts: Iterable<[string, string]>): string {
  const h = createHash("sha256").update(compilerVersion()).update(JSON.stringify(flags));
  for (const [file, text] of [...headerTexts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) h.update(`\0${file}\0`).update(text);
  return h.digest("hex").slice(0, 32);
}

function pchFile(key: string): string {
  return path.join(cacheDir(), "cpp-pch", `${key}.pch`);
}

function prebuiltPchFile(key: string): string {
  return path.join(PREBUILT_DIR, "cpp-pch", `${key}.pch`);
}

async function makePch(flags: string[], tree: FileTree): Promise<Uint8Array | null> {
  const run = await clang();
  try {
    const out = await run(["clang++", ...flags, "-x", "c++-header", PCH_SOURCE, "-o", PCH_FILE], { ...tree, [PCH_SOURCE]: PCH_SOURCE_TEXT }, { stderr: () => {} });
    const pch = out[PCH_FILE];
    return pch instanceof Uint8Array ? pch : null;
  } catch {
    return null; // builds go on without it; a real problem in the headers shows in the compile itself
  }
}

/** Stores the header atomically (whether it could); a folder that cannot be written only costs making it again. */
function storePch(file: string, pch: Uint8Array): boolean {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    makeDirectory(path.dirname(file));
    writeFileSync(temp, pch);
    renameSync(temp, file);
    return true;
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
}

let version: string | null = null;
/** The compiler package's version: a header made by another clang is never offered. */
function compilerVersion(): string {
  if (version !== null) return version;
  try {
    const main = createRequire(import.meta.url).resolve("@yowasp/clang");
    for (let dir = path.dirname(main); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
        if (pkg.name === "@yowasp/clang") return (version = pkg.version ?? "unknown");
      } catch { /* keep looking upwards */ }
    }
  } catch { /* not installed: no compile will ask */ }
  return (version = "unknown");
}

/** Resolves when no precompiled header is being made (tests, and a caller that wants the next build to find them). */
export async function precompiledHeadersSettled(): Promise<void> {
  await Promise.all([...inMemory.values()].filter((v): v is Promise<Uint8Array | null> => v instanceof Promise));
}
