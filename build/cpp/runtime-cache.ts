// The disk cache of compiled device runtimes (one entry per version of
// assembly/ and the build step, per sanitize mode), in the per-user cache
// folder with the built libraries. An entry is never trusted as found: it is
// used only if it is what it claims to be (its format and key, the sanitize
// mode, two WebAssembly modules that validate, the SHA-256 they were written
// with, and the sanitizer's imports exactly when it claims sanitize mode);
// otherwise it is compiled again and replaced, with a warning naming the file.
// A cache folder that cannot be written costs a compile per process, with a
// warning, never the build. The runtime's hash is recorded in every C++ library
// merged with it (manifest.runtime), so a library merged with another runtime
// than the cache now holds is rebuilt (host/library/loader.ts).
// Apart from build-cpp.ts (which compiles), so the loader can check a library's
// runtime without loading the compiler.
import { readFileSync, writeFileSync, renameSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { ASSEMBLY_DIR, BUILD_CODE_DIR, cacheDir } from "../paths.js";
import { treeHash } from "../hash.js";
import { makeDirectory } from "../make-directory.js";
import { readSections, readFunctionImports, SectionId } from "../wasm-reader.js";
import { BUILD_BASE_A, BUILD_BASE_B } from "../../host/library/build-constants.js";
import { SANITIZE_MODULE } from "../../host/checks/sanitizer-fast-path.js";
import { warnBuild } from "../build-warnings.js";

/** The device runtime at both static-data bases, and the bytes of static data it uses. */
export interface Runtime { a: Uint8Array; b: Uint8Array; dataBytes: number }

/** The runtime's entry re-exports the ABI from the package "gpsimd", so it shares the module instances of gpsimd's own files. */
export const RUNTIME_ENTRY_SOURCE = `export * from "gpsimd/cpp-abi";\n`;

/** Version of the entry's JSON layout. */
const ENTRY_FORMAT = 2;

/** What an entry holds (a and b in base64). */
interface Entry { format: number; key: string; sanitize: boolean; dataBytes: number; sha256: string; a: string; b: string }

/** Where compiled device runtimes are kept: <cache folder>/device-runtime ($GPSIMD_CACHE_DIR etc., build/paths.ts). */
export function runtimeCacheDir(): string {
  return path.join(cacheDir(), "device-runtime");
}

let sourcesHash: string | null = null;

/**
 * The entry's key: the sanitize mode, the bases, the entry source, and every file of assembly/ and of the build step's
 * own code (the passes the runtime goes through), so a new gpsimd never reuses an old one.
 */
function runtimeKey(sanitize: boolean): string {
  sourcesHash ??= treeHash([ASSEMBLY_DIR, BUILD_CODE_DIR], [".ts", ".js"]);
  return createHash("sha256").update(JSON.stringify({ sanitize, bases: [BUILD_BASE_A, BUILD_BASE_B], entry: RUNTIME_ENTRY_SOURCE, sources: sourcesHash })).digest("hex").slice(0, 32);
}

/** The entry's file for this sanitize mode. */
export function runtimeCacheFile(sanitize: boolean): string {
  return path.join(runtimeCacheDir(), `${runtimeKey(sanitize)}.json`);
}

/** The runtime's identity: SHA-256 of both modules and the data size. A library records it (manifest.runtime). */
export function runtimeHash(r: Runtime): string {
  return createHash("sha256").update(r.a).update("\0").update(r.b).update(`\0${r.dataBytes}`).digest("hex");
}

const WASM_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** Why `wasm` is not a device runtime of this sanitize mode, or null. */
function runtimeModuleProblem(wasm: Uint8Array, sanitize: boolean, which: string): string | null {
  if (wasm.length < 8 || WASM_HEADER.some((b, i) => wasm[i] !== b)) return `module ${which} is not WebAssembly (it does not start with the wasm header)`;
  if (!WebAssembly.validate(wasm as Uint8Array<ArrayBuffer>)) return `module ${which} is not valid WebAssembly`;
  const imports = readSections(wasm).find((s) => s.id === SectionId.import);
  const checked = imports ? readFunctionImports(wasm, imports).some((i) => i.module === SANITIZE_MODULE) : false;
  if (checked !== sanitize) return `module ${which} is the ${checked ? "sanitize-mode" : "normal"} runtime, but the entry is for ${sanitize ? "sanitize mode" : "normal builds"}`;
  return null;
}

/** The entry in `text`, checked for this key and sanitize mode: the runtime, or why it cannot be used. */
function decodeEntry(text: string, key: string, sanitize: boolean): Runtime | { problem: string } {
  let entry: Entry;
  try {
    entry = JSON.parse(text) as Entry;
  } catch {
    return { problem: "it is not JSON" };
  }
  if (typeof entry !== "object" || entry === null || entry.format !== ENTRY_FORMAT) return { problem: `it is not a format-${ENTRY_FORMAT} entry` };
  if (entry.key !== key) return { problem: "it holds another version's runtime (its key differs from its name)" };
  if (entry.sanitize !== sanitize) return { problem: `it claims ${entry.sanitize ? "sanitize mode" : "normal builds"}, not ${sanitize ? "sanitize mode" : "normal builds"}` };
  if (typeof entry.a !== "string" || typeof entry.b !== "string" || !Number.isInteger(entry.dataBytes) || entry.dataBytes <= 0) return { problem: "a field is missing or of the wrong type" };
  const runtime: Runtime = { a: new Uint8Array(Buffer.from(entry.a, "base64")), b: new Uint8Array(Buffer.from(entry.b, "base64")), dataBytes: entry.dataBytes };
  const problem = runtimeModuleProblem(runtime.a, sanitize, "a") ?? runtimeModuleProblem(runtime.b, sanitize, "b");
  if (problem) return { problem };
  if (runtimeHash(runtime) !== entry.sha256) return { problem: "its contents do not match the SHA-256 it was written with" };
  return runtime;
}

/**
 * The runtime entry in `file` for this mode, checked as a cache entry is (format, key, mode, modules, SHA-256); absent:
 * null; present but unusable: why. Also how the package's own prebuilt runtime is read (package-prebuilt.ts).
 */
export function readEntry(file: string, sanitize: boolean): Runtime | { problem: string } | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? null : { problem: `it cannot be read (${(e as Error).message})` };
  }
  return decodeEntry(text, runtimeKey(sanitize), sanitize);
}

