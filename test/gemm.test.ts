// The GEMM libraries (one core, all cores) against naive triple loops in
// float64: the three layouts, the fused bias, the bias gradient, and the
// packed-weight linear layer, on sizes at and around the tile edges (32 rows,
// 48 columns, K slices of 28), empty ones, and one W3 layer. Float32 sums may differ from the float64
// reference by the standard bound K * eps * sum |a||b| per element.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, tensor, shutdown, type Tensor } from "gpsimd";
import { loadOp } from "../ops/index.js";
import { matmul, transpose, columnSums, packPanels } from "../ops/gemm/reference.js";

/** A TCM block left allocated at kernel exit fails the call: every kernel frees its buffers. */
const STRICT = { leak_is_error: true };
const single = loadOp("gemm_tcm", STRICT);
const multi = loadOp("gemm_multicore", STRICT);
afterAll(async () => {
  single.unload();
  multi.unload();
  await shutdown();
});

const LIBRARIES = ["gemm_tcm", "gemm_multicore"] as const;
const EPS32 = 2 ** -24;
const floats = (t: Tensor) => t.data() as Float32Array;
const abs = (a: Float32Array) => a.map(Math.abs);

/** The first element outside |got - want| <= (k + 2) * eps * bound + 1e-30, described; null when all are within. */
function outsideBound(got: Float32Array, want: Float64Array, bound: Float64Array, k: number): string | null {
  if (got.length !== want.length) return `${got.length} elements, expected ${want.length}`;
  for (let i = 0; i < got.length; i++) {
    const tol = (k + 2) * EPS32 * bound[i] + 1e-30;
    if (!(Math.abs(got[i] - want[i]) <= tol)) return `element ${i}: got ${got[i]}, expected ${want[i]} (tolerance ${tol.toExponential(2)})`;
  }
  return null;
}

// [M, K, N]: single elements, tile edges (M 32/33, N 48/49, K 28/29), several tiles and slices, cores with no tile.
const SHAPES: [number, number, number][] = [
  [1, 1, 1], [3, 5, 7], [4, 8, 8], [32, 28, 48], [33, 29, 49], [31, 57, 47], [65, 100, 97], [2, 300, 130], [70, 3, 200],
  [40, 30, 32], [70, 200, 33], [33, 45, 48], [5, 3, 10],
];

