import { describe, it, expect } from "vitest";
import { inspect, format } from "node:util";
import { Console } from "node:console";
import { Writable } from "node:stream";
import {
  ScalarType,
  type DType,
  kFloat, kFloat32, kBFloat16, kHalf, kFloat16, kInt, kInt32, kChar, kInt8, kLong, kInt64, kShort, kInt16, kByte, kUInt8,
  ALL_DTYPES,
  dtypeFromScalarType,
  DTYPE_NAMES,
  dtypeInfo,
  parseDType,
  storageArray,
  f32ToBf16Bits, bf16BitsToF32, f32ToF16Bits, f16BitsToF32,
  f32BitsToBf16Bits, bf16BitsToF32Bits, f32BitsToF16Bits, f16BitsToF32Bits,
  encodeScalar, decodeScalar, encodeInto, decodeToArray,
} from "../host/device/dtype.js";
import { DTypeNameError, TensorValueError } from "../host/checks/errors.js";
import { zeros, ones, full, empty } from "../host/device/factories.js";

// ---------------------------------------------------------------------------------------------------------
// Test harness helpers (independent of the code under test).
// ---------------------------------------------------------------------------------------------------------

const hF32 = new Float32Array(1);
const hU32 = new Uint32Array(hF32.buffer);
/** The float32 value with the given bit pattern. */
function f32FromBits(bits: number): number {
  hU32[0] = bits;
  return hF32[0]!;
}
function bitsOfF32(x: number): number {
  hF32[0] = x;
  return hU32[0]!;
}

/** Deterministic xorshift32 so the "random" cases are reproducible. */
function xorshift32(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

/** float16 value straight from the IEEE 754 binary16 definition. */
function refF16Value(h: number): number {
  const s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  let v: number;
  if (e === 31) v = m === 0 ? Infinity : NaN;
  else if (e === 0) v = m * 2 ** -24;
  else v = (1 + m / 1024) * 2 ** (e - 15);
  return s ? -v : v;
}

/** bfloat16 value from its definition (1 sign, 8 exponent bits with bias 127, 7 mantissa bits). */
function refBf16Value(h: number): number {
  const s = (h >> 15) & 1, e = (h >> 7) & 255, m = h & 127;
  let v: number;
  if (e === 255) v = m === 0 ? Infinity : NaN;
  else if (e === 0) v = m * 2 ** -133;
  else v = (1 + m / 128) * 2 ** (e - 127);
  return s ? -v : v;
}

interface Format16 {
  decode: (h: number) => number;
  /** Largest finite positive pattern; patterns 0..maxFinite are increasing in value. */
  maxFinite: number;
  /** Value of the would-be next pattern after maxFinite (2^(emax+1)): rounding to it means overflow to Inf. */
  overflowValue: number;
  infBits: number;
  table: Float64Array;
}

function makeFormat(decode: (h: number) => number, maxFinite: number, overflowValue: number, infBits: number): Format16 {
  const table = new Float64Array(maxFinite + 1);
  for (let k = 0; k <= maxFinite; k++) table[k] = decode(k);
  return { decode, maxFinite, overflowValue, infBits, table };
}

const F16 = makeFormat(refF16Value, 0x7bff, 2 ** 16, 0x7c00);
const BF16 = makeFormat(refBf16Value, 0x7f7f, 2 ** 128, 0x7f80);

/**
 * Nearest representable value to the (non-NaN) number x, ties to even, by searching the two neighbours.
 * Exact: 2|x| is exact and the sum of two neighbouring 16-bit floats is exact in a double, so comparing
 * 2|x| with below + above decides the rounding without error.
 */
function refNearest(fmt: Format16, x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= fmt.overflowValue) return sign | fmt.infBits;
  let lo = 0, hi = fmt.maxFinite;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (fmt.table[mid]! <= a) lo = mid;
    else hi = mid - 1;
  }
  const below = fmt.table[lo]!;
  if (below === a) return sign | lo;
  const up = lo + 1;
  const above = up > fmt.maxFinite ? fmt.overflowValue : fmt.table[up]!;
  const twice = 2 * a, sum = below + above;
  const k = twice < sum ? lo : twice > sum ? up : (lo & 1) === 0 ? lo : up;
  return sign | (k > fmt.maxFinite ? fmt.infBits : k);
}

