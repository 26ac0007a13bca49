// Below -O2 (gpsimd watch's -O1) the optimiser runs on a C++ kernel alone, before the merge with the device
// runtime, instead of on the merged module (build/cpp/post-link.ts: optimisesKernelAlone; Binaryen inlines nothing
// below -O2). The library built so must compute what the kernel says and keep its errors at the kernel's .cpp
// lines. The kernel is the API reference's negate through TCM (examples/seeds-cpp/negate-tcm.cpp).
import { it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { custom_op, ops, randn, shutdown, type Library } from "gpsimd";
// The compile service of the package "gpsimd" resolves to (dist/), whose builds custom_op.load runs.
import { setBuildOptimizeLevel, takeLastBuild } from "../../dist/host/library/compile-service.js";

const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-kernel-alone-"));
const SEED = readFileSync(path.join(import.meta.dirname, "..", "..", "examples", "seeds-cpp", "negate-tcm.cpp"), "utf8");
const COPY_IN = "t_in_tcm_acc.tensor_to_tcm<float>(tcm_buffer, i, copy_size);";
const N = 2000;

/** A library of the seed's kernel (with `edit` applied) under namespace `ns`. */
function load(ns: string, edit: (text: string) => string = (t) => t): { lib: Library; kernel: string } {
  const kernel = path.join(dir, `${ns}.cpp`), shape = path.join(dir, `${ns}-shape.cpp`);
  writeFileSync(kernel, `#include <torch/torch.h>\n${edit(SEED)}`);
  writeFileSync(shape, `#include <torch/torch.h>
#include "torchneuron/register.h"
torch::Tensor negate_shape(torch::Tensor t) { return torch::zeros(t.sizes(), torch::kFloat); }
NEURON_LIBRARY(${ns}, m) { m.def("tensor_negate", &negate_shape, "tensor_negate_compute"); }
`);
  takeLastBuild();
  const lib = custom_op.load({ name: ns, compute_srcs: [kernel], shape_srcs: [shape], build_directory: path.join(dir, "out") });
  return { lib, kernel };
}

beforeAll(() => setBuildOptimizeLevel(1));
afterAll(async () => {
  setBuildOptimizeLevel(undefined);
  await shutdown();
  rmSync(dir, { recursive: true, force: true });
});

it("at -O1 the kernel is optimised before the merge, and negates every element", () => {
  const { lib } = load("o1_alone");
  const stages = (takeLastBuild()?.answer.stages ?? []).map((s) => s.name);
  const optimised = stages.indexOf("optimise -O1 the kernel (wasm-opt, build A)");
  expect(optimised).toBeGreaterThanOrEqual(0);
  expect(optimised).toBeLessThan(stages.indexOf("post-link: merge with the runtime (wasm-merge, build A)"));
  expect(stages.some((s) => /^optimise -O1 \(wasm-opt/.test(s))).toBe(false); // no pass over the merged module
  const x = randn([N], { seed: 3 });
  const got = (ops as Record<string, Record<string, (t: unknown) => { tolist(): number[] }>>).o1_alone.tensor_negate(x).tolist();
  const want = (x.tolist() as number[]).map((v) => -v);
  expect(got).toEqual(want);
  lib.unload();
}, 300_000);

it("at -O1 a TCM copy past the input names the copy's .cpp line", () => {
  // Each chunk copies one element more than it holds: the last chunk's copy reads past the input's 2000 elements.
  const { lib, kernel } = load("o1_alone_bad", (t) => t.replace(COPY_IN, "t_in_tcm_acc.tensor_to_tcm<float>(tcm_buffer, i, copy_size + 1);"));
  const line = `#include <torch/torch.h>\n${SEED}`.split("\n").findIndex((l) => l.includes(COPY_IN)) + 1;
  const x = randn([N], { seed: 4 });
  expect(() => (ops as Record<string, Record<string, (t: unknown) => unknown>>).o1_alone_bad.tensor_negate(x)).toThrow(`${kernel}:${line}:`);
  lib.unload();
}, 300_000);
