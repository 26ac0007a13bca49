// The compiled device runtime of C++ builds is kept in the per-user cache folder ($GPSIMD_CACHE_DIR, as built
// libraries are: build/paths.ts), not in the shared temp folder; a second process reuses it. An entry is used only if
// it is what it claims (build/cpp/runtime-cache.ts): a damaged one, or one holding the other sanitize mode's runtime,
// is compiled again and replaced with a warning naming it (it failed every later build with a wasm-merge error naming
// no file, or built libraries whose every call was an untyped TypeError); a cache that cannot be written costs a
// compile per process, with a warning, not the build. A C++ library records the runtime merged into it, so it is not
// "up to date" once that runtime is gone from the cache (issue 24).
import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { custom_op, LibraryFormatError } from "gpsimd";
import { REPO, FIXTURES_DIR, thrown } from "../helpers.js";
import { cachedRuntime, runtimeCacheFile, runtimeHash, type Runtime } from "../../dist/build/cpp/runtime-cache.js";
import { takeBuildWarnings } from "../../dist/build/build-warnings.js";
import { decodeLibrary, encodeLibrary } from "../../dist/host/library/library-file.js";

const work = mkdtempSync(path.join(tmpdir(), "gpsimd-runtime-cache-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Builds the CLI fixture's C++ ReLU in a fresh process with GPSIMD_CACHE_DIR=cache and runs it; returns what it wrote
 * to stderr (verbose), where a failed load writes "load failed: <code>". `extra`: more load options (JavaScript).
 */
function buildIn(cache: string, out: string, extra = ""): string {
  const folder = path.join(FIXTURES_DIR, "cpp-cli", "relu_cpp");
  const script = path.join(work, "build.mjs");
  writeFileSync(script, `import { custom_op, ops, tensor, shutdown } from ${JSON.stringify(path.join(REPO, "dist/host/index.js"))};
let lib = null;
try {
  lib = custom_op.load({ name: "relu_cpp", compute_srcs: [${JSON.stringify(path.join(folder, "relu_cpp.cpp"))}], shape_srcs: [${JSON.stringify(path.join(folder, "shape.cpp"))}], build_directory: ${JSON.stringify(out)}, verbose: true, ${extra} });
} catch (e) {
  process.stderr.write("load failed: " + e.code + "\\n");
}
if (lib) {
  const y = ops.cpp_cli_relu.relu_forward(tensor([-1, 2], [2])).tolist();
  if (y[0] !== 0 || y[1] !== 2) throw new Error("relu gave " + y);
  lib.unload();
}
await shutdown();`);
  const run = spawnSync(process.execPath, [script], { env: { ...process.env, GPSIMD_CACHE_DIR: cache }, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`the build process failed:\n${run.stderr}`);
  return run.stderr;
}

describe("the C++ device runtime's build cache", () => {
  it("lives in $GPSIMD_CACHE_DIR/device-runtime", () => {
    const cache = path.join(work, "cache");
    buildIn(cache, path.join(work, "out-1"));
    const files = readdirSync(path.join(cache, "device-runtime"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{32}\.json$/);
    const saved = JSON.parse(readFileSync(path.join(cache, "device-runtime", files[0]), "utf8")) as { a: string; b: string; dataBytes: number };
    // The runtime at both static-data bases: two wasm modules ("\0asm" in base64 is "AGFzbQ").
    expect(saved.a.startsWith("AGFzbQ")).toBe(true);
    expect(saved.b.startsWith("AGFzbQ")).toBe(true);
    expect(saved.dataBytes).toBeGreaterThan(0);
    // Another process with the same cache folder finds it: still one file.
    buildIn(cache, path.join(work, "out-2"));
    expect(readdirSync(path.join(cache, "device-runtime"))).toEqual(files);
    // The library of out-1 is up to date while the runtime merged into it is in the cache; with the cache gone it is
    // not (it was, and kept the runtime of a damaged entry): it is rebuilt, and the runtime cached again.
    expect(buildIn(cache, path.join(work, "out-1"))).toContain("is up to date");
    rmSync(cache, { recursive: true, force: true });
    const stderr = buildIn(cache, path.join(work, "out-1"));
    expect(stderr).toMatch(/gpsimd: building .*out-1\/librelu_cpp\.wasm/);
    expect(readdirSync(path.join(cache, "device-runtime"))).toEqual(files);
  }, 300_000);
});

/** A runtime for the cache's own checks: two tiny modules, importing the sanitizer's checks or not. */
function fakeRuntime(sanitize: boolean): Runtime {
  const empty = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const text = (t: string) => [t.length, ...Array.from(t, (c) => c.charCodeAt(0))];
  const importBody = [1, ...text("sanitize"), ...text("load"), 0x00, 0x00]; // one function import of type 0
  const withImport = [...empty, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x02, importBody.length, ...importBody];
  const wasm = new Uint8Array(sanitize ? withImport : empty);
  return { a: wasm, b: wasm.slice(), dataBytes: 64 };
}

describe("a device-runtime cache entry that is not what it claims", () => {
  const cache = path.join(work, "checks");
  /** fn with GPSIMD_CACHE_DIR=cache. */
  async function withCache<T>(fn: () => T | Promise<T>): Promise<T> {
    const saved = process.env.GPSIMD_CACHE_DIR;
    process.env.GPSIMD_CACHE_DIR = cache;
    try {
      return await fn();
    } finally {
      if (saved === undefined) delete process.env.GPSIMD_CACHE_DIR;
      else process.env.GPSIMD_CACHE_DIR = saved;
    }
  }
  /** cachedRuntime for normal builds: what it returned, whether it compiled, its warnings. */
  const lookUp = () => withCache(async () => {
    let compiled = false;
    const runtime = await cachedRuntime(false, async () => { compiled = true; return fakeRuntime(false); });
    if ("messages" in runtime) throw new Error(runtime.messages.join("\n"));
    return { runtime, compiled, warnings: takeBuildWarnings() };
  });
  let file = "";
  const entryFile = () => file;
  const entry = () => JSON.parse(readFileSync(entryFile(), "utf8")) as Record<string, unknown>;

  it("is compiled again and replaced, with a warning naming it: non-wasm, the other mode's runtime, a changed byte", async () => {
    file = await withCache(() => runtimeCacheFile(false));
    rmSync(cache, { recursive: true, force: true });
    expect((await lookUp()).compiled).toBe(true); // first use: compiled and stored
    expect(await lookUp()).toMatchObject({ compiled: false, warnings: [] }); // then reused as it is
    const good = entry();
    const damaged: [string, Record<string, unknown>, string][] = [
      ["valid JSON holding non-wasm", { ...good, a: Buffer.from("not wasm").toString("base64") }, "module a is not WebAssembly (it does not start with the wasm header)"],
      ["the sanitize-mode runtime, its hash recomputed", { ...good, a: Buffer.from(fakeRuntime(true).a).toString("base64"), b: Buffer.from(fakeRuntime(true).b).toString("base64"), sha256: runtimeHash(fakeRuntime(true)) }, "module a is the sanitize-mode runtime, but the entry is for normal builds"],
      ["an entry claiming sanitize mode", { ...good, sanitize: true }, "it claims sanitize mode, not normal builds"],
      ["a changed byte", { ...good, dataBytes: 128 }, "its contents do not match the SHA-256 it was written with"],
      ["not JSON", null as unknown as Record<string, unknown>, "it is not JSON"],
    ];
    for (const [what, bad, why] of damaged) {
      writeFileSync(entryFile(), bad === null ? "{ truncated" : JSON.stringify(bad));
      const found = await lookUp();
      expect(found.compiled, what).toBe(true);
      expect(found.warnings, what).toEqual([`the device-runtime cache entry ${entryFile()} could not be used (${why}); the runtime was compiled again and the entry replaced`]);
      expect(entry(), what).toEqual(good);
    }
  });

  it("a folder in the entry's place: the runtime is used from memory, with a warning", async () => {
    file = await withCache(() => runtimeCacheFile(false));
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(entryFile(), { recursive: true });
    const found = await lookUp();
    expect(found.compiled).toBe(true);
    expect(runtimeHash(found.runtime)).toBe(runtimeHash(fakeRuntime(false)));
    expect(found.warnings.join("\n")).toContain(`the compiled device runtime cannot be stored in ${entryFile()}`);
  });
});

describe("a library file whose kernel module is of the other sanitize mode", () => {
  it("is refused, naming the file (it was an untyped TypeError at every call); custom_op.load rebuilds such a file", () => {
    // The library the first test built (in out-2), its manifest's claim changed and sealed again.
    const built = path.join(work, "out-2", "librelu_cpp.wasm");
    const file = path.join(work, "librelu_cpp.wasm");
    const parts = decodeLibrary(readFileSync(built), built);
    writeFileSync(file, encodeLibrary({ ...parts, manifest: { ...parts.manifest, sanitize: true } }));
    const e = thrown(() => custom_op.load_library(file));
    expect(e, String(e)).toBeInstanceOf(LibraryFormatError);
    expect((e as LibraryFormatError).code).toBe("E_LIBRARY_MODE");
    expect((e as LibraryFormatError).message).toContain(`${file} says it was built in sanitize mode, but its kernel module lacks the sanitizer's checks`);
  });
});