/** Stores the runtime as this mode's entry in `file` (atomically); returns why it could not, or null. */
export function storeEntry(file: string, sanitize: boolean, runtime: Runtime): string | null {
  const entry: Entry = {
    format: ENTRY_FORMAT, key: runtimeKey(sanitize), sanitize, dataBytes: runtime.dataBytes, sha256: runtimeHash(runtime),
    a: Buffer.from(runtime.a).toString("base64"), b: Buffer.from(runtime.b).toString("base64"),
  };
  const temp = `${file}.${process.pid}.tmp`;
  try {
    makeDirectory(path.dirname(file));
    writeFileSync(temp, JSON.stringify(entry));
    renameSync(temp, file); // atomic: a concurrent build reads the whole file or none
    return null;
  } catch (e) {
    rmSync(temp, { force: true });
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * This mode's runtime from the cache, or compiled by `compile` and stored there. A damaged or mismatched entry is
 * replaced, and a cache that cannot be written leaves the runtime in memory; both with a warning (build-warnings.ts).
 */
export async function cachedRuntime(sanitize: boolean, compile: () => Promise<Runtime | { messages: string[] }>): Promise<Runtime | { messages: string[] }> {
  const file = runtimeCacheFile(sanitize);
  const found = readEntry(file, sanitize);
  if (found && !("problem" in found)) return found;
  const built = await compile();
  if ("messages" in built) return built;
  const unwritable = storeEntry(file, sanitize, built);
  if (found) warnBuild(`the device-runtime cache entry ${file} could not be used (${found.problem}); the runtime was compiled again${unwritable ? "" : " and the entry replaced"}`);
  if (unwritable) warnBuild(`the compiled device runtime cannot be stored in ${file} (${unwritable}); it is kept in memory for this process only, so the next process compiles it again: make ${runtimeCacheDir()} writable, or set GPSIMD_CACHE_DIR`);
  return built;
}

/**
 * The hash of the runtime a C++ library would be merged with now, if the cache holds a usable one for this mode (else
 * null: the runtime must be compiled, and a library cannot be known to match it).
 */
export function cachedRuntimeHash(sanitize: boolean): string | null {
  const found = readEntry(runtimeCacheFile(sanitize), sanitize);
  return found && !("problem" in found) ? runtimeHash(found) : null;
}
