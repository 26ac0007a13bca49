// Compiling the tile engine (assembly/nki/*.ts) to WebAssembly, once per version of its sources: the
// bytes are kept in the per-user cache folder (<cache>/nki-engine/<hash>.wasm, like the C++ device
// runtime's), so only the first process after a change pays for asc (about 3 s); `npm run build`
// fills the cache ahead. A process that finds no cached bytes compiles them on a helper thread and
// waits for it (engineBytes() is synchronous, as the instructions calling it are).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import path from "node:path";
import { ASSEMBLY_DIR, PACKAGE_ROOT, cacheDir } from "../../build/paths.js";
import { INITIAL_PAGES } from "../../host/library/build-constants.js";
import { BuildError } from "../../host/checks/errors.js";
import { threadOptions } from "../../host/cores/thread-options.js";

/** The engine's AssemblyScript sources. */
export const ENGINE_SOURCE_DIR = path.join(ASSEMBLY_DIR, "nki");

/**
 * asc's options: the shared device memory imported (its limits as host/device/hbm.ts makes it), SIMD and
 * threads, no assertions (their messages would be static data) and shrink level 1, under which the Math
 * library computes exp/log/pow without lookup tables (static data too).
 */
const ASC_OPTIONS = [
  "--outFile", "engine.wasm", "-O3", "--shrinkLevel", "1", "--runtime", "stub", "--noAssert",
  "--importMemory", "--sharedMemory", "--noExportMemory", "--initialMemory", String(INITIAL_PAGES), "--maximumMemory", "65536",
  "--enable", "simd,threads", "--noColors",
];

/**
 * The engine's sources as read once: the cache key is a hash of exactly the texts the compiler gets
 * (a file changing during a compile must not file the old build under the new sources' name).
 */
export type EngineSources = ReadonlyMap<string, string>;

export function readEngineSources(): EngineSources {
  const names = readdirSync(ENGINE_SOURCE_DIR).filter((f) => f.endsWith(".ts")).sort();
  return new Map(names.map((f) => [f, readFileSync(path.join(ENGINE_SOURCE_DIR, f), "utf8")]));
}

/** The installed assemblyscript's version: from the nearest node_modules above the package (it may be hoisted). */
function ascVersion(): string {
  for (let dir = PACKAGE_ROOT; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "node_modules", "assemblyscript", "package.json");
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
    if (path.dirname(dir) === dir) return "unknown";
  }
}

/** Where the engine built from these sources is cached. */
export function engineCacheFile(sources: EngineSources): string {
  const h = createHash("sha256").update(JSON.stringify(ASC_OPTIONS));
  h.update(ascVersion());
  for (const [f, text] of sources) h.update(f).update("\0").update(text).update("\0");
  return path.join(cacheDir(), "nki-engine", `${h.digest("hex").slice(0, 32)}.wasm`);
}

/** Compiles the engine from these sources in this thread (asc is asynchronous). Throws BuildError with the compiler's messages. */
export async function compileEngine(sources: EngineSources): Promise<Uint8Array> {
  const { default: asc } = await import("assemblyscript/asc");
  let binary: Uint8Array | null = null;
  let text = "";
  const result = await asc.main(["index.ts", "--baseDir", ENGINE_SOURCE_DIR, ...ASC_OPTIONS], {
    readFile: (file: string, baseDir: string) => {
      const full = path.resolve(baseDir, file);
      return path.dirname(full) === ENGINE_SOURCE_DIR ? sources.get(path.basename(full)) ?? null : null;
    },
    writeFile: (file: string, contents: Uint8Array | string) => { if (file.endsWith(".wasm") && contents instanceof Uint8Array) binary = contents; },
    stdout: { write: (s: string | Uint8Array) => { text += String(s); } },
    stderr: { write: (s: string | Uint8Array) => { text += typeof s === "string" ? s : Buffer.from(s).toString("utf8"); } },
  });
  if (result.error || !binary) throw new BuildError("E_NKI_ENGINE_BUILD", `the NKI tile engine did not compile: ${result.error?.message ?? "no output"}\n${text}`);
  checkNoStaticData(binary);
  return binary;
}

/** The engine must not write the shared memory when instantiated: no data section (id 11). */
function checkNoStaticData(wasm: Uint8Array): void {
  let p = 8;
  while (p < wasm.length) {
    const id = wasm[p++]!;
    let size = 0, shift = 0, b: number;
    do { b = wasm[p++]!; size |= (b & 127) << shift; shift += 7; } while (b & 128);
    if (id === 11 && size > 1) throw new BuildError("E_NKI_ENGINE_BUILD", "the NKI tile engine has static data; it would overwrite device memory at every instantiation");
    p += size;
  }
}

/** Compiles and stores the engine in the cache unless it is there; returns the file. */
export async function buildEngineCache(): Promise<string> {
  const sources = readEngineSources();
  const file = engineCacheFile(sources);
  if (existsSync(file)) return file;
  writeAtomically(file, await compileEngine(sources));
  return file;
}

/** Stores bytes compiled from sources in the cache; false when the cache folder cannot be written (the bytes still serve this process). */
export function storeInCache(sources: EngineSources, bytes: Uint8Array): boolean {
  try {
    writeAtomically(engineCacheFile(sources), bytes);
    return true;
  } catch {
    return false;
  }
}

/** Atomically: a concurrent reader sees the whole file or none. */
function writeAtomically(file: string, bytes: Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temp, bytes);
  renameSync(temp, file);
}

/** The compiled engine: from the cache, or built on a helper thread while this one waits. */
export function engineBytes(): Uint8Array<ArrayBuffer> {
  const file = engineCacheFile(readEngineSources());
  try {
    return new Uint8Array(readFileSync(file));
  } catch {
    return new Uint8Array(buildOnHelperThread()); // out of the shared answer buffer
  }
}

const BUILD_TIMEOUT_MS = 120_000;

/** The helper thread's script: beside this file when running compiled, else in the package's dist/. */
function workerScript(): string {
  const sibling = path.join(path.dirname(fileURLToPath(import.meta.url)), "engine-build-worker.js");
  return existsSync(sibling) ? sibling : path.join(PACKAGE_ROOT, "dist", "nki", "machine", "engine-build-worker.js");
}

function buildOnHelperThread(): Uint8Array {
  const answer = new SharedArrayBuffer(8 + (1 << 20));
  const state = new Int32Array(answer, 0, 2);
  const worker = new Worker(workerScript(), threadOptions({ workerData: { answer } }));
  try {
    const deadline = performance.now() + BUILD_TIMEOUT_MS;
    while (Atomics.load(state, 0) === 0) {
      if (performance.now() > deadline) throw new BuildError("E_NKI_ENGINE_BUILD", `compiling the NKI tile engine did not finish within ${BUILD_TIMEOUT_MS / 1000} s`);
      Atomics.wait(state, 0, 0, 1000);
    }
    const bytes = new Uint8Array(answer, 8, state[1]!).slice();
    if (Atomics.load(state, 0) !== 1) throw new BuildError("E_NKI_ENGINE_BUILD", new TextDecoder().decode(bytes));
    return bytes;
  } finally {
    void worker.terminate();
  }
}
