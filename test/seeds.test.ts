// The seeds' multicore kernels, ported literally, and what gpsimd says about
// them: the multicore ReLU's last core reads and writes past the end and
// leaves a gap when the size is not a multiple of 8; the blog's GIOU kernel
// makes the cores overlap, leaves rows unwritten and leaks a TCM buffer.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  custom_op, ops, randn, tensor, shutdown, setOutput, TensorRangeError, CrossCoreWriteError, type Library,
} from "gpsimd";

const here = path.dirname(fileURLToPath(import.meta.url));
const seeds = path.join(here, "..", "examples", "seeds");
const buildDir = path.join(here, "..", "build", "out");
const libs: Library[] = [];

beforeAll(() => {
  for (const [name, kernel, register] of [["seed_relu", "relu-multicore.ts", "relu-multicore-register.ts"], ["seed_giou", "giou-multicore.ts", "giou-multicore-register.ts"]]) {
    libs.push(custom_op.load({ name, compute_srcs: [path.join(seeds, kernel)], shape_srcs: [path.join(seeds, register)], build_directory: buildDir, multicore: true }));
  }
});
afterAll(async () => { libs.forEach((l) => l.unload()); await shutdown(); });

describe("the seed's multicore ReLU", () => {
  it("is right when the size is a multiple of 8", () => {
    const x = randn([64, 1000], { seed: 3 });
    expect(ops.seed_relu.relu_forward(x).data()).toEqual((x.data() as Float32Array).map((v) => Math.max(v, 0)));
  });

  it("fails on core 7 when it is not: out of range, and the elements no core wrote", () => {
    // 999,999 = 8 * 124,999 + 7: core 7 takes 125,006 elements but starts at 125,006 * 7 = 875,042.
    let error: unknown;
    try { ops.seed_relu.relu_forward(randn([999, 1001])); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(TensorRangeError);
    const e = error as TensorRangeError;
    expect(e.core).toBe(7);
    expect(e.message).toMatch(/^seed_relu::relu_forward \(core 7\): TCM copy of 78 elements at offset 999970 reaches outside argument 0 't_in' \(float32\[999, 1001\]\): elements \[999970, 1000048\) requested, the tensor has 999999/);
    expect(e.message).toContain("output elements were written by no core: [874993, 875042), [999970, 999999)");
  });
});

describe("the blog's C++ GIOU", () => {
  it("overlaps between cores and leaks a TCM buffer", () => {
    const n = 16, b = 8;
    const boxes = () => tensor(Float32Array.from({ length: n * b * 4 }, (_, i) => [0, 0, 4, 4][i % 4] + (i % 7)), [n, b, 4]);
    const warnings: string[] = [];
    const restore = setOutput({ warn: (w) => warnings.push(w) });
    let error: unknown;
    try { ops.seed_giou.giou(boxes(), boxes()); } catch (e) { error = e; } finally { restore(); }
    expect(error).toBeInstanceOf(CrossCoreWriteError);
    // partition = 16 / 8 = 2 rows; core k writes 8 elements at 2k + 8i for i = 0, 1: core 0 [0, 16), core 1 [2, 18), ...
    expect((error as Error).message).toMatch(/^seed_giou::giou: cores 0 and 1 both wrote output elements \[2, 16\) of float32\[16, 8\]/);
    expect((error as Error).message).toContain("also: 98 output elements were written by no core: [30, 128)");
    // tcm_output is never freed: one warning for all eight cores.
    expect(warnings).toEqual([expect.stringMatching(/^seed_giou::giou \(cores 0-7\): 1 TCM block \(128 bytes\) still allocated when the kernel returned/)]);
  });
});
