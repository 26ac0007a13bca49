// The NKI tile engine (nki/machine/engine.ts over assembly/nki/) against plain TypeScript references and
// numpy's results (fixtures/engine-numpy.json, made by fixtures/make_engine_fixtures.py): bit for bit for
// + - * / max min, comparisons, conversions and integer arithmetic; transcendentals within 1 float32 ulp of
// a double-precision reference; init maps; strides (broadcast, negative, non-unit); matmul.
import { describe, it, expect, beforeAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tileEngine, EngineDType as D, type Operand, type TileEngine, type BinaryOp } from "../../nki/machine/engine.js";
import { GpsimdError } from "../../host/checks/errors.js";
import { hbm } from "../../host/device/hbm.js";
import { operand, get, getRaw, set, fillWith, indices, initByte, markAllWritten, rng, ulpsF32, isFloat, expectElements } from "./engine-helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const numpy = JSON.parse(readFileSync(path.join(here, "fixtures", "engine-numpy.json"), "utf8")) as {
  f32: { a: number[]; b: number[]; results: Record<string, number[]> };
  i32: { a: number[]; b: number[]; b_nonzero: number[]; shift: number[]; results: Record<string, number[]> };
  i8: { a: number[]; b: number[]; add: number[]; multiply: number[] };
  erf: { x: number[]; erf: number[]; erfc_neg_half_sqrt2: number[] };
};
const fromBits = (b: number) => new Float32Array(new Uint32Array([b]).buffer)[0]!;

let e: TileEngine;
beforeAll(() => { e = tileEngine(); });

describe("binary operations match numpy float32 bit for bit", () => {
  const n = numpy.f32.a.length;
  for (const op of Object.keys(numpy.f32.results)) {
    it(op, () => {
      const a = operand(D.F32, [n]), b = operand(D.F32, [n]), out = operand(D.F32, [n]);
      fillWith(a, (_, k) => fromBits(numpy.f32.a[k]!));
      fillWith(b, (_, k) => fromBits(numpy.f32.b[k]!));
      const bb = op === "power" ? operand(D.F32, [n]) : b;
      if (op === "power") fillWith(bb, (_, k) => fromBits(numpy.f32.b[k]!));
      const aa = op === "power" ? operand(D.F32, [n]) : a;
      if (op === "power") fillWith(aa, (_, k) => Math.abs(fromBits(numpy.f32.a[k]!)));
      expect(e.binary(op as BinaryOp, out, aa, bb)).toBeNull();
      const want = numpy.f32.results[op]!;
      for (let k = 0; k < n; k++) {
        const w = fromBits(want[k]!), g = get(out, [k]);
        if (op === "power") expect(ulpsF32(g, w), `power at ${k}`).toBeLessThanOrEqual(1);
        else if (Number.isNaN(w)) expect(g, `${op} at ${k}`).toBeNaN();
        else expect(getRaw(out, [k]), `${op} at ${k}: ${fromBits(numpy.f32.a[k]!)}, ${fromBits(numpy.f32.b[k]!)}`).toBe(want[k]);
      }
    });
  }

  it("comparisons and logical operations give 1 or 0 in the output dtype", () => {
    const vals = [0, -0, 1, -1, 2.5, NaN, Infinity, 2.5];
    const a = operand(D.F32, [8, 8]), b = operand(D.F32, [8, 8]);
    fillWith(a, ([i]) => vals[i!]!);
    fillWith(b, ([, j]) => vals[j!]!);
    const refs: Record<string, (x: number, y: number) => boolean> = {
      equal: (x, y) => x === y, not_equal: (x, y) => x !== y, greater: (x, y) => x > y, greater_equal: (x, y) => x >= y,
      less: (x, y) => x < y, less_equal: (x, y) => x <= y, logical_and: (x, y) => x !== 0 && y !== 0,
      logical_or: (x, y) => x !== 0 || y !== 0, logical_xor: (x, y) => (x !== 0) !== (y !== 0),
    };
    for (const [op, f] of Object.entries(refs)) {
      for (const dtype of [D.F32, D.BF16, D.I32, D.U8]) {
        const out = operand(dtype, [8, 8]);
        e.binary(op as BinaryOp, out, a, b);
        expectElements(out, ([i, j]) => (f(vals[i!]!, vals[j!]!) ? 1 : 0));
      }
    }
  });

  it("abs_max and abs_min keep the sign of the operand they pick (y on a tie), rsub and rdivide reverse", () => {
    const r = rng(3);
    const a = operand(D.F32, [5, 9]), b = operand(D.F32, [5, 9]), out = operand(D.F32, [5, 9]);
    fillWith(a, () => r(10)); fillWith(b, () => r(10));
    set(a, [0, 0], 1); set(b, [0, 0], -1);
    e.binary("abs_max", out, a, b);
    expectElements(out, (i) => (Math.abs(get(a, i)) > Math.abs(get(b, i)) ? get(a, i) : get(b, i)));
    expect(get(out, [0, 0])).toBe(-1);
    e.binary("abs_min", out, a, b);
    expectElements(out, (i) => (Math.abs(get(a, i)) < Math.abs(get(b, i)) ? get(a, i) : get(b, i)));
    const ia = operand(D.I32, [3]), io = operand(D.I32, [3]);
    fillWith(ia, (_, k) => [-5, 3, -2147483648][k]!);
    e.binary("abs_max", io, ia, 4);
    expectElements(io, ([k]) => [-5, 4, -2147483648][k!]!);
    e.binary("rsub", out, a, b);
    expectElements(out, (i) => get(b, i) - get(a, i));
    e.binary("rdivide", out, a, b);
    expectElements(out, (i) => get(b, i) / get(a, i));
  });
});

