// The tensor library inside kernels (factories, element-wise operations in their plain and _out forms) checked
// against a plain TypeScript reference for every dtype: random data with fixed seeds, odd sizes, size 1 and empty.
// Exact operations must agree bit for bit (bfloat16/float16 rounding included); sin cos tan log log2 log10 exp pow
// (double-precision libm rounded to float32 in the kernel, JavaScript's Math here) within MATH_ULPS units in the last
// place of the result's dtype.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  custom_op, ops, tensor, shutdown, Rng, GpsimdError, DTypeMismatchError, KernelShapeError, ReadOnlyTensorError, ShapeFunctionError,
  type Library, type Tensor,
} from "gpsimd";

const here = path.dirname(fileURLToPath(import.meta.url));
let lib: Library;

beforeAll(() => {
  const dir = path.join(here, "fixtures", "tensor-ops");
  lib = custom_op.load({
    name: "tensor_ops_fixtures", compute_srcs: [path.join(dir, "kernels.ts")], shape_srcs: [path.join(dir, "register.ts")],
    build_directory: path.join(here, "..", "build", "out"), multicore: false,
  });
}, 120_000);
afterAll(async () => { lib.unload(); await shutdown(); });

const fx = () => ops.tensor_ops_fixtures;

// ---------------------------------------------------------------------------------------------------------
// Dtypes and the reference's number formats
// ---------------------------------------------------------------------------------------------------------

type DT = "float32" | "bfloat16" | "float16" | "int32" | "int8" | "int64" | "int16" | "uint8";
const DTYPES: DT[] = ["float32", "bfloat16", "float16", "int32", "int8", "int64", "int16", "uint8"];
const INTEGRAL: DT[] = ["int32", "int8", "int64", "int16", "uint8"];
/** ScalarType numbers, as kernels and shape functions take them. */
const CODE: Record<DT, number> = { float32: 0, bfloat16: 1, float16: 2, int32: 3, int8: 4, int64: 5, int16: 6, uint8: 7 };
const isFloat = (dt: DT) => dt === "float32" || dt === "bfloat16" || dt === "float16";
/** Floating dtype an operation on dt computes in: dt, or float32 for integers. */
const floatOf = (dt: DT): DT => (isFloat(dt) ? dt : "float32");

/** Tolerance of the libm functions, in units in the last place of the result's dtype. */
const MATH_ULPS = 1;

/** Significant bits and exponent range of the floating formats. */
const FORMATS = { float32: { p: 24, emin: -126, emax: 127 }, bfloat16: { p: 8, emin: -126, emax: 127 }, float16: { p: 11, emin: -14, emax: 15 } };

/** x rounded to nearest even into a binary format with p significant bits (subnormals, overflow to infinity). */
function roundFormat(x: number, f: { p: number; emin: number; emax: number }): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  const spacing = 2 ** (Math.max(e, f.emin) - (f.p - 1));
  const m = a / spacing; // exact: a power-of-two scaling
  let r = Math.floor(m);
  const frac = m - r;
  if (frac > 0.5 || (frac === 0.5 && r % 2 === 1)) r += 1;
  const v = r * spacing;
  const max = (2 - 2 ** (1 - f.p)) * 2 ** f.emax;
  return Math.sign(x) * (v > max ? Infinity : v);
}

/** A float32 value stored into dt: float32 as is, bfloat16/float16 rounded from it. */
function store(dt: DT, x: number): number {
  const f = Math.fround(x);
  return dt === "float32" ? f : roundFormat(f, FORMATS[dt as "bfloat16" | "float16"]);
}

/** The float32 nearest to an integer (one rounding, ties to even), as int64 -> float conversion does. */
function intToF32(v: bigint): number {
  const neg = v < 0n;
  const a = neg ? -v : v;
  if (a < 2n ** 53n) return Math.fround(Number(v));
  const shift = BigInt(a.toString(2).length - 24);
  let m = a >> shift;
  const rest = a - (m << shift), half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
  const r = Number(m) * 2 ** Number(shift);
  return neg ? -r : r;
}

/** An integer kept in dt's width (two's complement wrap). */
function wrap(dt: DT, v: bigint): bigint {
  switch (dt) {
    case "int32": return BigInt.asIntN(32, v);
    case "int16": return BigInt.asIntN(16, v);
    case "int8": return BigInt.asIntN(8, v);
    case "uint8": return BigInt.asUintN(8, v);
    default: return BigInt.asIntN(64, v);
  }
}

/** A double converted to an integer type: truncated toward zero, saturated to int64 (NaN is 0), then wrapped. */
function castDouble(dt: DT, x: number): bigint {
  if (Number.isNaN(x)) return 0n;
  const t = Math.trunc(x);
  const i = t >= 2 ** 63 ? 2n ** 63n - 1n : t < -(2 ** 63) ? -(2n ** 63n) : BigInt(t);
  return wrap(dt, i);
}