describe.each(LIBRARIES)("%s", (lib) => {
  it("gemm(a, b) = a · b", () => {
    SHAPES.forEach(([m, k, n], s) => {
      const a = randn([m, k], { seed: 10 + s }), b = randn([k, n], { seed: 30 + s });
      const c = ops[lib].gemm(a, b);
      expect(c.sizes()).toEqual([m, n]);
      expect(outsideBound(floats(c), matmul(floats(a), floats(b), m, k, n), matmul(abs(floats(a)), abs(floats(b)), m, k, n), k)).toBeNull();
    });
  });

  it("gemm_nt(a, b) = a · bᵀ (the gradient of a product's left operand)", () => {
    SHAPES.forEach(([m, k, n], s) => {
      const a = randn([m, k], { seed: 50 + s }), b = randn([n, k], { seed: 70 + s });
      const bt = transpose(floats(b), n, k);
      const c = ops[lib].gemm_nt(a, b);
      expect(c.sizes()).toEqual([m, n]);
      expect(outsideBound(floats(c), matmul(floats(a), bt, m, k, n), matmul(abs(floats(a)), abs(bt), m, k, n), k)).toBeNull();
    });
  });

  it("gemm_tn(a, b) = aᵀ · b (the gradient of a product's right operand)", () => {
    SHAPES.forEach(([m, k, n], s) => {
      const a = randn([k, m], { seed: 90 + s }), b = randn([k, n], { seed: 110 + s });
      const at = transpose(floats(a), k, m);
      const c = ops[lib].gemm_tn(a, b);
      expect(c.sizes()).toEqual([m, n]);
      expect(outsideBound(floats(c), matmul(at, floats(b), m, k, n), matmul(abs(at), abs(floats(b)), m, k, n), k)).toBeNull();
    });
  });

  it("linear(x, w, bias) = x · w + bias, and bias_grad gives column sums", () => {
    SHAPES.forEach(([m, k, n], s) => {
      const x = randn([m, k], { seed: 130 + s }), w = randn([k, n], { seed: 150 + s }), bias = randn([n], { seed: 170 + s });
      const bs = floats(bias);
      const want = matmul(floats(x), floats(w), m, k, n).map((v, i) => v + bs[i % n]);
      const bound = matmul(abs(floats(x)), abs(floats(w)), m, k, n).map((v, i) => v + Math.abs(bs[i % n]));
      expect(outsideBound(floats(ops[lib].linear(x, w, bias)), want, bound, k + 1)).toBeNull();
      expect(outsideBound(floats(ops[lib].bias_grad(x)), columnSums(floats(x), m, k), columnSums(abs(floats(x)), m, k), m)).toBeNull();
    });
  });

  it("pack_weights makes zero-padded panels of 48 columns; linear_packed(xᵀ, panels, bias) = x · w + bias, either layout out", () => {
    SHAPES.forEach(([m, k, n], s) => {
      const x = randn([m, k], { seed: 190 + s }), w = randn([k, n], { seed: 210 + s }), bias = randn([n], { seed: 230 + s });
      const packed = ops[lib].pack_weights(w);
      expect(packed.sizes()).toEqual([Math.ceil(n / 48), k, 48]);
      expect(Array.from(floats(packed))).toEqual(Array.from(packPanels(floats(w), k, n, 48)));
      const xt = tensor(transpose(floats(x), m, k), [k, m]);
      const bs = floats(bias);
      const want = matmul(floats(x), floats(w), m, k, n).map((v, i) => v + bs[i % n]);
      const bound = matmul(abs(floats(x)), abs(floats(w)), m, k, n).map((v, i) => v + Math.abs(bs[i % n]));
      const y = ops[lib].linear_packed(xt, packed, bias, 0);
      expect(y.sizes()).toEqual([m, n]);
      expect(outsideBound(floats(y), want, bound, k + 1)).toBeNull();
      const yt = ops[lib].linear_packed(xt, packed, bias, 1);
      expect(yt.sizes()).toEqual([n, m]);
      expect(outsideBound(floats(yt), Float64Array.from(transpose(Float32Array.from(want), m, n)), Float64Array.from(transpose(Float32Array.from(bound), m, n)), k + 1)).toBeNull();
    });
  });

  it("linear_packed rejects panels that do not match xᵀ and the bias, and a transposed_out other than 0 or 1", () => {
    const packed = ops[lib].pack_weights(randn([6, 50]));
    expect(() => ops[lib].linear_packed(randn([5, 3]), packed, randn([50]), 1)).toThrow(/wp must be pack_weights of a \[5, 50\] weight/);
    expect(() => ops[lib].linear_packed(randn([6, 3]), packed, randn([97]), 1)).toThrow(/float32\[2, 6, 48\]/);
    expect(() => ops[lib].linear_packed(randn([6, 3]), packed, randn([50]), 2)).toThrow(/transposed_out must be 0 or 1/);
  });

  it("handles empty operands: K = 0 gives zeros, M or N = 0 an empty result", () => {
    expect(Array.from(floats(ops[lib].gemm(randn([3, 0]), randn([0, 5]))))).toEqual(new Array(15).fill(0));
    expect(Array.from(floats(ops[lib].linear(randn([2, 0]), randn([0, 3]), randn([3], { seed: 4 }))))).toEqual([...floats(randn([3], { seed: 4 })), ...floats(randn([3], { seed: 4 }))]);
    expect(ops[lib].gemm(randn([0, 4]), randn([4, 6])).sizes()).toEqual([0, 6]);
    expect(ops[lib].gemm_tn(randn([4, 5]), randn([4, 0])).sizes()).toEqual([5, 0]);
    expect(Array.from(floats(ops[lib].bias_grad(randn([0, 3]))))).toEqual([0, 0, 0]);
  });

  it("rejects operands whose inner dimensions differ, naming both", () => {
    expect(() => ops[lib].gemm(randn([2, 3]), randn([4, 5]))).toThrow(/float32\[2, 3\] and float32\[4, 5\]/);
    expect(() => ops[lib].gemm_nt(randn([2, 3]), randn([5, 4]))).toThrow(/columns differ/);
    expect(() => ops[lib].gemm_tn(randn([2, 3]), randn([4, 3]))).toThrow(/rows differ/);
    expect(() => ops[lib].linear(randn([2, 3]), randn([3, 4]), randn([5]))).toThrow(/bias must be float32 \[4\]/);
  });
});

describe("gemm_multicore at a W3 size", () => {
  it("32 x 784 · 784 x 4096 equals the reference and the single-core result", () => {
    const [m, k, n] = [32, 784, 4096];
    const a = randn([m, k], { seed: 1 }), b = randn([k, n], { seed: 2 });
    const c = floats(ops.gemm_multicore.gemm(a, b));
    expect(outsideBound(c, matmul(floats(a), floats(b), m, k, n), matmul(abs(floats(a)), abs(floats(b)), m, k, n), k)).toBeNull();
    // Both libraries run the same tiles in the same order: the sums agree bit for bit.
    expect(Buffer.from(c.buffer).equals(Buffer.from(floats(ops.gemm_tcm.gemm(a, b)).buffer))).toBe(true);
  });
});
