// The three seed kernels (examples/seeds-nki/) against plain TypeScript references.
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel, launchKernel } from "../../nki/language/run.js";
import { tensor } from "../../host/device/factories.js";
import type { Tensor } from "../../host/device/tensor.js";

registerNkiModules();

/** Deterministic pseudo-random floats in [-r, r), rounded to float32. */
function values(n: number, seed: number, r = 10): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * r;
  }
  return out;
}

describe("tensor_add.py (nki_tensor_add_kernel_ on an SPMD grid)", () => {
  const program = loadProgram("examples/seeds-nki/tensor_add.py");

  test("a 2 x 2 grid over [256, 1024] adds every element (float32, exact)", () => {
    const av = values(256 * 1024, 1), bv = values(256 * 1024, 2);
    const a = tensor(av, [256, 1024], "float32"), b = tensor(bv, [256, 1024], "float32");
    const r = launchKernel(program, findKernel(program, "nki_tensor_add_kernel_"), [a, b], {}, { grid: [2, 2] });
    const c = (r.returned as Tensor).data() as Float32Array;
    const expected = new Float32Array(av.length);
    for (let i = 0; i < av.length; i++) expected[i] = av[i] + bv[i];
    expect(c).toEqual(expected);
    expect(r.outputs).toEqual([r.returned]);
  });

  test("the caller nki_tensor_add launches the grid itself", () => {
    const av = values(256 * 1024, 3), bv = values(256 * 1024, 4);
    const a = tensor(av, [256, 1024], "float32"), b = tensor(bv, [256, 1024], "float32");
    const r = launchKernel(program, findKernel(program, "nki_tensor_add"), [a, b]);
    const c = (r.returned as Tensor).data() as Float32Array;
    expect(c[0]).toBe(Math.fround(av[0] + bv[0]));
    expect(c[256 * 1024 - 1]).toBe(Math.fround(av[256 * 1024 - 1] + bv[256 * 1024 - 1]));
  });
});
