// Published kernels at sizes the NKI library skips in simulation, run with every check on (races,
// instance overlap, capacity, buffer rules, bounds, init): no false alarm, values checked (the add in
// full against TypeScript, the matmul at sampled elements against dot products computed here).
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel, launchKernel } from "../../nki/language/run.js";
import { randn } from "../../host/device/factories.js";
import type { Tensor } from "../../host/device/tensor.js";

registerNkiModules();

const EXAMPLES = "test/nki/corpus/aws-neuron-sdk/nki/examples";

function kernel(file: string, name: string) {
  const program = loadProgram(file, { source: readFileSync(file, "utf8") });
  return { program, k: findKernel(program, name) };
}

describe("large shapes with every check on", () => {
  test("tensor addition 4096 x 4096 (the tutorial's kernel, 256 tiles in nested affine_range loops)", () => {
    const { program, k } = kernel(`${EXAMPLES}/tensor_addition/tensor_addition_nki_kernels.py`, "nki_tensor_add");
    const a = randn([4096, 4096], { seed: 1 }), b = randn([4096, 4096], { seed: 2 });
    const r = launchKernel(program, k, [a, b]);
    const o = (r.returned as Tensor).data() as Float32Array, x = a.data() as Float32Array, y = b.data() as Float32Array;
    for (let i = 0; i < o.length; i++) if (o[i] !== Math.fround(x[i] + y[i])) throw new Error(`element ${i}: ${o[i]} != ${x[i] + y[i]}`);
    for (const t of [a, b, ...r.outputs]) t.dispose();
  }, 120000);

  test("the seed's tensor add on a [32, 8] SPMD grid of 128 x 512 tiles (4096 x 4096): instances store disjoint tiles", () => {
    const { program, k } = kernel("examples/seeds-nki/tensor_add.py", "nki_tensor_add_kernel_");
    const a = randn([4096, 4096], { seed: 3 }), b = randn([4096, 4096], { seed: 4 });
    const r = launchKernel(program, k, [a, b], {}, { grid: [32, 8] });
    const o = (r.returned as Tensor).data() as Float32Array, x = a.data() as Float32Array, y = b.data() as Float32Array;
    for (const i of [0, 4095, 4096 * 2048 + 17, o.length - 1]) expect(o[i]).toBe(Math.fround(x[i] + y[i]));
    for (const t of [a, b, ...r.outputs]) t.dispose();
  }, 120000);

  test("the matmul tutorial's tiled and fully optimised kernels at 2048^3 (float32), sampled against dot products", () => {
    const n = 2048;
    const lhsT = randn([n, n], { seed: 5 }), rhs = randn([n, n], { seed: 6 });
    const A = lhsT.data() as Float32Array, B = rhs.data() as Float32Array;
    const dot = (m: number, j: number) => { let s = 0; for (let kk = 0; kk < n; kk++) s += A[kk * n + m] * B[kk * n + j]; return s; };
    for (const name of ["nki_matmul_tiled_", "nki_matmul_fully_optimized_"]) {
      const { program, k } = kernel(`${EXAMPLES}/matrix_multiplication/matrix_multiplication_nki_kernels.py`, name);
      const r = launchKernel(program, k, [lhsT, rhs]);
      const o = (r.returned as Tensor).data() as Float32Array;
      for (const [m, j] of [[0, 0], [127, 511], [1000, 1999], [2047, 2047], [640, 3]]) expect(o[m * n + j]).toBeCloseTo(dot(m, j), 2);
      for (const t of r.outputs) t.dispose();
    }
    lhsT.dispose(); rhs.dispose();
  }, 300000);
});