describe("float32/bfloat16 rows (the SIMD paths) agree bit for bit with the reference", () => {
  const r = rng(42);
  const specials = [NaN, Infinity, -Infinity, 0, -0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.4e38, -1e-40, 2 ** -130];
  const ops: [BinaryOp, (x: number, y: number) => number][] = [
    ["add", (x, y) => x + y], ["subtract", (x, y) => x - y], ["multiply", (x, y) => x * y], ["divide", (x, y) => x / y],
    ["maximum", (x, y) => (x >= y || Number.isNaN(x) ? x : y)], ["minimum", (x, y) => (x <= y || Number.isNaN(x) ? x : y)],
  ];
  for (const [o, a, b] of [[D.BF16, D.BF16, D.BF16], [D.BF16, D.F32, D.F32], [D.F32, D.BF16, D.F32], [D.BF16, D.F32, D.BF16]] as const) {
    it(`${D[a]} op ${D[b]} -> ${D[o]}, rows of 133 (SIMD body and tail), a row, a column and an immediate as b`, () => {
      const shape = [3, 133];
      const x = operand(a, shape), y = operand(b, shape), col = operand(b, [3, 1]), out = operand(o, shape);
      fillWith(x, (_, k) => (k < specials.length ? specials[k]! : r(100)));
      fillWith(y, (_, k) => (k >= 20 && k < 20 + specials.length ? specials[k - 20]! : r(3)));
      fillWith(col, () => r(5));
      for (const [op, f] of ops) {
        e.binary(op, out, x, y);
        expectElements(out, (i) => f(get(x, i), get(y, i)));
        e.binary(op, out, x, col);
        expectElements(out, (i) => f(get(x, i), get(col, [i[0]!, 0])));
        e.tensorScalar(out, x, op, 0.3, "multiply", col);
        expectElements(out, (i) => Math.fround(f(get(x, i), Math.fround(0.3))) * get(col, [i[0]!, 0]));
      }
    });
  }
});

