// A second round of C++ kernels written from the README's "Bring your C++ kernel", docs/porting.md and
// the API reference alone (test/cpp/outsider2/*.cpp): 2-d accessors read and written as acc[i][j],
// row reductions through TCM in chunks, multicore row and element splits with remainders, int32 /
// int64 / uint8 tensors, double, int64_t and torch::Scalar parameters, torch::zeros / torch::empty
// results, tensor operations with _out forms, static lookup tables, constexpr helpers, a struct of TCM
// pointers, a lambda, and printf with many format specifiers. Each result is checked against a plain
// TypeScript reference below.
import { describe, it, expect, afterAll } from "vitest";
import path from "node:path";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { custom_op, ops, tensor, randn, shutdown, BuildError, type Tensor } from "gpsimd";
import { TEST_BUILD_DIR, captureOutput, expectGpsimdError, floats, STRICT } from "../helpers.js";

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "outsider2");
const src = (name: string) => path.join(DIR, name);
/** The 1-based line of a source's first line containing `text`. */
const lineOf = (name: string, text: string) => readFileSync(src(name), "utf8").split("\n").findIndex((l) => l.includes(text)) + 1;

const single = custom_op.load({
  name: "outsider2", compute_srcs: ["accessors.cpp", "ints.cpp", "misc.cpp"].map(src), shape_srcs: [src("shape.cpp")],
  build_directory: TEST_BUILD_DIR, ...STRICT,
});
const elements = custom_op.load({
  name: "outsider2_el", compute_srcs: [src("elements.cpp")], shape_srcs: [src("elements-shape.cpp")],
  build_directory: TEST_BUILD_DIR, ...STRICT,
});
const multi = custom_op.load({
  name: "outsider2_mc", compute_srcs: [src("multicore.cpp")], shape_srcs: [src("multicore-shape.ts")],
  build_directory: TEST_BUILD_DIR, multicore: true, ...STRICT,
});
afterAll(async () => {
  single.unload();
  elements.unload();
  multi.unload();
  await shutdown();
});

