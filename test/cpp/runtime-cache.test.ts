// The compiled device runtime of C++ builds is kept in the per-user cache folder ($GPSIMD_CACHE_DIR, as built
// libraries are: build/paths.ts), not in the shared temp folder; a second process reuses it.
import { describe, it, expect, afterAll } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO, FIXTURES_DIR } from "../helpers.js";

const work = mkdtempSync(path.join(tmpdir(), "gpsimd-runtime-cache-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Builds the CLI fixture's C++ ReLU in a fresh process with GPSIMD_CACHE_DIR=cache. */
function buildIn(cache: string, out: string): void {
  const folder = path.join(FIXTURES_DIR, "cpp-cli", "relu_cpp");
  const script = path.join(work, "build.mjs");
  writeFileSync(script, `import { custom_op, shutdown } from ${JSON.stringify(path.join(REPO, "dist/host/index.js"))};
custom_op.load({ name: "relu_cpp", compute_srcs: [${JSON.stringify(path.join(folder, "relu_cpp.cpp"))}], shape_srcs: [${JSON.stringify(path.join(folder, "shape.cpp"))}], build_directory: ${JSON.stringify(out)} }).unload();
await shutdown();`);
  execFileSync(process.execPath, [script], { env: { ...process.env, GPSIMD_CACHE_DIR: cache }, encoding: "utf8" });
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
  }, 300_000);
});
