// asc reuses the parsed library files between compiles on a thread (build/parse-cache.ts): a library built with
// reused trees must be the one a build that parses everything makes, byte for byte (source map included), in the
// default mode and in sanitize mode, and a compile error after reuse still names the kernel's line.
import { describe, it, expect } from "vitest";
import path from "node:path";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import { buildLibrary, type BuildRequest } from "../dist/build/compile.js";
import { encodeLibrary } from "../dist/host/library/library-file.js";
import { REPO } from "./helpers.js";

const ops = (file: string) => path.join(REPO, "ops", file);
const base = { extraCflags: [], heapBytes: 4 << 20, hashSettings: { test: "parse-cache" } };
const GIOU: BuildRequest = { ...base, name: "giou_multicore", computeSrcs: [ops("giou/multicore.ts")], shapeSrcs: [ops("giou/register-multicore.ts"), ops("giou/shape.ts")], multicore: true, sanitize: false };
const RELU_SANITIZE: BuildRequest = { ...base, name: "relu_tcm", computeSrcs: [ops("relu/tcm.ts")], shapeSrcs: [ops("relu/register-tcm.ts"), ops("relu/shape.ts")], multicore: false, sanitize: true };

async function build(request: BuildRequest, reuse: boolean): Promise<Buffer | string[]> {
  const saved = { cache: process.env.GPSIMD_PARSE_CACHE, thread: process.env.GPSIMD_SECOND_BUILD_THREAD };
  process.env.GPSIMD_PARSE_CACHE = reuse ? "1" : "0";
  process.env.GPSIMD_SECOND_BUILD_THREAD = "0"; // both builds on this thread, whose cache the switch controls
  try {
    const parts = await buildLibrary(request);
    return "messages" in parts ? parts.messages : Buffer.from(encodeLibrary(parts));
  } finally {
    for (const [name, value] of [["GPSIMD_PARSE_CACHE", saved.cache], ["GPSIMD_SECOND_BUILD_THREAD", saved.thread]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe("reused library parses", () => {
  it("give the library a full parse gives, byte for byte, when first recorded and when reused", async () => {
    for (const request of [GIOU, RELU_SANITIZE]) {
      const full = await build(request, false);
      const recorded = await build(request, true);
      const reused = await build(request, true);
      expect(Buffer.isBuffer(full)).toBe(true);
      expect((full as Buffer).equals(recorded as Buffer)).toBe(true);
      expect((full as Buffer).equals(reused as Buffer)).toBe(true);
    }
  }, 600_000);

  it("leave a kernel's compile error at its line, and the next good kernel builds", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gpsimd-parse-cache-"));
    const kernel = path.join(dir, "fill.ts");
    const shape = path.join(dir, "shape.ts");
    writeFileSync(shape, `import { NEURON_LIBRARY, zeros, kFloat, type Tensor } from "gpsimd";
export function fill_shape(t: Tensor): Tensor { return zeros(t.sizes(), kFloat); }
NEURON_LIBRARY("parse_cache_fill", (m) => { m.def("fill", fill_shape, "fill"); });
`);
    const source = (value: string) => `import { Tensor, zeros, kFloat } from "gpsimd";
export function fill(t_in: Tensor): Tensor {
  const t_out = zeros(t_in.sizes(), kFloat);
  const acc = t_out.accessor1<f32>();
  for (let i: i64 = 0; i < t_in.numel(); i++) acc[i] = ${value};
  return t_out;
}
`;
    const request: BuildRequest = { ...base, name: "parse_cache_fill", computeSrcs: [kernel], shapeSrcs: [shape], multicore: false, sanitize: false };
    writeFileSync(kernel, source("1"));
    expect(Buffer.isBuffer(await build(request, true))).toBe(true);
    writeFileSync(kernel, source("no_such_name"));
    const messages = await build(request, true);
    expect(messages).toEqual([expect.stringMatching(new RegExp(`^${kernel.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:5:\\d+: error: Cannot find name 'no_such_name'`))]);
    writeFileSync(kernel, source("2"));
    const [fixed, full] = [await build(request, true), await build(request, false)];
    expect((fixed as Buffer).equals(full as Buffer)).toBe(true);
  }, 600_000);
});