describe("integer arithmetic is exact and wraps to the output dtype", () => {
  const n = numpy.i32.a.length;
  for (const op of Object.keys(numpy.i32.results)) {
    it(`int32 ${op} (numpy)`, () => {
      const a = operand(D.I32, [n]), b = operand(D.I32, [n]), out = operand(D.I32, [n]);
      const bs = op === "left_shift" || op === "right_shift" ? numpy.i32.shift : ["mod", "fmod", "floor_divide"].includes(op) ? numpy.i32.b_nonzero : numpy.i32.b;
      fillWith(a, (_, k) => numpy.i32.a[k]!);
      fillWith(b, (_, k) => bs[k]!);
      e.binary(op as BinaryOp, out, a, b);
      expectElements(out, ([k]) => numpy.i32.results[op]![k!]!);
    });
  }

  it("int8 add and multiply wrap as numpy's", () => {
    const n8 = numpy.i8.a.length;
    const a = operand(D.I8, [n8]), b = operand(D.I8, [n8]), out = operand(D.I8, [n8]);
    fillWith(a, (_, k) => numpy.i8.a[k]!); fillWith(b, (_, k) => numpy.i8.b[k]!);
    e.binary("add", out, a, b);
    expectElements(out, ([k]) => numpy.i8.add[k!]!);
    e.binary("multiply", out, a, b);
    expectElements(out, ([k]) => numpy.i8.multiply[k!]!);
  });

  it("int32 inputs into an int64 output keep the exact product; divide is true division", () => {
    const a = operand(D.I32, [4]), b = operand(D.I32, [4]);
    fillWith(a, (_, k) => [2147483647, -2147483648, 7, -7][k]!);
    fillWith(b, (_, k) => [65536, 3, 2, 2][k]!);
    const wide = operand(D.I64, [4]);
    e.binary("multiply", wide, a, b);
    expectElements(wide, ([k]) => [2147483647 * 65536, -2147483648 * 3, 14, -14][k!]!);
    const q = operand(D.F32, [4]);
    e.binary("divide", q, a, b);
    expectElements(q, ([k]) => [2147483647 / 65536, -2147483648 / 3, 3.5, -3.5][k!]!);
    const qi = operand(D.I32, [4]);
    e.binary("divide", qi, a, b); // true division, truncated toward zero into int32
    expectElements(qi, ([k]) => [32767, -715827882, 3, -3][k!]!);
  });

  it("a float scalar with an integer tile computes in float; an integer scalar stays integral", () => {
    const a = operand(D.I32, [3]);
    fillWith(a, (_, k) => [5, -5, 2147483647][k]!);
    const f = operand(D.F32, [3]);
    e.binary("multiply", f, a, 0.5);
    expectElements(f, ([k]) => [2.5, -2.5, 2147483647 * 0.5][k!]!);
    const i = operand(D.I32, [3]);
    e.binary("add", i, a, 1);
    expectElements(i, ([k]) => [6, -4, -2147483648][k!]!);
    e.binary("multiply", f, a, 1e30); // an integral number beyond 2^53 is a float immediate
    expectElements(f, ([k]) => [5, -5, 2147483647][k!]! * Math.fround(1e30));
    e.fill(f, 1e300);
    expectElements(f, () => Infinity);
  });
});

describe("conversions", () => {
  const values = [0, -0, 1, -1.5, 3.14159, 1e-40, 65519, 65520, 1e6, -3e38, Infinity, -Infinity, NaN, 1.00390625, 1.005859375, 2 ** -25, 300.7, -129.9];
  const pairs: [D, D][] = [[D.F32, D.BF16], [D.F32, D.F16], [D.BF16, D.F32], [D.F16, D.F32], [D.F32, D.I32], [D.F32, D.I8], [D.F32, D.U8],
    [D.BF16, D.F16], [D.I32, D.F32], [D.I32, D.BF16], [D.I8, D.I32], [D.U8, D.I8], [D.I16, D.U16], [D.F32, D.F64], [D.F64, D.F32], [D.U32, D.F32], [D.I64, D.I32]];
  for (const [from, to] of pairs) {
    it(`${D[from]} -> ${D[to]}`, () => {
      const a = operand(from, [values.length]), out = operand(to, [values.length]);
      fillWith(a, (_, k) => (isFloat(from) ? values[k]! : [0, 0, 1, -1, 3, 0, 127, -128, 200, -300, 70000, -70000, 0, 1, 1, 0, 300, -129][k]!));
      e.copy(out, a);
      expectElements(out, (i) => get(a, i));
    });
  }

  it("contiguous copies of one dtype, apart or overlapping (as memmove)", () => {
    for (const dtype of [D.F32, D.BF16, D.I8, D.F64]) {
      const a = operand(dtype, [3, 37]), out = operand(dtype, [3, 37]);
      fillWith(a, (_, k) => k - 50);
      e.copy(out, a);
      expectElements(out, (i) => get(a, i));
      const n = 111, buf = operand(dtype, [n]);
      fillWith(buf, (_, k) => k);
      const view = (start: number, len: number): Operand => ({ ...buf, addr: buf.addr + start * [4, 2, 2, 4, 1, 8, 2, 1, 4, 2, 8][dtype]!, shape: [len] });
      e.copy(view(5, 100), view(0, 100)); // forwards over itself
      expectElements(buf, ([k]) => (k! < 5 || k! >= 105 ? k! : k! - 5));
    }
  });

  it("contiguous f32 -> bf16 -> f32 rows (the fast paths) round to nearest even", () => {
    const r = rng(11);
    const a = operand(D.F32, [64, 130]), h = operand(D.BF16, [64, 130]), back = operand(D.F32, [64, 130]);
    fillWith(a, () => r(1000));
    e.copy(h, a);
    expectElements(h, (i) => get(a, i));
    e.copy(back, h);
    expectElements(back, (i) => get(h, i));
  });
});