/** C's pow where it differs from JavaScript's: pow(1, y) and pow(x, ±0) are 1, and pow(-1, ±Infinity) is 1. */
function cpow(x: number, y: number): number {
  if (x === 1 || y === 0) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return Math.pow(x, y);
}

/** Integer power with the result wrapped to dt; negative exponents: 1 for base 1, ±1 for base -1, else 0 (torch). */
function ipow(dt: DT, a: bigint, b: bigint): bigint {
  if (b < 0n) return a === 1n ? 1n : a === -1n ? (b % 2n === 0n ? 1n : -1n) : 0n;
  return wrap(dt, a ** b);
}

// ---------------------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------------------

type V = number | bigint;
/** Sizes tried for every operation: empty, one element, v128 tails of 2, 1 and 3, several 512-element chunks. */
const SHAPES: number[][] = [[0], [1], [6], [3, 5, 7], [1031]];
const FLOAT_SPECIALS = [0, -0, 1, -1, 0.5, -2.5, 1.5, Infinity, -Infinity, NaN, 1e-40, -3e-39, 65504, 65520, -70000, 3e38, 1.00390625, 0.1];

/** Kinds of random data: any value, pow bases and exponents (moderate, integers among them). */
type DataKind = "any" | "base" | "exponent";

function floatData(rng: Rng, n: number, kind: DataKind): number[] {
  return Array.from({ length: n }, (_, i) => {
    if (kind === "any") {
      if (i % 7 === 3) return FLOAT_SPECIALS[(i >> 3) % FLOAT_SPECIALS.length]!;
      return i % 5 === 0 ? rng.uniformRange(-1e5, 1e5) : rng.normal() * 4;
    }
    if (i % 3 === 0) return rng.int(-4, 4);
    return kind === "base" ? rng.uniformRange(-4, 4) : rng.uniformRange(-3, 3);
  });
}

function intData(rng: Rng, dt: DT, n: number, kind: DataKind): bigint[] {
  return Array.from({ length: n }, (_, i) => {
    if (kind === "exponent") return wrap(dt, BigInt(rng.int(-3, 40)));
    if (i % 9 === 4) return wrap(dt, [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 127n, -128n][(i >> 4) % 7]!);
    return wrap(dt, (BigInt(rng.nextU32()) << 32n) | BigInt(rng.nextU32()));
  });
}

/** A random tensor of dt and the values it actually holds (16-bit floats rounded from the data). */
function input(dt: DT, shape: number[], seed: number, kind: DataKind = "any"): { t: Tensor; v: V[] } {
  const rng = new Rng(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  const t = isFloat(dt) ? tensor(Float32Array.from(floatData(rng, n, kind)), shape, dt)
    : tensor(intData(rng, dt, n, kind).map((x) => (dt === "int64" ? x : Number(x))) as never, shape, dt);
  return { t, v: values(t) };
}

/** A tensor's dtype name. */
const dtypeOf = (t: Tensor) => t.dtype.name as DT;

/** A tensor's elements: numbers for floating dtypes, bigints for integral ones. */
function values(t: Tensor): V[] {
  return Array.from(t.data() as ArrayLike<number | bigint>, (x) => (typeof x === "bigint" || isFloat(dtypeOf(t)) ? x : BigInt(x)));
}

/** Element value of an integral operand as a float32 (operations that promote integers). */
const asF32 = (v: V) => (typeof v === "bigint" ? intToF32(v) : v);

// ---------------------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------------------

const same = (a: V, b: V) => (typeof a === "number" && typeof b === "number" ? Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) : a === b);

/** Spacing of dt's values at x. */
function ulp(dt: DT, x: number): number {
  const f = FORMATS[dt as keyof typeof FORMATS];
  const e = x === 0 ? f.emin : Math.max(Math.floor(Math.log2(Math.abs(x))), f.emin);
  return 2 ** (e - (f.p - 1));
}

function withinUlps(dt: DT, got: V, want: V, ulps: number): boolean {
  if (same(got, want)) return true;
  if (typeof got !== "number" || typeof want !== "number" || !Number.isFinite(got) || !Number.isFinite(want)) return false;
  return Math.abs(got - want) <= ulps * ulp(dt, want);
}

/** Asserts that out (of dtype dt and the given shape) holds `want`, exactly or within `ulps`. */
function expectValues(label: string, out: Tensor, dt: DT, shape: number[], want: V[], inputs: V[][], ulps = 0): void {
  expect(dtypeOf(out), `${label}: dtype`).toBe(dt);
  expect(out.sizes(), `${label}: sizes`).toEqual(shape);
  const got = values(out);
  const bad: string[] = [];
  for (let i = 0; i < want.length && bad.length < 5; i++) {
    if (!(ulps ? withinUlps(dt, got[i]!, want[i]!, ulps) : same(got[i]!, want[i]!))) {
      bad.push(`[${i}] of (${inputs.map((v) => String(v[i])).join(", ")}): got ${String(got[i])}, want ${String(want[i])}`);
    }
  }
  expect(bad, label).toEqual([]);
}