const isF16NaN = (h: number) => (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
const isBf16NaN = (h: number) => (h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0;
const isF32NaNBits = (b: number) => ((b >>> 0) & 0x7fffffff) > 0x7f800000;

/** Float32 test inputs: random patterns, random patterns near the 16-bit ranges, and all tie points ±1 ulp. */
function float32Cases(fmt: Format16, expLo: number, expHi: number, seed: number): number[] {
  const rnd = xorshift32(seed);
  const out: number[] = [];
  for (let i = 0; i < 20000; i++) {
    const b = rnd();
    if (!isF32NaNBits(b)) out.push(f32FromBits(b));
  }
  for (let i = 0; i < 100000; i++) {
    const r = rnd();
    const exp = expLo + (r % (expHi - expLo + 1));
    const bits = ((rnd() & 0x80000000) | (exp << 23) | (rnd() & 0x7fffff)) >>> 0;
    out.push(f32FromBits(bits));
  }
  // Every midpoint between neighbouring values (including max finite / overflow), and the float32s next to it.
  for (let k = 0; k <= fmt.maxFinite; k++) {
    const above = k === fmt.maxFinite ? fmt.overflowValue : fmt.table[k + 1]!;
    const mid = (fmt.table[k]! + above) / 2;
    expect(Math.fround(mid)).toBe(mid); // midpoints are float32 values
    const mb = bitsOfF32(mid);
    for (const b of [mb - 1, mb, mb + 1]) {
      out.push(f32FromBits(b), f32FromBits((b | 0x80000000) >>> 0));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------

describe("ScalarType and aliases", () => {
  it("numbers the types like the kernel side", () => {
    expect([ScalarType.Float, ScalarType.BFloat16, ScalarType.Half, ScalarType.Int, ScalarType.Char, ScalarType.Long, ScalarType.Short, ScalarType.Byte])
      .toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(ALL_DTYPES.map((t) => t.scalarType)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(ALL_DTYPES.map((t) => t.name)).toEqual(["float32", "bfloat16", "float16", "int32", "int8", "int64", "int16", "uint8"]);
  });

  it("has PyTorch-style aliases, the same objects", () => {
    expect(kFloat32).toBe(kFloat);
    expect(kFloat16).toBe(kHalf);
    expect(kInt32).toBe(kInt);
    expect(kInt8).toBe(kChar);
    expect(kInt64).toBe(kLong);
    expect(kInt16).toBe(kShort);
    expect(kUInt8).toBe(kByte);
    expect([kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte]).toEqual(ALL_DTYPES);
    expect(new Set(ALL_DTYPES).size).toBe(8);
  });

  it("dtypes are frozen", () => {
    expect(Object.isFrozen(kFloat)).toBe(true);
    expect(() => { (kFloat as { name: string }).name = "int32"; }).toThrow(TypeError);
    expect(kFloat.name).toBe("float32");
  });

  it("maps kernel-side ScalarType numbers back to the dtypes", () => {
    for (const t of ALL_DTYPES) expect(dtypeFromScalarType(t.scalarType)).toBe(t);
    for (const bad of [8, -1, 1.5, NaN]) expect(() => dtypeFromScalarType(bad)).toThrow(TypeError);
    expect(() => dtypeFromScalarType(9)).toThrow(/Invalid ScalarType 9; valid values are 0 \(float32\), 1 \(bfloat16\).*7 \(uint8\)/);
  });
});

describe("printing a dtype", () => {
  it("shows its name in console.log / util.inspect, String, template strings and JSON", () => {
    for (const t of ALL_DTYPES) {
      expect(inspect(t)).toBe(t.name);
      expect(String(t)).toBe(t.name);
      expect(`${t}`).toBe(t.name);
      expect(JSON.stringify(t)).toBe(JSON.stringify(t.name));
    }
    expect(inspect({ dtype: kInt })).toBe("{ dtype: int32 }");
    expect(inspect([kBFloat16, kUInt8])).toBe("[ bfloat16, uint8 ]");
    expect(JSON.stringify({ dtype: kLong })).toBe('{"dtype":"int64"}');
    expect(format("%s %o", kHalf, kHalf)).toBe("float16 float16");
  });

  it("console.log prints the name", () => {
    const lines: string[] = [];
    const log = new Console({ stdout: new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }) });
    log.log(kFloat);
    log.log(zeros([2], kShort).dtype);
    expect(lines).toEqual(["float32\n", "int16\n"]);
  });
});

describe("dtypeInfo", () => {
  it("describes every type", () => {
    const rows = ALL_DTYPES.map((t) => {
      const i = dtypeInfo(t);
      expect(i.dtype).toBe(t);
      return [i.dtype.scalarType, i.name, i.bytes, i.isFloating, i.isIntegral];
    });
    expect(rows).toEqual([
      [0, "float32", 4, true, false],
      [1, "bfloat16", 2, true, false],
      [2, "float16", 2, true, false],
      [3, "int32", 4, false, true],
      [4, "int8", 1, false, true],
      [5, "int64", 8, false, true],
      [6, "int16", 2, false, true],
      [7, "uint8", 1, false, true],
    ]);
  });

  it("rejects anything but a dtype with a TypeError naming it and listing the valid ones", () => {
    const lookalike = { name: "float32", scalarType: 0 };
    for (const bad of [0, 8, "float32", undefined, lookalike]) {
      expect(() => dtypeInfo(bad as unknown as DType)).toThrow(TypeError);
    }
    expect(() => dtypeInfo(3 as unknown as DType)).toThrow(/Invalid dtype 3; valid dtypes are kFloat, kBFloat16, .* or kByte/);
  });
});

describe("parseDType", () => {
  const expected: [string, DType][] = [
    ["float32", kFloat], ["float", kFloat], ["f32", kFloat],
    ["bfloat16", kBFloat16], ["bf16", kBFloat16],
    ["float16", kHalf], ["half", kHalf], ["f16", kHalf],
    ["int32", kInt], ["int", kInt], ["i32", kInt],
    ["int8", kChar], ["i8", kChar],
    ["int64", kLong], ["long", kLong], ["i64", kLong],
    ["int16", kShort], ["short", kShort], ["i16", kShort],
    ["uint8", kByte], ["u8", kByte],
  ];

  it("accepts every documented name", () => {
    for (const [name, t] of expected) expect(parseDType(name), name).toBe(t);
    expect([...DTYPE_NAMES].sort()).toEqual(expected.map(([n]) => n).sort());
  });

  it("ignores case and surrounding whitespace", () => {
    expect(parseDType("BFloat16")).toBe(kBFloat16);
    expect(parseDType(" F32 ")).toBe(kFloat);
  });

  it("returns a dtype as it is, and its printed name gives it back", () => {
    for (const t of ALL_DTYPES) {
      expect(parseDType(t)).toBe(t);
      expect(parseDType(String(t))).toBe(t);
    }
  });

  it("rejects ScalarType numbers with a DTypeNameError that names the dtype to write instead", () => {
    let caught: unknown;
    try {
      parseDType(3 as unknown as DType);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DTypeNameError);
    expect((caught as DTypeNameError).code).toBe("E_DTYPE_NAME");
    expect((caught as Error).message).toMatch(/^Unknown dtype 3 \(a number is the kernel's ScalarType; on the host write kInt\); pass kFloat, kBFloat16, .*or one of the names float32, /);
    expect(() => parseDType(0 as unknown as DType)).toThrow(/write kFloat/);
    expect(() => parseDType(8 as unknown as DType)).toThrow(DTypeNameError);
  });

  it("rejects unknown names with a typed gpsimd error (E_DTYPE_NAME) listing the accepted ones", () => {
    let caught: unknown;
    try {
      parseDType("float33");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DTypeNameError);
    expect((caught as DTypeNameError).code).toBe("E_DTYPE_NAME");
    expect((caught as DTypeNameError).details.names).toEqual(DTYPE_NAMES);
    const msg = (caught as Error).message;
    expect(msg).toContain('"float33"');
    for (const [name] of expected) expect(msg).toContain(name);
    for (const bad of ["", "float64", "uint16", "bool", "torch.float32"]) expect(() => parseDType(bad)).toThrow(DTypeNameError);
    for (const bad of [{}, undefined, null, { name: "float32", scalarType: 0 }]) expect(() => parseDType(bad as unknown as string)).toThrow(DTypeNameError);
  });
});

describe("storageArray", () => {
  it("creates the right view type without copying", () => {
    const buf = new ArrayBuffer(64);
    const kinds = ALL_DTYPES.map((t) => storageArray(t, buf, 8, 4).constructor.name);
    expect(kinds).toEqual(["Float32Array", "Uint16Array", "Uint16Array", "Int32Array", "Int8Array", "BigInt64Array", "Int16Array", "Uint8Array"]);
    const v = storageArray(kInt, buf, 8, 4) as Int32Array;
    v[0] = 0x01020304;
    expect(new Uint8Array(buf)[8]).toBe(4);
    expect(v.byteOffset).toBe(8);
  });

  it("works on a SharedArrayBuffer", () => {
    const sab = new SharedArrayBuffer(16);
    const v = storageArray(kHalf, sab, 2, 3);
    expect(v).toBeInstanceOf(Uint16Array);
    expect(v.buffer).toBe(sab);
  });

  it("rejects misaligned or out-of-bounds views", () => {
    const buf = new ArrayBuffer(32);
    expect(() => storageArray(kLong, buf, 4, 1)).toThrow(/multiple of the element size 8/);
    expect(() => storageArray(kFloat, buf, 0, 9)).toThrow(RangeError);
    expect(() => storageArray(kFloat, buf, -4, 1)).toThrow(RangeError);
    expect(() => storageArray(2 as unknown as DType, buf, 0, 1)).toThrow(TypeError);
  });
});

describe("float16", () => {
  it("decodes all 65536 patterns exactly as the IEEE definition says", () => {
    const all = new Uint16Array(65536);
    for (let h = 0; h < 65536; h++) all[h] = h;
    const bulk = decodeToArray(kHalf, all);
    for (let h = 0; h < 65536; h++) {
      const ref = refF16Value(h);
      const v = f16BitsToF32(h);
      if (Number.isNaN(ref)) {
        if (!Number.isNaN(v) || !Number.isNaN(bulk[h])) throw new Error(`0x${h.toString(16)} should decode to NaN`);
        // Bit-level decode keeps sign and payload.
        const b = f16BitsToF32Bits(h);
        if (b !== ((((h & 0x8000) << 16) | 0x7f800000 | ((h & 0x3ff) << 13)) >>> 0)) throw new Error(`NaN bits 0x${h.toString(16)}`);
      } else if (!Object.is(v, ref) || !Object.is(bulk[h], ref) || f16BitsToF32Bits(h) !== bitsOfF32(ref)) {
        throw new Error(`0x${h.toString(16)}: got ${v} / ${bulk[h]}, expected ${ref}`);
      }
    }
  });

  it("round-trips all 65536 patterns (NaNs stay NaN)", () => {
    for (let h = 0; h < 65536; h++) {
      const back = f32ToF16Bits(f16BitsToF32(h));
      if (isF16NaN(h) ? !isF16NaN(back) || (back & 0x8000) !== (h & 0x8000) : back !== h) {
        throw new Error(`0x${h.toString(16)} -> 0x${back.toString(16)}`);
      }
      // Bit-level path: NaNs are quieted and keep sign and payload.
      const back2 = f32BitsToF16Bits(f16BitsToF32Bits(h));
      const want = isF16NaN(h) ? h | 0x200 : h;
      if (back2 !== want) throw new Error(`bits 0x${h.toString(16)} -> 0x${back2.toString(16)}`);
    }
  });

  it("rounds float32 values to the nearest float16, ties to even", () => {
    const cases = float32Cases(F16, 127 - 30, 127 + 17, 12345);
    expect(cases.length).toBeGreaterThan(300000);
    const src = Float32Array.from(cases);
    const bulk = new Uint16Array(cases.length);
    encodeInto(kHalf, bulk, src);
    const bulkPlain = new Uint16Array(cases.length);
    encodeInto(kHalf, bulkPlain, cases);
    let bad = 0;
    const firstBad: string[] = [];
    for (let i = 0; i < cases.length; i++) {
      const x = cases[i]!;
      const want = refNearest(F16, x);
      const got = f32ToF16Bits(x);
      if (got !== want || bulk[i] !== want || bulkPlain[i] !== want) {
        bad++;
        if (firstBad.length < 5) firstBad.push(`${x}: got 0x${got.toString(16)}, want 0x${want.toString(16)}`);
      }
    }
    expect(firstBad).toEqual([]);
    expect(bad).toBe(0);
  });

  it("handles the hand-computed cases", () => {
    expect(f32ToF16Bits(1)).toBe(0x3c00);
    expect(f32ToF16Bits(-2)).toBe(0xc000);
    expect(f32ToF16Bits(65504)).toBe(0x7bff);
    expect(f32ToF16Bits(65519.99)).toBe(0x7bff); // float32(65519.99) < 65520: rounds down to max
    expect(f32ToF16Bits(65520)).toBe(0x7c00); // exactly halfway to 2^16: ties to even -> Inf
    expect(f32ToF16Bits(-65520)).toBe(0xfc00);
    expect(f32ToF16Bits(1e10)).toBe(0x7c00);
    expect(f32ToF16Bits(Infinity)).toBe(0x7c00);
    expect(f32ToF16Bits(-Infinity)).toBe(0xfc00);
    expect(f32ToF16Bits(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(f32ToF16Bits(2 ** -25)).toBe(0x0000); // tie between 0 and 2^-24 -> even (0)
    expect(f32ToF16Bits(-(2 ** -25))).toBe(0x8000); // ... keeping the sign
    expect(f32ToF16Bits(2 ** -25 + 2 ** -40)).toBe(0x0001); // just above the tie
    expect(f32ToF16Bits(3 * 2 ** -26)).toBe(0x0001); // 0.75 * 2^-24
    expect(f32ToF16Bits(1.5 * 2 ** -24)).toBe(0x0002); // tie between 1 and 2 units -> 2
    expect(f32ToF16Bits(2.5 * 2 ** -24)).toBe(0x0002); // tie between 2 and 3 units -> 2
    expect(f32ToF16Bits(1023.5 * 2 ** -24)).toBe(0x0400); // largest subnormal rounds up into the smallest normal
    expect(f32ToF16Bits(2 ** -14)).toBe(0x0400);
    expect(f32ToF16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie -> even
    expect(f32ToF16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie -> even
    expect(f32ToF16Bits(1e-45)).toBe(0x0000); // float32 subnormal underflows
    expect(Object.is(f16BitsToF32(f32ToF16Bits(-0)), -0)).toBe(true);
    expect(f32ToF16Bits(-0)).toBe(0x8000);
    expect(f16BitsToF32(0x0001)).toBe(2 ** -24);
    expect(f16BitsToF32(0x7bff)).toBe(65504);
    expect(f16BitsToF32(0x3555)).toBe(0.333251953125);
  });

  it("rounds a JS double to float32 first (float32 -> float16 as on the device)", () => {
    // 1 + 2^-11 + 2^-40 is above the float16 tie, but as a float32 it is exactly the tie, which goes to even.
    expect(f32ToF16Bits(1 + 2 ** -11 + 2 ** -40)).toBe(0x3c00);
  });

  it("keeps NaN a quiet NaN with its sign", () => {
    expect(isF16NaN(f32ToF16Bits(NaN))).toBe(true);
    expect(f32BitsToF16Bits(0x7fc00000)).toBe(0x7e00);
    expect(f32BitsToF16Bits(0xffc00000)).toBe(0xfe00);
    expect(f32BitsToF16Bits(0x7f800001)).toBe(0x7e00); // signalling NaN with only low payload bits: not Inf
    expect(f32BitsToF16Bits(0xff812345)).toBe(0xfe00 | (0x012345 >>> 13));
    const src = new Float32Array(new Uint32Array([0x7f800001, 0xffc00001, 0x7fa00000]).buffer);
    const dst = new Uint16Array(3);
    encodeInto(kHalf, dst, src);
    expect([...dst]).toEqual([0x7e00, 0xfe00, 0x7f00]);
  });
});

describe("bfloat16", () => {
  it("decodes all 65536 patterns exactly as the definition says", () => {
    const all = new Uint16Array(65536);
    for (let h = 0; h < 65536; h++) all[h] = h;
    const bulk = decodeToArray(kBFloat16, all);
    const bulkBits = new Uint32Array(bulk.buffer);
    for (let h = 0; h < 65536; h++) {
      const ref = refBf16Value(h);
      const v = bf16BitsToF32(h);
      if (bulkBits[h] !== (h << 16) >>> 0 || bf16BitsToF32Bits(h) !== (h << 16) >>> 0) throw new Error(`bits 0x${h.toString(16)}`);
      if (Number.isNaN(ref) ? !Number.isNaN(v) : !Object.is(v, ref)) throw new Error(`0x${h.toString(16)}: got ${v}, expected ${ref}`);
    }
  });

  it("round-trips all 65536 patterns (NaNs stay NaN)", () => {
    for (let h = 0; h < 65536; h++) {
      const back = f32ToBf16Bits(bf16BitsToF32(h));
      if (isBf16NaN(h) ? !isBf16NaN(back) || (back & 0x8000) !== (h & 0x8000) : back !== h) {
        throw new Error(`0x${h.toString(16)} -> 0x${back.toString(16)}`);
      }
      const back2 = f32BitsToBf16Bits(bf16BitsToF32Bits(h));
      if (back2 !== (isBf16NaN(h) ? h | 0x40 : h)) throw new Error(`bits 0x${h.toString(16)} -> 0x${back2.toString(16)}`);
    }
  });

  it("rounds float32 values (including subnormals) to the nearest bfloat16, ties to even", () => {
    const cases = float32Cases(BF16, 0, 254, 987654);
    // Extra float32 subnormals.
    const rnd = xorshift32(777);
    for (let i = 0; i < 20000; i++) cases.push(f32FromBits(((rnd() & 0x80000000) | (rnd() & 0x7fffff)) >>> 0));
    const src = Float32Array.from(cases);
    const bulk = new Uint16Array(cases.length);
    encodeInto(kBFloat16, bulk, src);
    const firstBad: string[] = [];
    let bad = 0;
    for (let i = 0; i < cases.length; i++) {
      const x = cases[i]!;
      const want = refNearest(BF16, x);
      const got = f32ToBf16Bits(x);
      if (got !== want || bulk[i] !== want) {
        bad++;
        if (firstBad.length < 5) firstBad.push(`${x}: got 0x${got.toString(16)}, want 0x${want.toString(16)}`);
      }
    }
    expect(firstBad).toEqual([]);
    expect(bad).toBe(0);
  });

  it("handles the hand-computed cases", () => {
    expect(f32ToBf16Bits(1)).toBe(0x3f80);
    expect(f32ToBf16Bits(1.00390625)).toBe(0x3f80); // 1 + 2^-8: tie -> even (1.0)
    expect(f32ToBf16Bits(1.01171875)).toBe(0x3f82); // 1 + 3*2^-8: tie -> even (1.015625)
    expect(bf16BitsToF32(0x3f82)).toBe(1.015625);
    expect(f32ToBf16Bits(1.00390625 + 2 ** -23)).toBe(0x3f81); // one float32 ulp above the tie
    expect(f32ToBf16Bits(-3.140625)).toBe(0xc049);
    expect(f32ToBf16Bits(3.4028234663852886e38)).toBe(0x7f80); // float32 max rounds up to Inf
    expect(f32ToBf16Bits(3.3895313892515355e38)).toBe(0x7f7f); // bfloat16 max
    expect(f32ToBf16Bits(Infinity)).toBe(0x7f80);
    expect(f32ToBf16Bits(-Infinity)).toBe(0xff80);
    expect(f32ToBf16Bits(-0)).toBe(0x8000);
    expect(Object.is(bf16BitsToF32(0x8000), -0)).toBe(true);
    expect(f32ToBf16Bits(2 ** -133)).toBe(0x0001); // smallest bfloat16 subnormal
    expect(f32ToBf16Bits(2 ** -134)).toBe(0x0000); // tie -> even
    expect(f32ToBf16Bits(3 * 2 ** -134)).toBe(0x0002); // tie -> even
    expect(f32ToBf16Bits(2 ** -149)).toBe(0x0000); // smallest float32 subnormal
    expect(bf16BitsToF32(0x0001)).toBe(2 ** -133);
  });

  it("keeps NaN a quiet NaN with its sign", () => {
    expect(isBf16NaN(f32ToBf16Bits(NaN))).toBe(true);
    expect(f32BitsToBf16Bits(0x7fc00000)).toBe(0x7fc0);
    expect(f32BitsToBf16Bits(0xffc00000)).toBe(0xffc0);
    expect(f32BitsToBf16Bits(0x7f800001)).toBe(0x7fc0); // would truncate to Inf without quieting
    expect(f32BitsToBf16Bits(0xff812345)).toBe(0xffc1);
    expect(f32BitsToBf16Bits(0x7fffffff)).toBe(0x7fff); // no rounding carry into the sign
    const src = new Float32Array(new Uint32Array([0x7f800001, 0xffc00001, 0x7fa00000]).buffer);
    const dst = new Uint16Array(3);
    encodeInto(kBFloat16, dst, src);
    expect([...dst]).toEqual([0x7fc0, 0xffc0, 0x7fe0]);
  });
});

describe("encodeScalar / decodeScalar", () => {
  it("wraps integers like a C cast: truncate toward zero, then modulo 2^bits", () => {
    expect(encodeScalar(kChar, 300)).toBe(44);
    expect(encodeScalar(kChar, -129)).toBe(127);
    expect(encodeScalar(kChar, 127.9)).toBe(127);
    expect(encodeScalar(kChar, -128.9)).toBe(-128);
    expect(encodeScalar(kChar, 255)).toBe(-1);
    expect(encodeScalar(kByte, -1)).toBe(255);
    expect(encodeScalar(kByte, 256)).toBe(0);
    expect(encodeScalar(kByte, -0.5)).toBe(0);
    expect(encodeScalar(kByte, 255.99)).toBe(255);
    expect(encodeScalar(kShort, 40000)).toBe(-25536);
    expect(encodeScalar(kShort, -32769)).toBe(32767);
    expect(encodeScalar(kInt, 2 ** 31)).toBe(-(2 ** 31));
    expect(encodeScalar(kInt, 2 ** 32 + 5)).toBe(5);
    expect(encodeScalar(kInt, -2.7)).toBe(-2);
    expect(encodeScalar(kInt, -0)).toBe(0);
    expect(encodeScalar(kChar, 300n)).toBe(44);
    expect(encodeScalar(kByte, -1n)).toBe(255);
    expect(encodeScalar(kInt, 2n ** 40n + 7n)).toBe(7);
  });

  it("wraps int64 values, number or bigint", () => {
    expect(encodeScalar(kLong, 2n ** 63n)).toBe(-(2n ** 63n));
    expect(encodeScalar(kLong, 2n ** 64n + 5n)).toBe(5n);
    expect(encodeScalar(kLong, -1n)).toBe(-1n);
    expect(encodeScalar(kLong, -(2n ** 63n) - 1n)).toBe(2n ** 63n - 1n);
    expect(encodeScalar(kLong, 2 ** 63)).toBe(-(2n ** 63n));
    expect(encodeScalar(kLong, 2 ** 64 + 2 ** 12)).toBe(4096n);
    expect(encodeScalar(kLong, 1.9)).toBe(1n);
    expect(encodeScalar(kLong, -1.9)).toBe(-1n);
    expect(encodeScalar(kLong, 9007199254740993n)).toBe(9007199254740993n);
  });

  it("matches a BigInt reference for random doubles of every magnitude", () => {
    const rnd = xorshift32(4242);
    const specs: [DType, number, boolean][] = [[kInt, 32, true], [kChar, 8, true], [kShort, 16, true], [kByte, 8, false], [kLong, 64, true]];
    const values: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const mag = 2 ** ((rnd() % 140) - 10);
      values.push((rnd() / 2 ** 32 - 0.5) * mag);
    }
    for (const [t, bits, signed] of specs) {
      const ref = (v: number) => {
        const b = BigInt(Math.trunc(v));
        return signed ? BigInt.asIntN(bits, b) : BigInt.asUintN(bits, b);
      };
      const expected = values.map((v) => (t === kLong ? ref(v) : Number(ref(v))));
      expect(values.map((v) => encodeScalar(t, v))).toEqual(expected);
      const dst = storageArray(t, new ArrayBuffer(values.length * dtypeInfo(t).bytes), 0, values.length);
      encodeInto(t, dst, Float64Array.from(values));
      expect([...dst]).toEqual(expected);
    }
  });

  it("rejects NaN and infinities for integer types", () => {
    for (const t of [kInt, kChar, kShort, kByte, kLong]) {
      for (const v of [NaN, Infinity, -Infinity]) expect(() => encodeScalar(t, v)).toThrow(TensorValueError);
      const dst = storageArray(t, new ArrayBuffer(8 * 3), 0, 3);
      expect(() => encodeInto(t, dst, [1, NaN, 2])).toThrow(/Cannot convert NaN to/);
    }
  });

  it("encodes floats", () => {
    expect(encodeScalar(kFloat, 0.1)).toBe(Math.fround(0.1));
    expect(encodeScalar(kFloat, 1e300)).toBe(Infinity);
    expect(encodeScalar(kFloat, 3n)).toBe(3);
    expect(encodeScalar(kBFloat16, 1)).toBe(0x3f80);
    expect(encodeScalar(kHalf, 1)).toBe(0x3c00);
    expect(encodeScalar(kHalf, 2n)).toBe(0x4000);
  });

  it("decodes storage values", () => {
    expect(decodeScalar(kChar, 200)).toBe(-56);
    expect(decodeScalar(kChar, -5)).toBe(-5);
    expect(decodeScalar(kByte, 255)).toBe(255);
    expect(decodeScalar(kByte, -1)).toBe(255);
    expect(decodeScalar(kShort, 0xffff)).toBe(-1);
    expect(decodeScalar(kInt, 0xffffffff)).toBe(-1);
    expect(decodeScalar(kLong, 5)).toBe(5n);
    expect(decodeScalar(kLong, 2n ** 64n - 1n)).toBe(-1n);
    expect(decodeScalar(kHalf, 0x3c00)).toBe(1);
    expect(decodeScalar(kBFloat16, 0xc049)).toBe(-3.140625);
    expect(decodeScalar(kFloat, 0.1)).toBe(Math.fround(0.1));
    expect(() => decodeScalar(2 as unknown as DType, 0)).toThrow(TypeError);
    for (const t of ALL_DTYPES) {
      const enc = encodeScalar(t, 3);
      expect(decodeScalar(t, enc)).toBe(t === kLong ? 3n : 3);
    }
  });
});

describe("encodeInto / decodeToArray", () => {
  it("round-trips every dtype through storage", () => {
    const values = [0, 1, -2, 3.5, 100, -100.25, 127, 1000];
    for (const t of ALL_DTYPES) {
      const { bytes } = dtypeInfo(t);
      const store = storageArray(t, new ArrayBuffer(values.length * bytes), 0, values.length);
      encodeInto(t, store, values);
      const back = decodeToArray(t, store);
      const expected = values.map((v) => decodeScalar(t, encodeScalar(t, v)));
      expect([...back], dtypeInfo(t).name).toEqual(expected);
    }
  });

  it("returns arrays of the documented types, as copies", () => {
    const sab = new SharedArrayBuffer(64);
    const kinds = ALL_DTYPES.map((t) => {
      const store = storageArray(t, sab, 0, 4);
      const out = decodeToArray(t, store);
      expect(out.buffer).not.toBe(sab);
      return out.constructor.name;
    });
    expect(kinds).toEqual(["Float32Array", "Float32Array", "Float32Array", "Int32Array", "Int8Array", "BigInt64Array", "Int16Array", "Uint8Array"]);
    const src = new Int32Array([1, 2, 3]);
    const copy = decodeToArray(kInt, src);
    src[0] = 99;
    expect([...copy]).toEqual([1, 2, 3]);
  });

  it("accepts bigint sources", () => {
    const l = new BigInt64Array(3);
    encodeInto(kLong, l, [1n, 2n ** 64n + 2n, -(2n ** 63n) - 1n]);
    expect([...l]).toEqual([1n, 2n, 2n ** 63n - 1n]);
    encodeInto(kLong, l, new BigUint64Array([2n ** 64n - 1n]));
    expect(l[0]).toBe(-1n);
    const c = new Int8Array(2);
    encodeInto(kChar, c, [300n, -129n]);
    expect([...c]).toEqual([44, 127]);
    const f = new Float32Array(1);
    encodeInto(kFloat, f, [5n]);
    expect(f[0]).toBe(5);
    const l2 = new BigInt64Array(2);
    encodeInto(kLong, l2, [1.9, -(2 ** 63)]);
    expect([...l2]).toEqual([1n, -(2n ** 63n)]);
  });

  it("converts between integer typed arrays with wrapping", () => {
    const c = new Int8Array(3);
    encodeInto(kChar, c, new Int32Array([300, -129, 5]));
    expect([...c]).toEqual([44, 127, 5]);
    const u = new Uint8Array(2);
    encodeInto(kByte, u, new Int16Array([-1, 256]));
    expect([...u]).toEqual([255, 0]);
  });

  it("checks the storage type and length", () => {
    expect(() => encodeInto(kHalf, new Float32Array(2), [1])).toThrow(/float16 storage must be a Uint16Array, got Float32Array/);
    expect(() => encodeInto(kFloat, new Float32Array(1), [1, 2])).toThrow(RangeError);
    expect(() => decodeToArray(kLong, new Int32Array(2))).toThrow(TypeError);
    // Shorter source fills a prefix.
    const d = new Int16Array([9, 9, 9]);
    encodeInto(kShort, d, [1, 2]);
    expect([...d]).toEqual([1, 2, 9]);
  });
});

describe("factories on empty tensors", () => {
  it("zeros, ones, full and empty of every dtype with no elements give a tensor of no elements", () => {
    for (const name of ["float32", "bfloat16", "float16", "int32", "int8", "int64", "int16", "uint8"] as const) {
      for (const make of [() => zeros([0], name), () => ones([2, 0], name), () => full([0, 3], 7, name), () => empty([0], name)]) {
        const t = make();
        expect(t.numel(), name).toBe(0);
        expect(Array.from(t.data() as ArrayLike<number | bigint>), name).toEqual([]);
      }
    }
  });
});
