// Builds A and B of an AssemblyScript library run on two threads (build/second-build.ts): the library must be the
// one the sequential build makes, byte for byte, and a build must say where its time went (build/build-stages.ts).
// Also: the second thread's compile is refused when the texts it read are not the ones build A compiled.
import { describe, it, expect, afterAll } from "vitest";
import path from "node:path";
import { buildLibrary, type BuildRequest } from "../dist/build/compile.js";
import { takeBuildStages } from "../dist/build/build-stages.js";
import { encodeLibrary } from "../dist/host/library/library-file.js";
import { sameTexts, stopSecondThread } from "../dist/build/second-build.js";
import { REPO } from "./helpers.js";
import { spawnSync } from "node:child_process";

const giou = (file: string) => path.join(REPO, "ops", "giou", file);
const REQUEST: BuildRequest = {
  name: "giou_multicore", computeSrcs: [giou("multicore.ts")], shapeSrcs: [giou("register-multicore.ts"), giou("shape.ts")],
  multicore: true, extraCflags: [], sanitize: false, heapBytes: 4 << 20, hashSettings: { test: "second-thread" },
};

async function build(request: BuildRequest, secondThread: boolean): Promise<{ bytes: Uint8Array; stages: string[] }> {
  const saved = process.env.GPSIMD_SECOND_BUILD_THREAD;
  process.env.GPSIMD_SECOND_BUILD_THREAD = secondThread ? "1" : "0";
  try {
    takeBuildStages();
    const parts = await buildLibrary(request);
    if ("messages" in parts) throw new Error(parts.messages.join("\n"));
    return { bytes: encodeLibrary(parts), stages: takeBuildStages().map((s) => s.name) };
  } finally {
    if (saved === undefined) delete process.env.GPSIMD_SECOND_BUILD_THREAD;
    else process.env.GPSIMD_SECOND_BUILD_THREAD = saved;
  }
}

afterAll(() => stopSecondThread());

describe("builds A and B on two threads", () => {
  it("make the library the sequential build makes, byte for byte, at -O3 and at -O1", async () => {
    for (const optimizeLevel of [undefined, 1]) {
      const parallel = await build({ ...REQUEST, optimizeLevel }, true);
      const sequential = await build({ ...REQUEST, optimizeLevel }, false);
      expect(parallel.stages).toContain("build B: wait for the second thread");
      expect(sequential.stages).toContain("build B: on this thread");
      expect(Buffer.from(parallel.bytes).equals(Buffer.from(sequential.bytes))).toBe(true);
    }
  }, 600_000);

  it("record the stages of build A in the order they ran", async () => {
    const { stages } = await build(REQUEST, true);
    const order = ["kernel signatures", "shape sources", "shape type-check", "ownership pass", "stop polls", "allocation sites", "call sites",
      "asc: parse", "asc: initialize", "asc: compile", "asc: validate", "asc: optimize", "asc: emit", "asc: other", "build B: wait for the second thread", "relocate", "library hash"];
    expect(stages).toEqual(order);
  }, 600_000);

  it("a different optimize level makes a different module (the level reaches the compiler)", async () => {
    const o3 = await build(REQUEST, true);
    const o0 = await build({ ...REQUEST, optimizeLevel: 0 }, true);
    expect(Buffer.from(o3.bytes).equals(Buffer.from(o0.bytes))).toBe(false);
  }, 600_000);
});

describe("the second thread in a process", () => {
  it("a process whose only work is one build finishes it and then exits: the waiting build keeps it up, the idle thread does not", () => {
    const script = `import { buildLibrary } from ${JSON.stringify(path.join(REPO, "dist", "build", "compile.js"))};
const parts = await buildLibrary(${JSON.stringify(REQUEST)});
console.log("messages" in parts ? parts.messages.join("\\n") : "built " + parts.wasm.length);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 300_000 });
    expect(run.status, run.stderr).toBe(0); // 13 when the process ended with the build unfinished; null when it never ended
    expect(run.stdout).toMatch(/^built \d+\n$/);
  }, 320_000);
});

describe("sameTexts", () => {
  it("is true only for the same files with the same texts", () => {
    const a = new Map([["/k/a.ts", "x"], ["/k/b.ts", "y"]]);
    expect(sameTexts(a, new Map([["/k/b.ts", "y"], ["/k/a.ts", "x"]]))).toBe(true);
    expect(sameTexts(a, new Map([["/k/a.ts", "x"], ["/k/b.ts", "y2"]]))).toBe(false); // a file changed between the reads
    expect(sameTexts(a, new Map([["/k/a.ts", "x"]]))).toBe(false); // B read fewer files
    expect(sameTexts(a, new Map([["/k/a.ts", "x"], ["/k/b.ts", "y"], ["/k/c.ts", "z"]]))).toBe(false); // or more
  });
});
