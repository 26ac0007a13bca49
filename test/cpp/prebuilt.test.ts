// What a C++ build needs from gpsimd alone is made by `npm run build` into the package's own folder (dist/prebuilt/,
// build/cpp/prebuild.ts): the device runtime and gpsimd's precompiled headers for kernels and shape functions. A
// first C++ build with an empty cache folder then compiles neither (the cold `gpsimd run` of the seed's GIOU spent
// 13 s of 18 on them), and the library is the same: the prebuilt runtime is the compiled one byte for byte (and
// test/cpp/header-pch.test.ts: a kernel from the precompiled headers is the same code). clang runs in a process of its
// own (build/cpp/clang-process.ts), which must not keep a finished build's process up.
import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO, FIXTURES_DIR } from "../helpers.js";
import { prebuildCppProducts } from "../../dist/build/cpp/prebuild.js";
import { prebuiltRuntime, prebuiltRuntimeFile } from "../../dist/build/cpp/prebuilt-runtime.js";
import { compileRuntime } from "../../dist/build/cpp/build-cpp.js";
import { runtimeHash } from "../../dist/build/cpp/runtime-cache.js";

const work = mkdtempSync(path.join(tmpdir(), "gpsimd-prebuilt-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the package's prebuilt C++ build products", () => {
  it("hold the device runtime a compile gives now, byte for byte", async () => {
    const said: string[] = [];
    await prebuildCppProducts((l) => said.push(l));
    expect(said.join("\n")).toMatch(/device runtime: (up to date|compiled in)/);
    const prebuilt = prebuiltRuntime(false);
    expect(prebuilt, `${prebuiltRuntimeFile(false)} checks out`).not.toBeNull();
    const compiled = await compileRuntime(false);
    if ("messages" in compiled) throw new Error(compiled.messages.join("\n"));
    expect(runtimeHash(prebuilt!)).toBe(runtimeHash(compiled));
    expect(prebuilt!.dataBytes).toBe(compiled.dataBytes);
  }, 600_000);

  it("make a first build with an empty cache folder compile neither the runtime nor the headers; its process exits", async () => {
    await prebuildCppProducts(() => {}); // up to date unless gpsimd's sources changed since the test above
    const folder = path.join(FIXTURES_DIR, "cpp-cli", "relu_cpp");
    const cache = path.join(work, "cache"), out = path.join(work, "out");
    const run = spawnSync(process.execPath, [path.join(REPO, "dist", "cli", "gpsimd.js"), "build", path.join(folder, "relu_cpp.cpp"), path.join(folder, "shape.cpp"), "--out", out, "--verbose"], {
      env: { ...process.env, GPSIMD_CACHE_DIR: cache }, encoding: "utf8", timeout: 300_000,
    });
    expect(run.error, "the build's process ended by itself").toBeUndefined();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("device runtime: the package's prebuilt one");
    expect(run.stderr).not.toContain("device runtime: compiled");
    expect(run.stderr).toContain("compile shape function (from precompiled headers)");
    expect(run.stderr).toContain("compile kernel (from precompiled headers)");
    // The runtime is in the cache folder as if compiled there (a library records it: runtime-cache.ts).
    expect(readdirSync(path.join(cache, "device-runtime"))).toEqual([path.basename(prebuiltRuntimeFile(false))]);
  }, 600_000);
});