describe("strides", () => {
  it("broadcast (stride 0), negative and non-unit strides, and scalar immediates on either side", () => {
    const r = rng(5);
    const shape = [6, 7, 5];
    const a = operand(D.F32, shape, { reversed: true });
    const b = operand(D.BF16, shape, { gap: 3 });
    const row = operand(D.F32, [6, 1, 1]);
    fillWith(a, () => r(4)); fillWith(b, () => r(4)); fillWith(row, () => r(4));
    const out = operand(D.F32, shape, { gap: 2 });
    e.binary("subtract", out, a, b);
    expectElements(out, (i) => get(a, i) - get(b, i));
    e.binary("multiply", out, a, row);
    expectElements(out, (i) => get(a, i) * get(row, [i[0]!, 0, 0]));
    e.binary("divide", out, 1.5, a);
    expectElements(out, (i) => 1.5 / get(a, i));
    e.binary("maximum", out, a, 0.25);
    expectElements(out, (i) => Math.max(get(a, i), 0.25));
    const bcast: Operand = { ...row, shape, strides: [1, 0, 0] };
    const out16 = operand(D.BF16, shape, { reversed: true });
    e.binary("add", out16, bcast, b);
    expectElements(out16, (i) => get(row, [i[0]!, 0, 0]) + get(b, i));
  });

  it("a 6-D walk whose dimensions do not merge, and an in-place update", () => {
    const shape = [2, 3, 2, 3, 2, 3];
    const a = operand(D.F32, shape, { gap: 2 }), out = operand(D.F32, shape, { reversed: true });
    fillWith(a, (_, k) => k);
    e.unary("neg", out, a);
    expectElements(out, (i) => -get(a, i));
    e.binary("add", a, a, a);
    expectElements(a, (i) => -2 * get(out, i)); // a + a where out = -a
  });
});