type Op = ((...a: unknown[]) => Tensor) & { async: (...a: unknown[]) => Promise<Tensor> };
const o = ops.outsider2 as unknown as Record<string, Op>;
const mc = ops.outsider2_mc as unknown as Record<string, Op>;
const el = ops.outsider2_el as unknown as Record<string, Op>;
const f32 = Math.fround;

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, rel = 1e-5): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    expect(Math.abs(got[i] - want[i]), `element ${i}: got ${got[i]}, expected ${want[i]}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(want[i])));
  }
}
/** Deterministic integers in [0, mod). */
const ints = (n: number, mod: number, seed: number) => Array.from({ length: n }, (_, i) => ((i * 2654435761 + seed * 40503) >>> 7) % mod);

describe("C++ kernels from the README alone, second round: single core", () => {
  it("matvec: accessor<float, 2> read as w[i][j], a torch::zeros result returned", () => {
    const w = randn([7, 19], { seed: 1 }), x = randn([19], { seed: 2 });
    const W = floats(w), X = floats(x);
    const want = Array.from({ length: 7 }, (_, i) => { let s = 0; for (let j = 0; j < 19; j++) s = f32(s + f32(W[i * 19 + j] * X[j])); return s; });
    const y = o.matvec(w, x);
    expect(y.sizes()).toEqual([7]);
    expectClose(floats(y), want);
  });

  it("transpose2d: a 2-d accessor on the destination written as o[j][i]", () => {
    const x = randn([5, 9], { seed: 3 });
    const X = floats(x);
    const y = o.transpose2d(x);
    expect(y.sizes()).toEqual([9, 5]);
    expect(Array.from(floats(y))).toEqual(Array.from({ length: 45 }, (_, k) => X[(k % 5) * 9 + Math.floor(k / 5)]));
  });

  it("cumsum_rows_i64: accessor<int64_t, 2>, values beyond 2^53 exact", () => {
    const vals = ints(4 * 6, 1000, 5).map((v, i) => BigInt(v - 500) * (i % 3 === 0 ? 2n ** 50n : 1n));
    const x = tensor(BigInt64Array.from(vals), [4, 6]);
    const want: bigint[] = [];
    for (let r = 0; r < 4; r++) { let s = 0n; for (let c = 0; c < 6; c++) { s += vals[r * 6 + c]; want.push(s); } }
    expect(Array.from(o.cumsum_rows_i64(x).data() as BigInt64Array)).toEqual(want);
  });

  it("row_max: rows longer than the TCM chunk, std::max from -infinity", () => {
    const x = randn([6, 700], { seed: 4 });
    const X = floats(x);
    const want = Array.from({ length: 6 }, (_, r) => Math.max(...X.subarray(r * 700, (r + 1) * 700)));
    expect(Array.from(floats(o.row_max(x)))).toEqual(want);
  });

  it("saturate_affine: int32 tensor, int64_t and double scalars, std::numeric_limits saturation", () => {
    const data = Int32Array.from([0, 1, -1, 1000, -1000, 2147483647, -2147483648, 123456, -7, 42]);
    const x = tensor(data, [10]);
    const ref = (k: bigint, b: number) => Array.from(data, (v) => {
      const r = BigInt(v) * k + BigInt(Math.sign(b) * Math.round(Math.abs(b)));
      return Number(r > 2147483647n ? 2147483647n : r < -2147483648n ? -2147483648n : r);
    });
    expect(Array.from(o.saturate_affine(x, 3, 2.5).data() as Int32Array)).toEqual(ref(3n, 2.5));
    expect(Array.from(o.saturate_affine(x, -5000, -0.5).data() as Int32Array)).toEqual(ref(-5000n, -0.5));
    // An int64_t beyond 2^53, given as a bigint, reaches the kernel exactly: (2^53 + 1) * 1 - 2^53 is 1, not 0.
    const small = tensor(Int32Array.from([1, 0, 2, -1]));
    expect(Array.from(o.saturate_affine(small, 2n ** 53n + 1n, -(2 ** 53)).data() as Int32Array)).toEqual([1, -2147483648, 2147483647, -2147483648]);
  });

  it("histogram_u8: a uint8 tensor into int64 counts kept in a memset TCM buffer", () => {
    const data = Uint8Array.from(ints(2500, 256, 6));
    const want = new Array<bigint>(256).fill(0n);
    for (const v of data) want[v]++;
    expect(Array.from(o.histogram_u8(tensor(data, [50, 50])).data() as BigInt64Array)).toEqual(want);
  });

  it("nibble_lut: static const tables, a constexpr recursion, uint8 read and float write streams", () => {
    const table = [0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2, 3, -3, 4, -4, 6, -6, 8];
    const pop = (v: number) => (v & 1) + ((v >> 1) & 1) + ((v >> 2) & 1) + ((v >> 3) & 1);
    const data = Uint8Array.from(Array.from({ length: 300 }, (_, i) => (i * 37) & 255));
    const want = Array.from(data, (v) => f32(table[v & 15] + f32(pop(v >> 4) * 0.3)));
    expect(Array.from(floats(o.nibble_lut(tensor(data), 0.3)))).toEqual(want);
  });

  it("centre_report: printf with %zu %.3f %8.4f %e %u %#x %lld %s %c %5.1f%% %-5d %05d %g", () => {
    const vals = [1.5, -2.25, 3, -0.5, 4.75, -1, 0.125, 2];
    const x = tensor(Float32Array.from(vals));
    const { result, printf } = captureOutput(() => o.centre_report(x));
    const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
    expectClose(floats(result), vals.map((v) => f32(v - mean)));
    const text = printf.join("");
    expect(mean).toBe(0.953125);
    expect(text).toContain("n=8 min=-2.250 max=  4.7500 mean=9.531250e-01\n");
    expect(text).toContain(`neg=3 hex=0x8 big=${8n * 1000000007n} tag=rows/Z pct= 37.5% pad=[8    |-0008] sci=1.5e-07\n`);
  });

  it("blend_ops: add_out with alpha, clamp_out in place, mul_out, sub_out, div_out, exp, abs", () => {
    const a = randn([4, 33], { seed: 7 }), b = randn([4, 33], { seed: 8 });
    const A = floats(a), B = floats(b);
    const want = Array.from(A, (av, i) => {
      const c = Math.min(1, Math.max(-1, f32(av + f32(f32(0.75) * B[i]))));
      return f32(Math.abs(f32(f32(c * c) - f32(0.5 * f32(Math.exp(av))))) / 2);
    });
    expectClose(floats(o.blend_ops(a, b, 0.75)), want);
  });

  it("hypot_scaled: a struct of TCM pointers, a lambda, templates, a torch::Scalar and a double", () => {
    const x = randn([1000], { seed: 9 }), y = randn([1000], { seed: 10 });
    const X = floats(x), Y = floats(y);
    const want = Array.from(X, (xv, i) => f32(Math.sqrt(f32(f32(f32(2 * xv) ** 2) + f32(f32(f32(-0.5) * Y[i]) ** 2)))));
    expectClose(floats(o.hypot_scaled(x, y, 2, -0.5)), want);
  });
});

describe("C++ kernels from the README alone, second round: multicore", () => {
  const rsqrt = (X: Float32Array, rows: number, cols: number, eps: number) => Array.from({ length: rows }, (_, r) => {
    let ss = 0;
    for (let c = 0; c < cols; c++) ss += X[r * cols + c] * X[r * cols + c];
    return f32(1 / Math.sqrt(ss / cols + eps));
  });

  for (const rows of [3, 8, 13, 200]) {
    it(`row_rsqrt_ms: ${rows} rows split over 8 cores (the first rows % 8 take one more), TCM chunks, batched results`, () => {
      const x = randn([rows, 1100], { seed: rows });
      expectClose(floats(mc.row_rsqrt_ms(x, 1e-6)), rsqrt(floats(x), rows, 1100, 1e-6));
    });
  }

  it("row_rsqrt_ms through .async", async () => {
    const x = randn([21, 600], { seed: 21 });
    expectClose(floats(await mc.row_rsqrt_ms.async(x, 0.5)), rsqrt(floats(x), 21, 600, 0.5));
  });

  for (const rows of [5, 17]) {
    it(`scale_add_row: ${rows} rows by ceiling division, idle cores return early`, () => {
      const x = randn([rows, 40], { seed: 30 + rows });
      const X = floats(x);
      expect(Array.from(floats(mc.scale_add_row(x, -1.5)))).toEqual(Array.from(X, (v, k) => f32(f32(v * -1.5) + Math.floor(k / 40))));
    });
  }

  it("abs_widen: int32 -> int64 |x|, the remainder to the last core, INT32_MIN included", () => {
    const data = Int32Array.from(ints(3001, 2000, 11).map((v) => v - 1000));
    data[5] = -2147483648;
    data[3000] = 2147483647;
    const got = mc.abs_widen(tensor(data)).data() as BigInt64Array;
    expect(Array.from(got)).toEqual(Array.from(data, (v) => BigInt(Math.abs(v))));
  });
});

// An accessor element stands for the tensor's element, as PyTorch's T& does: the uses PyTorch code makes of it
// (std::swap, std::min/std::max with a T, ++ and compound operators, printf, acc.size(d)) work, and the one that
// would silently differ (auto x = acc[i], a copy of the value in PyTorch, a reference here) is a compile error.
describe("accessor elements used as PyTorch's T&", () => {
  it("flip_rows: std::swap(o[r][i], o[r][j]) and a float temporary swap, bounds from acc.size(0) / acc.size(1)", () => {
    const x = randn([4, 7], { seed: 40 });
    const X = floats(x);
    expect(Array.from(floats(el.flip_rows(x)))).toEqual(Array.from(X, (_, k) => X[Math.floor(k / 7) * 7 + 6 - (k % 7)]));
  });

  it("count_u8: counts[in[i]]++ on an int64 accessor", () => {
    const data = Uint8Array.from(ints(777, 256, 41));
    const want = new Array<bigint>(256).fill(0n);
    for (const v of data) want[v]++;
    expect(Array.from(el.count_u8(tensor(data)).data() as BigInt64Array)).toEqual(want);
  });

  it("relu_print: std::max(in[i], 0.0f), and printf of accessor elements", () => {
    const x = tensor([-1.5, 2.25, -0.125, 4]);
    const { result, printf } = captureOutput(() => el.relu_print(x));
    expect(Array.from(floats(result))).toEqual([0, 2.25, 0, 4]);
    expect(printf.join("")).toContain("x[0]=-1.50 relu=0\nx[1]=2.25 relu=2.25\nx[2]=-0.12 relu=0\n");
  });

  it("minmax_matvec: std::min / std::max of a 2-d accessor's element and a 1-d one", () => {
    const w = randn([5, 11], { seed: 42 }), x = randn([11], { seed: 43 });
    const W = floats(w), X = floats(x);
    const want = Array.from({ length: 5 }, (_, i) => {
      let s = 0;
      for (let j = 0; j < 11; j++) s = f32(s + f32(Math.min(W[i * 11 + j], X[j]) - Math.max(W[i * 11 + j], X[j])));
      return s;
    });
    expect(Array.from(floats(el.minmax_matvec(w, x)))).toEqual(want);
  });

  it("bits_i32: <<= ^= %= -- ++ |= &= on int32 elements", () => {
    const data = Int32Array.from([0, 1, -1, 77, -300, 123456, 2 ** 28, -(2 ** 28)]);
    const want = Array.from(data, (v) => {
      let r = ((((v << 2) ^ 0x55) % 1000) - 1 + 2) | 0;
      r = (r | 0x100) & 0x7ff;
      return r;
    });
    expect(Array.from(el.bits_i32(tensor(data)).data() as Int32Array)).toEqual(want);
  });

  it("half_sum: float16 elements summed as float; printf of a Half element and a c10::Half value", () => {
    const x = tensor(Float32Array.from([0.5, -1.25, 2, 0.1]), undefined, "float16");
    const { result, printf } = captureOutput(() => el.half_sum(x));
    const halves = Array.from(x.data() as ArrayLike<number>);
    expect(halves[3]).not.toBe(f32(0.1)); // 0.1 is rounded to float16
    expect(Array.from(floats(result))).toEqual([halves.reduce((a, b) => f32(a + b), 0)]);
    expect(printf.join("")).toContain("first=0.500 second=-1.250\n");
  });

  it("bf16_update: += -= *= /= on c10::BFloat16 values in TCM, each rounded to bfloat16 as c10's operators do", () => {
    const bits = new Uint32Array(1), f = new Float32Array(bits.buffer);
    const bf16 = (v: number) => { // float32 to bfloat16, to nearest, ties to even
      f[0] = v;
      bits[0] = (bits[0] + 0x7fff + ((bits[0] >> 16) & 1)) & 0xffff0000;
      return f[0];
    };
    const x = tensor(Float32Array.from([1, -2, 3.3, 0.7, 100.25, -0.001]), undefined, "bfloat16");
    const want = Array.from(x.data() as ArrayLike<number>, (v) => {
      let b = bf16(f32(v + bf16(0.1)));
      b = bf16(f32(b * 3));
      b = bf16(f32(b - 0.5));
      return bf16(f32(b / 7));
    });
    expect(Array.from(el.bf16_update(x).data() as ArrayLike<number>)).toEqual(want);
  });

  it("auto tmp = o[i] (a copy of the value in PyTorch) is a BuildError naming the line and what to write instead", () => {
    const line = lineOf("element-copy.cpp", "auto tmp = o[i];");
    expect(line).toBeGreaterThan(0);
    expectGpsimdError(() => custom_op.load({
      name: "outsider2_copy", compute_srcs: [src("element-copy.cpp")], shape_srcs: [src("element-copy-shape.ts")],
      build_directory: TEST_BUILD_DIR,
    }), BuildError, "E_BUILD", [`element-copy.cpp:${line}:`, "not a copy of its value", "float x = acc[i]"]);
  });
});

// Shape functions run on the host with libtorch on the device's side of things: they use std::vector and the
// TensorOptions spellings freely, and kernels may too.
describe("libtorch spellings: std::vector in shape.cpp, TensorOptions, options(), sizes().vec(), the _like factories", () => {
  it("like_factories: a kernel and its C++ shape function written with them", () => {
    const x = randn([2, 3], { seed: 50 });
    const y = el.like_factories(x);
    expect(y.sizes()).toEqual([2, 1, 3]);
    expect(Array.from(floats(y))).toEqual(new Array(6).fill((1 + 2) * 4 + 3));
  });

  it("big_shape_fn: a shape function's std::vector is freed with its call (70 calls of 64 MB each outgrow 4 GiB otherwise)", () => {
    const x = tensor([1, 2, 3]);
    for (let i = 0; i < 70; i++) expect(Array.from(floats(el.big_shape_fn(x)))).toEqual([1, 1, 1]);
  });
});