/** Runs both forms (plain: a kernel-made tensor returned; _out: written into the output) and checks each. */
function bothForms(label: string, run: (out: boolean) => Tensor, dt: DT, shape: number[], want: V[], inputs: V[][], ulps = 0): void {
  for (const out of [false, true]) expectValues(`${label}${out ? " (out)" : ""}`, run(out), dt, shape, want, inputs, ulps);
}

// ---------------------------------------------------------------------------------------------------------
// Factories
// ---------------------------------------------------------------------------------------------------------

const F = { empty: 0, zeros: 1, ones: 2, fullF: 3, fullI: 4, fillF: 5, fillI: 6, eye: 7, fillInput: 8 };

/** fill_ / full reference: floating dtypes via float32, integral ones by C cast (see castDouble). */
function filled(dt: DT, value: number | bigint): V {
  if (isFloat(dt)) return store(dt, typeof value === "bigint" ? intToF32(value) : value);
  return typeof value === "bigint" ? wrap(dt, value) : castDouble(dt, value);
}

describe("factories inside kernels", () => {
  const FILL_DOUBLES = [2.5, -1.5, 300.7, -129.2, 0.1, 1.00390625, 1.0009765625 + 2 ** -11, 65519, 65520, 3.4e38, 1e30, -1e30, -0, NaN, Infinity];
  const FILL_INTS = [0n, 1n, -1n, 300n, -129n, 2n ** 53n + 1n, 2n ** 62n + 2n ** 38n + 1n, -(2n ** 63n), 65519n];

  it.each(DTYPES)("zeros, ones, empty (%s) have the right shape and values", (dt) => {
    for (const shape of [[0], [2, 0], [1], [3, 5, 7]]) {
      const like = input(dt, shape, 1).t;
      const n = like.numel();
      expectValues(`zeros ${dt}`, fx().factory(like, F.zeros, 0, 0), dt, shape, Array(n).fill(isFloat(dt) ? 0 : 0n), []);
      expectValues(`ones ${dt}`, fx().factory(like, F.ones, 0, 0), dt, shape, Array(n).fill(isFloat(dt) ? 1 : 1n), []);
      const e = fx().factory(like, F.empty, 0, 0);
      expect([dtypeOf(e), e.sizes()]).toEqual([dt, shape]);
    }
  });

  it.each(DTYPES)("full and fill_ (%s) convert double and int64 values like a C cast", (dt) => {
    const like = input(dt, [3, 7], 2).t;
    for (const v of FILL_DOUBLES) {
      const want = Array(21).fill(filled(dt, v));
      expectValues(`full(${v}) ${dt}`, fx().factory(like, F.fullF, v, 0), dt, [3, 7], want, []);
      expectValues(`fill_(${v}) ${dt}`, fx().factory(like, F.fillF, v, 0), dt, [3, 7], want, []);
    }
    for (const v of FILL_INTS) {
      const want = Array(21).fill(filled(dt, v));
      expectValues(`full(${v}n) ${dt}`, fx().factory(like, F.fullI, 0, v), dt, [3, 7], want, []);
      expectValues(`fill_(${v}n) ${dt}`, fx().factory(like, F.fillI, 0, v), dt, [3, 7], want, []);
    }
  });

  it("rounds fill values into bfloat16 and float16 to nearest even (hand-checked cases)", () => {
    const like16 = (dt: DT) => input(dt, [1], 3).t;
    const one = (dt: DT, v: number) => (values(fx().factory(like16(dt), F.fullF, v, 0))[0] as number);
    expect(one("bfloat16", 1.00390625)).toBe(1);          // halfway between 1 and 1 + 2^-7: to even
    expect(one("bfloat16", 1.01171875)).toBe(1.015625);   // halfway between 1 + 2^-7 and 1 + 2^-6: to even
    expect(one("float16", 65519)).toBe(65504);
    expect(one("float16", 65520)).toBe(Infinity);
    expect(one("float16", 2 ** -25)).toBe(0);              // half the smallest subnormal: to even (0)
    expect(one("float16", 3 * 2 ** -26)).toBe(2 ** -24);
  });

  it.each(DTYPES)("eye (%s) has ones on the diagonal of an n x m matrix", (dt) => {
    for (const [n, m] of [[3, 5], [5, 3], [1, 1], [4, 4], [0, 4], [4, 0]] as const) {
      const like = input(dt, [n, m], 4).t;
      const want = Array.from({ length: n * m }, (_, i) => {
        const one = Math.floor(i / m) === i % m;
        return isFloat(dt) ? (one ? 1 : 0) : one ? 1n : 0n;
      });
      expectValues(`eye(${n}, ${m}) ${dt}`, fx().factory(like, F.eye, 0, 0), dt, [n, m], want, []);
    }
  });

  it("fill_ of an operator input is refused (inputs are read-only)", () => {
    const like = tensor([1, 2, 3], [3], "float32");
    expectError(() => fx().factory(like, F.fillInput, 7, 0), ReadOnlyTensorError,
      "tensor_ops_fixtures::factory (core 0): fill_: cannot write into argument 0 'like' (float32[3]), which is an operator input and read-only; write into get_dst_tensor() or a tensor the kernel made");
    expect(Array.from(like.data() as Float32Array)).toEqual([1, 2, 3]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Unary operations
// ---------------------------------------------------------------------------------------------------------

const U = { abs: 0, ceil: 1, floor: 2, sin: 3, cos: 4, tan: 5, log: 6, log2: 7, log10: 8, exp: 9, bitwise_not: 10 };
const MATH: Record<string, (x: number) => number> = { sin: Math.sin, cos: Math.cos, tan: Math.tan, log: Math.log, log2: Math.log2, log10: Math.log10, exp: Math.exp };

/** Reference of a unary operation on one element of dt; the result is of dtype `rdt`. */
function unaryRef(name: string, dt: DT, rdt: DT, x: V): V {
  if (name in MATH) return store(rdt, MATH[name]!(asF32(x)));
  if (typeof x === "bigint") {
    if (name === "abs") return wrap(dt, x < 0n ? -x : x);
    if (name === "bitwise_not") return wrap(dt, ~x);
    return x; // ceil, floor
  }
  return store(rdt, name === "abs" ? Math.abs(x) : name === "ceil" ? Math.ceil(x) : Math.floor(x));
}

describe("unary operations", () => {
  for (const name of Object.keys(U)) {
    const dtypes = name === "bitwise_not" ? INTEGRAL : DTYPES;
    it.each(dtypes)(`${name} (%s), plain and _out`, (dt) => {
      const rdt = name in MATH ? floatOf(dt) : dt;
      SHAPES.forEach((shape, k) => {
        const x = input(dt, shape, 100 + k);
        const want = x.v.map((v) => unaryRef(name, dt, rdt, v));
        bothForms(`${name} ${dt}${JSON.stringify(shape)}`, (out) => fx().unary(x.t, U[name as keyof typeof U], out, CODE[rdt]), rdt, shape, want, [x.v],
          name in MATH ? MATH_ULPS : 0);
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------------------
// Tensor-Tensor operations
// ---------------------------------------------------------------------------------------------------------

const B = { add: 0, sub: 1, mul: 2, div: 3, pow: 4, bitwise_and: 5, bitwise_or: 6, add_default: 7, sub_default: 8 };

/** Reference of a Tensor-Tensor operation on elements a, b of dt; alpha for add/sub. */
function binaryRef(name: string, dt: DT, a: V, b: V, alpha: V): V {
  if (typeof a === "bigint" && typeof b === "bigint" && name !== "div") {
    const al = alpha as bigint;
    switch (name) {
      case "add": return wrap(dt, a + al * b);
      case "sub": return wrap(dt, a - al * b);
      case "mul": return wrap(dt, a * b);
      case "pow": return ipow(dt, a, b);
      case "bitwise_and": return wrap(dt, a & b);
      default: return wrap(dt, a | b);
    }
  }
  const x = asF32(a), y = asF32(b), al = Math.fround(Number(alpha));
  const rdt = floatOf(dt);
  switch (name) {
    case "add": return store(rdt, x + Math.fround(al * y));
    case "sub": return store(rdt, x - Math.fround(al * y));
    case "mul": return store(rdt, x * y);
    case "div": return store(rdt, x / y);
    default: return store(rdt, cpow(x, y));
  }
}

describe("Tensor-Tensor operations", () => {
  const ALPHAS: { float: boolean; f: number; i: bigint }[] = [
    { float: false, f: 0, i: 1n }, { float: false, f: 0, i: 3n }, { float: false, f: 0, i: -2n }, { float: true, f: 0.3, i: 0n },
  ];
  for (const name of ["add", "sub", "mul", "div", "pow", "bitwise_and", "bitwise_or"]) {
    const dtypes = name.startsWith("bitwise") ? INTEGRAL : DTYPES;
    it.each(dtypes)(`${name} (%s), plain and _out`, (dt) => {
      const rdt = name === "div" ? floatOf(dt) : dt;
      const alphas = name === "add" || name === "sub" ? ALPHAS.filter((al) => !al.float || isFloat(dt)) : [ALPHAS[0]!];
      SHAPES.forEach((shape, k) => {
        const a = input(dt, shape, 200 + k, name === "pow" ? "base" : "any");
        const b = input(dt, shape, 300 + k, name === "pow" ? "exponent" : "any");
        for (const al of alphas) {
          const alpha = isFloat(dt) ? (al.float ? al.f : Number(al.i)) : al.i;
          const want = a.v.map((x, i) => binaryRef(name, dt, x, b.v[i]!, alpha));
          bothForms(`${name} ${dt}${JSON.stringify(shape)} alpha ${String(alpha)}`,
            (out) => fx().binary(a.t, b.t, B[name as keyof typeof B], out, al.float, al.f, al.i, CODE[rdt]), rdt, shape, want, [a.v, b.v],
            name === "pow" && isFloat(rdt) ? MATH_ULPS : 0);
        }
      });
    });
  }

  it.each(DTYPES)("add and sub with the default alpha (%s) are a + b and a - b", (dt) => {
    const a = input(dt, [3, 5, 7], 400), b = input(dt, [3, 5, 7], 401);
    for (const name of ["add", "sub"]) {
      const want = a.v.map((x, i) => binaryRef(name, dt, x, b.v[i]!, isFloat(dt) ? 1 : 1n));
      bothForms(`${name} ${dt}`, (out) => fx().binary(a.t, b.t, B[`${name}_default` as "add_default"], out, true, 99, 99, CODE[dt]), dt, [3, 5, 7], want, [a.v, b.v]);
    }
  });

  it("div of integers is true division into float32 (hand-checked)", () => {
    const a = tensor([7, -7, 1, 0, 0, -5], [6], "int32"), b = tensor([2, 2, 3, 0, 5, 0], [6], "int32");
    const got = Array.from(fx().binary(a, b, B.div, true, false, 0, 1, CODE.float32).data() as Float32Array);
    expect(got).toEqual([3.5, -3.5, Math.fround(1 / 3), NaN, 0, -Infinity]);
  });

  it("integer pow wraps and follows torch for negative exponents (hand-checked)", () => {
    const a = tensor([3, -2, 2, 1, -1, -1, 0, 5], [8], "int8"), b = tensor([5, 7, 8, -3, -3, -4, -1, -1], [8], "int8");
    // 3^5 = 243 wraps to -13 in int8; 2^8 = 256 wraps to 0; negative exponents: 1 for 1, ±1 for -1, else 0.
    expect(Array.from(fx().binary(a, b, B.pow, false, false, 0, 1, CODE.int8).data() as Int8Array)).toEqual([-13, -128, 0, 1, -1, 1, 0, 0]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Tensor-Scalar and Scalar-Tensor operations
// ---------------------------------------------------------------------------------------------------------

const S = {
  add_scalar: 0, sub_scalar: 1, mul_scalar: 2, div_scalar: 3, pow_scalar: 4, scalar_pow: 5,
  bitwise_and_scalar: 6, bitwise_or_scalar: 7, scalar_bitwise_and: 8, scalar_bitwise_or: 9, add_scalar_default: 10,
};
/** A Scalar as the kernel gets it: a double (floating Scalar) or an int64 (integral Scalar). */
type Scalar = { float: true; f: number } | { float: false; i: bigint };
const dbl = (f: number): Scalar => ({ float: true, f });
const int = (i: bigint): Scalar => ({ float: false, i });
const scalarArgs = (s: Scalar) => [s.float, s.float ? s.f : 0, s.float ? 0n : s.i] as const;
const scalarText = (s: Scalar) => (s.float ? `${s.f}` : `${s.i}n`);

/** Result dtype of an operation of dt with Scalar s: a floating Scalar (or div) makes integers float32; bitwise keeps dt. */
function scalarResult(name: string, dt: DT, s: Scalar): DT {
  if (name.includes("bitwise") || isFloat(dt)) return dt;
  return s.float || name === "div_scalar" ? "float32" : dt;
}

/** Reference of a Scalar operation on one element x of dt. */
function scalarRef(name: string, dt: DT, rdt: DT, x: V, s: Scalar, alpha: Scalar): V {
  if (name.includes("bitwise")) {
    const c = s.float ? castDouble(dt, s.f) : wrap(dt, s.i);
    return wrap(dt, name.includes("_and") ? (x as bigint) & c : (x as bigint) | c);
  }
  if (!isFloat(rdt)) {
    const c = wrap(dt, (s as { i: bigint }).i), al = (alpha as { i: bigint }).i, xi = x as bigint;
    switch (name) {
      case "add_scalar": return wrap(dt, xi + al * c);
      case "sub_scalar": return wrap(dt, xi - al * c);
      case "mul_scalar": return wrap(dt, xi * c);
      case "pow_scalar": return ipow(dt, xi, c);
      default: return ipow(dt, c, xi); // scalar_pow
    }
  }
  const f32 = (v: Scalar) => (v.float ? Math.fround(v.f) : intToF32(v.i));
  const c = f32(s), al = f32(alpha), xf = asF32(x);
  switch (name) {
    case "add_scalar": return store(rdt, xf + Math.fround(al * c));
    case "sub_scalar": return store(rdt, xf - Math.fround(al * c));
    case "mul_scalar": return store(rdt, xf * c);
    case "div_scalar": return store(rdt, xf / c);
    case "pow_scalar": return store(rdt, cpow(xf, c));
    default: return store(rdt, cpow(c, xf)); // scalar_pow
  }
}

describe("Tensor-Scalar and Scalar-Tensor operations", () => {
  const ARITH_SCALARS = [dbl(2.5), dbl(-0.75), dbl(0), dbl(1e10), int(3n), int(-7n), int(300n), int(2n ** 40n + 5n)];
  const POW_EXPONENTS = [dbl(0.5), dbl(2), dbl(-1), dbl(3.3), int(0n), int(1n), int(2n), int(3n), int(7n), int(300n)];
  const POW_BASES = [dbl(2), dbl(0.5), dbl(-1.5), int(2n), int(-3n), int(1n), int(-1n), int(0n)];
  const BIT_SCALARS = [int(0x5an), int(-1n), int(300n), int(2n ** 40n + 3n), dbl(-300.7), dbl(77.9)];
  const CASES: [string, Scalar[]][] = [
    ["add_scalar", ARITH_SCALARS], ["sub_scalar", ARITH_SCALARS], ["mul_scalar", ARITH_SCALARS], ["div_scalar", ARITH_SCALARS],
    ["pow_scalar", POW_EXPONENTS], ["scalar_pow", POW_BASES],
    ["bitwise_and_scalar", BIT_SCALARS], ["bitwise_or_scalar", BIT_SCALARS], ["scalar_bitwise_and", BIT_SCALARS], ["scalar_bitwise_or", BIT_SCALARS],
  ];
  for (const [name, scalars] of CASES) {
    const dtypes = name.includes("bitwise") ? INTEGRAL : DTYPES;
    it.each(dtypes)(`${name} (%s), integral and floating Scalars, plain and _out`, (dt) => {
      const kind: DataKind = name === "pow_scalar" ? "base" : name === "scalar_pow" ? "exponent" : "any";
      const alphas = name === "add_scalar" || name === "sub_scalar" ? [int(1n), int(-3n), dbl(0.5)] : [int(1n)];
      SHAPES.forEach((shape, k) => {
        const x = input(dt, shape, 500 + k, kind);
        for (const s of scalars) {
          const rdt = scalarResult(name, dt, s);
          for (const alpha of alphas) {
            if (alpha.float && !isFloat(rdt)) continue; // an error (see the dtype rules below)
            const want = x.v.map((v) => scalarRef(name, dt, rdt, v, s, alpha));
            bothForms(`${name} ${dt}${JSON.stringify(shape)} s ${scalarText(s)} alpha ${scalarText(alpha)}`,
              (out) => fx().scalar(x.t, S[name as keyof typeof S], out, ...scalarArgs(s), ...scalarArgs(alpha), CODE[rdt]),
              rdt, shape, want, [x.v], name.includes("pow") && isFloat(rdt) ? MATH_ULPS : 0);
          }
        }
      });
    });
  }

  it.each(DTYPES)("add_scalar with the default alpha (%s) is a + s", (dt) => {
    const x = input(dt, [3, 5, 7], 600);
    const s = int(5n);
    const want = x.v.map((v) => scalarRef("add_scalar", dt, dt, v, s, int(1n)));
    bothForms(`add_scalar ${dt}`, (out) => fx().scalar(x.t, S.add_scalar_default, out, ...scalarArgs(s), true, 99, 99n, CODE[dt]), dt, [3, 5, 7], want, [x.v]);
  });

  it("an integral Scalar is cast to the tensor's dtype; a floating one promotes integers to float32 (hand-checked)", () => {
    const u8 = tensor([1, 2, 250], [3], "uint8");
    expect(Array.from(fx().scalar(u8, S.add_scalar, true, false, 0, 300, false, 0, 1, CODE.uint8).data() as Uint8Array)).toEqual([45, 46, 38]);
    expect(Array.from(fx().scalar(u8, S.add_scalar, false, true, 0.5, 0, false, 0, 1, CODE.float32).data() as Float32Array)).toEqual([1.5, 2.5, 250.5]);
    expect(Array.from(fx().scalar(u8, S.bitwise_and_scalar, true, true, -2.9, 0, false, 0, 1, CODE.uint8).data() as Uint8Array)).toEqual([0, 2, 250]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// clamp
// ---------------------------------------------------------------------------------------------------------

describe("clamp", () => {
  const BOUNDS: [Scalar, Scalar][] = [
    [dbl(-1.5), dbl(2.25)], [dbl(0.1), dbl(0.2)], [dbl(3), dbl(-3)], [dbl(NaN), dbl(1)], [dbl(-0.5), int(7n)],
    [int(-5n), int(100n)], [int(0n), int(300n)], [int(-(2n ** 40n)), int(2n ** 40n)], [int(10n), dbl(1e6)],
  ];
  it.each(DTYPES)("clamp (%s) with integral and floating bounds, plain and _out", (dt) => {
    SHAPES.forEach((shape, k) => {
      const x = input(dt, shape, 700 + k);
      for (const [lo, hi] of BOUNDS) {
        const rdt = isFloat(dt) || (!lo.float && !hi.float) ? dt : "float32";
        const want = x.v.map((v) => {
          if (!isFloat(rdt)) {
            const l = wrap(dt, (lo as { i: bigint }).i), h = wrap(dt, (hi as { i: bigint }).i), xi = v as bigint;
            const r = xi < l ? l : xi;
            return r > h ? h : r;
          }
          const f32 = (b: Scalar) => (b.float ? Math.fround(b.f) : intToF32(b.i));
          return store(rdt, Math.min(Math.max(asF32(v), f32(lo)), f32(hi)));
        });
        bothForms(`clamp ${dt}${JSON.stringify(shape)} [${scalarText(lo)}, ${scalarText(hi)}]`,
          (out) => fx().clamp_op(x.t, out, ...scalarArgs(lo), ...scalarArgs(hi), CODE[rdt]), rdt, shape, want, [x.v]);
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Several operations in one kernel, on tensors the kernel made (some in place)
// ---------------------------------------------------------------------------------------------------------

describe("operations chained in a kernel", () => {
  it("clamp(x*x + 2x - 1, -1, 5) * exp(0) matches the reference", () => {
    const x = input("float32", [13, 17], 800, "base");
    const want = x.v.map((v) => {
      const a = v as number;
      const t = Math.fround(Math.fround(Math.fround(a * a) + Math.fround(2 * a)) - 1);
      return Math.fround(Math.min(Math.max(t, -1), 5));
    });
    expectValues("chain", fx().chain(x.t), "float32", [13, 17], want, [x.v]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Shape and dtype rules
// ---------------------------------------------------------------------------------------------------------

/** Asserts the error's class and message; a kernel's error ends with its statement (" at fn (kernels.ts:line:column)"). */
function expectError(fn: () => unknown, cls: abstract new (...args: never[]) => GpsimdError, message: string, inKernel = true): void {
  let err: unknown = null;
  try { fn(); } catch (e) { err = e; }
  expect(err).toBeInstanceOf(cls);
  const text = (err as Error).message;
  if (!inKernel) return expect(text).toBe(message);
  expect(text.slice(0, message.length)).toBe(message);
  const kernels = path.join(here, "fixtures", "tensor-ops", "kernels.ts");
  expect(text.slice(message.length)).toMatch(new RegExp(`^ at [\\w<>]+ \\(${kernels.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+\\)$`));
}

describe("shape and dtype rules", () => {
  const f32 = (n: number) => input("float32", [n], n).t;
  const i32 = (n: number) => input("int32", [n], n).t;
  const where = (kernel: string) => `tensor_ops_fixtures::${kernel} (core 0): `;

  it("operands of different shapes are refused (no broadcasting), in both forms", () => {
    for (const out of [false, true]) {
      expectError(() => fx().binary(f32(5), f32(6), B.add, out, false, 0, 1, CODE.float32), KernelShapeError,
        `${where("binary")}add${out ? "_out" : ""}: argument 1 'other' (float32[6]) and argument 0 'self' (float32[5]) have different shapes; tensor operations do not broadcast`);
    }
    expectError(() => fx().binary(input("float32", [2, 3], 1).t, input("float32", [3, 2], 1).t, B.mul, true, false, 0, 1, CODE.float32), KernelShapeError,
      `${where("binary")}mul_out: argument 1 'other' (float32[3, 2]) and argument 0 'self' (float32[2, 3]) have different shapes; tensor operations do not broadcast`);
  });

  it("a result of another shape is refused", () => {
    expectError(() => fx().misuse(f32(6), f32(2), 1), KernelShapeError,
      `${where("misuse")}abs_out: the output (float32[2]) and argument 0 'self' (float32[6]) have different shapes; tensor operations do not broadcast`);
  });

  it("tensors the kernel made are checked too", () => {
    expectError(() => fx().misuse(f32(1), f32(1), 2), KernelShapeError,
      `${where("misuse")}add: two tensors the kernel made have different shapes; tensor operations do not broadcast`);
  });

  it("operands of different dtypes are refused (no promotion between tensors)", () => {
    expectError(() => fx().binary(f32(4), i32(4), B.add, true, false, 0, 1, CODE.float32), DTypeMismatchError,
      `${where("binary")}add_out: argument 1 'other' (int32[4]) and argument 0 'self' (float32[4]) have different dtypes; tensor operations do not promote one to the other`);
  });

  it("an _out result must have exactly the result's dtype", () => {
    expectError(() => fx().binary(f32(4), f32(4), B.add, true, false, 0, 1, CODE.float16), DTypeMismatchError,
      `${where("binary")}add_out: the output (float16[4]) cannot hold the result, which is float32 like the operands; tensor operations do not convert`);
    const promoted = "cannot hold the result, which is float32: integral operands give float32 with div (true division), sin, cos, tan, log, log2, log10, exp and a floating Scalar, as in torch";
    expectError(() => fx().binary(i32(4), i32(4), B.div, true, false, 0, 1, CODE.int32), DTypeMismatchError,
      `${where("binary")}div_out: the output (int32[4]) ${promoted}`);
    expectError(() => fx().unary(i32(4), U.sin, true, CODE.bfloat16), DTypeMismatchError,
      `${where("unary")}sin_out: the output (bfloat16[4]) ${promoted}`);
    expectError(() => fx().scalar(i32(4), S.mul_scalar, true, true, 0.5, 0n, false, 0, 1n, CODE.int32), DTypeMismatchError,
      `${where("scalar")}mul_scalar_out: the output (int32[4]) ${promoted}`);
    expectError(() => fx().scalar(i32(4), S.scalar_pow, true, true, 2, 0n, false, 0, 1n, CODE.int32), DTypeMismatchError,
      `${where("scalar")}scalar_pow_out: the output (int32[4]) ${promoted}`);
    expectError(() => fx().clamp_op(i32(4), true, true, 0.5, 0n, false, 0, 3n, CODE.int32), DTypeMismatchError,
      `${where("clamp_op")}clamp_out: the output (int32[4]) ${promoted}`);
  });

  it("plain forms make the result's dtype (the shape function must declare it)", () => {
    expectError(() => fx().unary(i32(4), U.exp, false, CODE.int32), ShapeFunctionError,
      "tensor_ops_fixtures::unary: the kernel returned float32 with 4 elements, but the shape function declared int32[4]; make them agree (or write into get_dst_tensor())", false);
  });

  it("bitwise operations take integral tensors only", () => {
    const msg = (op: string, t: string) => `${op}: ${t} is float32; bitwise operations take integral tensors only (int8, uint8, int16, int32, int64)`;
    expectError(() => fx().binary(f32(3), f32(3), B.bitwise_and, false, false, 0, 1, CODE.float32), DTypeMismatchError,
      `${where("binary")}${msg("bitwise_and", "argument 0 'self' (float32[3])")}`);
    expectError(() => fx().unary(f32(3), U.bitwise_not, true, CODE.float32), DTypeMismatchError,
      `${where("unary")}${msg("bitwise_not_out", "argument 0 'self' (float32[3])")}`);
    expectError(() => fx().scalar(f32(3), S.bitwise_or_scalar, false, false, 0, 1n, false, 0, 1n, CODE.float32), DTypeMismatchError,
      `${where("scalar")}${msg("bitwise_or_scalar", "argument 0 'self' (float32[3])")}`);
    expectError(() => fx().scalar(f32(3), S.scalar_bitwise_and, true, false, 0, 1n, false, 0, 1n, CODE.float32), DTypeMismatchError,
      `${where("scalar")}${msg("scalar_bitwise_and_out", "argument 0 'self' (float32[3])")}`);
  });

  it("an integral tensor to a negative integral Scalar power is refused; a floating exponent is fine", () => {
    expectError(() => fx().scalar(i32(3), S.pow_scalar, false, false, 0, -2n, false, 0, 1n, CODE.int32), DTypeMismatchError,
      `${where("scalar")}pow_scalar: argument 0 'self' (int32[3]) is integral and the exponent -2 is a negative integer; integers to negative integer powers are not allowed (as in torch); pass a floating exponent`);
    const x = tensor([2, 4, -1], [3], "int32");
    expect(Array.from(fx().scalar(x, S.pow_scalar, true, true, -2, 0n, false, 0, 1n, CODE.float32).data() as Float32Array)).toEqual([0.25, 0.0625, 1]);
  });

  it("a floating alpha with integral operands is refused", () => {
    expectError(() => fx().binary(i32(3), i32(3), B.sub, true, true, 0.5, 0n, CODE.int32), DTypeMismatchError,
      `${where("binary")}sub_out: alpha 0.5 is a floating-point Scalar but argument 0 'self' (int32[3]) is integral; integral operands take an integral alpha (as in torch)`);
    expectError(() => fx().scalar(i32(3), S.add_scalar, false, false, 0, 2n, true, 2, 0n, CODE.int32), DTypeMismatchError,
      `${where("scalar")}add_scalar: alpha 2 is a floating-point Scalar but argument 0 'self' (int32[3]) is integral; integral operands take an integral alpha (as in torch)`);
  });

  it("an _out result may not be an operator input", () => {
    const self = f32(3);
    const before = Array.from(self.data() as Float32Array);
    expectError(() => fx().misuse(self, f32(3), 0), ReadOnlyTensorError,
      `${where("misuse")}abs_out: cannot write into argument 0 'self' (float32[3]), which is an operator input and read-only; write into get_dst_tensor() or a tensor the kernel made`);
    expect(Array.from(self.data() as Float32Array)).toEqual(before);
  });
});