describe("unary operations", () => {
  const xs = numpy.erf.x;
  const refs: Record<string, (x: number) => number> = {
    exp: Math.exp, log: (x) => Math.log(x), sqrt: (x) => Math.sqrt(x), rsqrt: (x) => 1 / Math.sqrt(x), reciprocal: (x) => 1 / x,
    sin: Math.sin, cos: Math.cos, tan: Math.tan, tanh: Math.tanh, arctan: Math.atan, sigmoid: (x) => 1 / (1 + Math.exp(-x)),
    relu: (x) => Math.max(x, 0), gelu_apprx_tanh: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))),
    silu: (x) => x / (1 + Math.exp(-x)), silu_dx: (x) => { const s = 1 / (1 + Math.exp(-x)); return s * (1 + x * (1 - s)); },
    softplus: (x) => Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x))), mish: (x) => x * Math.tanh(Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)))),
    erf_dx: (x) => (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x), softsign: (x) => x / (1 + Math.abs(x)),
    gelu_apprx_sigmoid: (x) => x / (1 + Math.exp(-1.702 * x)),
    gelu_apprx_sigmoid_dx: (x) => { const s = 1 / (1 + Math.exp(-1.702 * x)); return s + 1.702 * x * s * (1 - s); },
    neg: (x) => -x, abs: Math.abs, sign: Math.sign, square: (x) => x * x, floor: Math.floor, ceil: Math.ceil, trunc: Math.trunc,
    logical_not: (x) => (x === 0 ? 1 : 0),
    erf: (x) => numpy.erf.erf[xs.indexOf(x)]!,
    gelu: (x) => 0.5 * x * numpy.erf.erfc_neg_half_sqrt2[xs.indexOf(x)]!,
    gelu_dx: (x) => 0.5 * numpy.erf.erfc_neg_half_sqrt2[xs.indexOf(x)]! + x * Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI),
  };
  for (const [op, f] of Object.entries(refs)) {
    it(`${op} within 1 ulp of a double-precision reference`, () => {
      const a = operand(D.F32, [xs.length]), out = operand(D.F32, [xs.length]);
      fillWith(a, (_, k) => xs[k]!);
      e.unary(op as never, out, a);
      for (let k = 0; k < xs.length; k++) {
        const x = get(a, [k]);
        expect(ulpsF32(get(out, [k]), Math.fround(f(x))), `${op}(${x})`).toBeLessThanOrEqual(1);
      }
    });
  }

  it("activation: f(a * scale + bias) with a per-partition bias, each step rounded to float32", () => {
    const r = rng(8);
    const a = operand(D.BF16, [4, 33]), bias = operand(D.F32, [4, 1]), out = operand(D.F32, [4, 33]);
    fillWith(a, () => r(3)); fillWith(bias, () => r(1));
    e.unary("exp", out, a, { scale: 0.7, bias });
    for (const i of indices(out.shape)) {
      const t = Math.fround(Math.fround(get(a, i) * Math.fround(0.7)) + get(bias, [i[0]!, 0])); // the scale is a float32 immediate
      expect(ulpsF32(get(out, i), Math.fround(Math.exp(t)))).toBeLessThanOrEqual(1);
    }
    e.unary("copy", out, a, { bias: 2 });
    expectElements(out, (i) => Math.fround(get(a, i) + 2));
    const scale = operand(D.BF16, [4, 1], { init: true });
    fillWith(scale, () => r(2));
    expect(e.unary("tanh", out, a, { scale, bias: 0.5 })).toEqual({ operand: 3, index: [0, 0] }); // a, bias, alpha, scale
    markAllWritten(scale);
    expect(e.unary("tanh", out, a, { scale, bias: 0.5 })).toBeNull();
    for (const i of indices(out.shape)) {
      const t = Math.fround(Math.fround(get(a, i) * get(scale, [i[0]!, 0])) + 0.5);
      expect(ulpsF32(get(out, i), Math.fround(Math.tanh(t)))).toBeLessThanOrEqual(1);
    }
  });

  it("prelu with a scalar and a per-partition alpha", () => {
    const a = operand(D.F32, [3, 4]), alpha = operand(D.F32, [3, 1]), out = operand(D.F32, [3, 4]);
    fillWith(a, (_, k) => k - 5.5); fillWith(alpha, ([p]) => [0.1, 0.2, 0.3][p!]!);
    e.unary("prelu", out, a, { alpha: 0.25 });
    expectElements(out, (i) => (get(a, i) > 0 ? get(a, i) : 0.25 * get(a, i)));
    e.unary("prelu", out, a, { alpha, bias: 1 });
    expectElements(out, (i) => { const t = get(a, i) + 1; return t > 0 ? t : get(alpha, [i[0]!, 0]) * t; });
    expect(() => e.unary("prelu", out, a)).toThrow(/alpha/);
  });

  it("integer unary operations stay exact", () => {
    const a = operand(D.I32, [5]), out = operand(D.I32, [5]);
    fillWith(a, (_, k) => [-2147483648, -3, 0, 4, 2147483647][k]!);
    e.unary("abs", out, a);
    expectElements(out, ([k]) => [-2147483648, 3, 0, 4, 2147483647][k!]!);
    e.unary("bitwise_not", out, a);
    expectElements(out, ([k]) => [2147483647, 2, -1, -5, -2147483648][k!]!);
    e.unary("square", out, a);
    expectElements(out, ([k]) => [0, 9, 0, 16, 1][k!]!);
  });
});

describe("tensor_scalar, select, fill, iota, transpose", () => {
  it("tensor_scalar with an immediate and a per-partition operand, the intermediate rounded to float32", () => {
    const r = rng(21);
    const a = operand(D.F32, [8, 20]), s1 = operand(D.F32, [8, 1]), out = operand(D.BF16, [8, 20]);
    fillWith(a, () => r(5)); fillWith(s1, () => r(5));
    e.tensorScalar(out, a, "multiply", 1.1, "add", s1);
    expectElements(out, (i) => Math.fround(get(a, i) * Math.fround(1.1)) + get(s1, [i[0]!, 0]));
    e.tensorScalar(out, a, "subtract", s1);
    expectElements(out, (i) => get(a, i) - get(s1, [i[0]!, 0]));
  });

  it("select picks a where cond is nonzero (NaN counts), else b", () => {
    const cond = operand(D.F32, [6]), a = operand(D.I32, [6]), out = operand(D.I32, [6]);
    fillWith(cond, (_, k) => [0, 1, -0, NaN, 0.5, 0][k]!);
    fillWith(a, (_, k) => 100 + k);
    e.select(out, cond, a, -7);
    expectElements(out, ([k]) => ([0, 1, 0, 1, 1, 0][k!] ? 100 + k! : -7));
  });

  it("fill and iota in several dtypes", () => {
    for (const dtype of [D.F32, D.BF16, D.I32, D.I8, D.F16]) {
      const out = operand(dtype, [3, 4, 5], { reversed: true });
      e.fill(out, 2.75);
      expectElements(out, () => 2.75);
      e.affine(out, 7, [-2, 100, 1]);
      expectElements(out, ([p, q, s]) => 7 - 2 * p! + 100 * q! + s!);
    }
  });

  it("transpose", () => {
    const a = operand(D.BF16, [5, 9], { gap: 2 }), out = operand(D.F32, [9, 5]);
    fillWith(a, (_, k) => k * 0.5);
    e.transpose(out, a);
    expectElements(out, ([j, i]) => get(a, [i!, j!]));
  });
});

describe("reductions", () => {
  const r = rng(99);
  const shape = [4, 6, 10];
  const a = operand(D.F32, [4, 6, 10], { gap: 2 });
  beforeAll(() => fillWith(a, () => r(3)));
  const refs: Record<string, (v: number[]) => number> = {
    add: (v) => v.reduce((x, y) => x + y, 0), max: (v) => Math.max(...v), min: (v) => Math.min(...v),
    multiply: (v) => v.reduce((x, y) => x * y, 1), mean: (v) => v.reduce((x, y) => x + y, 0) / v.length,
    abs_max: (v) => v.reduce((x, y) => (Math.abs(x) > Math.abs(y) ? x : y), 0),
    abs_min: (v) => v.reduce((x, y) => (Math.abs(x) < Math.abs(y) ? x : y), Infinity), logical_and: (v) => (v.every((x) => x !== 0) ? 1 : 0),
    logical_or: (v) => (v.some((x) => x !== 0) ? 1 : 0),
  };
  for (const [op, f] of Object.entries(refs)) {
    for (const axes of [[2], [-1, 0], [1], [0, 1, 2]]) {
      it(`${op} over axes [${axes.join(", ")}]`, () => {
        const ax = axes.map((x) => (x < 0 ? x + 3 : x));
        const outShape = shape.map((n, d) => (ax.includes(d) ? 1 : n));
        const out = operand(D.F32, outShape, { reversed: true });
        expect(e.reduce(op as never, out, a, axes)).toBeNull();
        expectElements(out, (oi) => {
          const v: number[] = [];
          for (const i of indices(shape)) if (i.every((x, d) => ax.includes(d) || x === oi[d])) v.push(get(a, i));
          return f(v);
        });
      });
    }
  }

  it("integer reductions are exact, and an output without the reduced axes is accepted", () => {
    const x = operand(D.I32, [3, 4]);
    fillWith(x, (_, k) => (k % 2 ? 2147483647 : 5 + k));
    const out = operand(D.I64, [3]);
    e.reduce("add", out, x, [1]);
    expectElements(out, ([p]) => [0, 1, 2, 3].reduce((s, q) => s + get(x, [p!, q]), 0));
    const bits = operand(D.I32, [3]);
    e.reduce("bitwise_or", bits, x, [1]);
    expectElements(bits, ([p]) => [0, 1, 2, 3].reduce((s, q) => s | get(x, [p!, q]), 0));
    const signed = operand(D.I8, [2, 3]);
    fillWith(signed, (_, k) => [-7, 3, 7, 2, -1, -2][k]!);
    const am = operand(D.I32, [2]), an = operand(D.I32, [2]);
    e.reduce("abs_max", am, signed, [1]);
    e.reduce("abs_min", an, signed, [1]);
    expectElements(am, ([p]) => [7, -2][p!]!);
    expectElements(an, ([p]) => [3, -1][p!]!);
  });
});

describe("matmul", () => {
  function reference(st: Operand, mv: Operand, m: number, n: number): number {
    let s = 0;
    for (let k = 0; k < st.shape[0]!; k++) s += get(st, [k, m]) * get(mv, [k, n]);
    return s;
  }
  it("f32 and bf16 operands with odd sizes, strided and accumulated, within 1e-5 relative of a double-precision reference", () => {
    const r = rng(1234);
    for (const [K, M, N, dtype] of [[128, 128, 512, D.F32], [37, 13, 29, D.BF16], [300, 5, 600, D.F32]] as const) {
      const st = operand(dtype, [K, M], { gap: dtype === D.BF16 ? 2 : 1 }), mv = operand(dtype, [K, N], { reversed: dtype === D.BF16 });
      fillWith(st, () => r(1)); fillWith(mv, () => r(1));
      const out = operand(D.F32, [M, N]);
      expect(e.matmul(out, st, mv, false)).toBeNull();
      e.matmul(out, st, mv, true);
      for (let m = 0; m < M; m += 3) for (let n = 0; n < N; n += 7) {
        const want = 2 * reference(st, mv, m, n);
        expect(Math.abs(get(out, [m, n]) - want), `[${m}, ${n}] of ${K}x${M}x${N}`).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)) * Math.sqrt(K));
      }
    }
  });

  it("sums products rounded to float32 in K order, without fused multiply-add", () => {
    // column 0: 2^24 (1 + 2^-12) + 1 - 2^24: 2^24 + 4097 rounds to 2^24 + 4096 in float32 (ties to even), so 4096 (4097 exactly)
    const st = operand(D.F32, [3, 2]), mv = operand(D.F32, [3, 1]), out = operand(D.F32, [2, 1]);
    fillWith(st, ([k, m]) => (m === 0 ? [2 ** 24, 1, -(2 ** 24)][k!]! : [1 + 2 ** -12, -1, 0][k!]!));
    // (1 + 2^-12)^2 - 1: the product rounds to 1 + 2^-11 first (2^-24 lost to ties-to-even); fused, 2^-11 + 2^-24
    fillWith(mv, ([k]) => [1 + 2 ** -12, 1, 1][k!]!);
    e.matmul(out, st, mv, false);
    expect(get(out, [0, 0])).toBe(4096);
    expect(get(out, [1, 0])).toBe(2 ** -11);
  });
});

describe("init maps", () => {
  it("the first unwritten element read, in the output's row-major order, aborts before anything is written", () => {
    const a = operand(D.F32, [4, 8], { init: true }), b = operand(D.F32, [4, 8], { init: true }), out = operand(D.F32, [4, 8], { init: true });
    fillWith(a, () => 1); fillWith(b, () => 2); fillWith(out, () => 9);
    markAllWritten(a); markAllWritten(b);
    set(out, [0, 0], 9);
    const bytes = (o: Operand, i: number[]) => initByte(o, i);
    // b's [2, 5] and a's [3, 0] unwritten: b's comes first
    hbm().bytes()[b.init! + 2 * 8 + 5] = 0;
    hbm().bytes()[a.init! + 3 * 8] = 0;
    expect(e.binary("add", out, a, b)).toEqual({ operand: 1, index: [2, 5] });
    expectElements(out, () => 9);
    expect(bytes(out, [0, 0])).toBe(0);
    e.markInit(b, true);
    expect(e.binary("add", out, 3, a)).toEqual({ operand: 1, index: [3, 0] });
    e.markInit(a, true);
    expect(e.binary("add", out, a, b)).toBeNull();
    expectElements(out, () => 3);
    for (const i of indices(out.shape)) expect(bytes(out, i)).toBe(1);
    e.markInit(out, false);
    expect(bytes(out, [3, 7])).toBe(0);
  });

  it("reports broadcast, reduction, matmul and transpose reads by the index in the input's own shape", () => {
    const row = operand(D.F32, [4, 1], { init: true }), a = operand(D.F32, [4, 6], { init: true }), out = operand(D.F32, [4, 6]);
    markAllWritten(a);
    e.markInit({ ...row, shape: [2, 1] }, true);
    expect(e.tensorScalar(out, a, "add", row)).toEqual({ operand: 1, index: [2, 0] });
    const partial = operand(D.F32, [3, 5], { init: true });
    e.markInit({ ...partial, shape: [3, 4] }, true);
    expect(e.reduce("max", operand(D.F32, [3, 1]), partial, [1])).toEqual({ operand: 0, index: [0, 4] });
    expect(e.transpose(operand(D.F32, [5, 3]), partial)).toEqual({ operand: 0, index: [0, 4] });
    const st = operand(D.F32, [2, 2], { init: true }), mv = operand(D.F32, [2, 3], { init: true }), acc = operand(D.F32, [2, 3], { init: true });
    markAllWritten(st); markAllWritten(mv);
    expect(e.matmul(acc, st, mv, false)).toBeNull();
    e.markInit(acc, false);
    expect(e.matmul(acc, st, mv, true)).toEqual({ operand: 2, index: [0, 0] });
  });
});

describe("validation", () => {
  it("refuses mismatched ranks, unknown dtypes and operations, shapes that do not broadcast", () => {
    const a = operand(D.F32, [4, 4]);
    expect(() => e.binary("add", operand(D.F32, [4, 4]), a, operand(D.F32, [4]))).toThrow(GpsimdError);
    expect(() => e.binary("add", a, a, operand(D.F32, [3, 4]))).toThrow(/does not broadcast/);
    expect(() => e.unary("copy", a, { ...a, dtype: 42 as D })).toThrow(/dtype code 42/);
    expect(() => e.binary("frobnicate" as BinaryOp, a, a, a)).toThrow(/not an engine operation/);
    expect(() => e.unary("copy", { ...a, shape: [4, 0] }, { ...a, shape: [4, 0] })).not.toThrow();
  });
});

describe("speed (printed, not asserted)", () => {
  it("128x512 add and a 128x128x512 matmul", () => {
    const a = operand(D.F32, [128, 512]), b = operand(D.F32, [128, 512]), out = operand(D.F32, [128, 512]);
    for (let i = 0; i < 50; i++) e.binary("add", out, a, b);
    let t = performance.now();
    for (let i = 0; i < 200; i++) e.binary("add", out, a, b);
    const add = ((performance.now() - t) / 200) * 1000;
    const st = operand(D.F32, [128, 128]), mv = operand(D.F32, [128, 512]);
    for (let i = 0; i < 3; i++) e.matmul(out, st, mv, false);
    t = performance.now();
    for (let i = 0; i < 20; i++) e.matmul(out, st, mv, false);
    const mm = (performance.now() - t) / 20;
    console.log(`engine: 128x512 f32 add ${add.toFixed(1)} us; 128x128x512 matmul ${mm.toFixed(2)} ms (${((2 * 128 * 128 * 512) / mm / 1e6).toFixed(1)} GFLOP/s)`);
    expect(add).toBeGreaterThan(0);
  });
});
