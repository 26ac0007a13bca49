/**
 * Tensor element types and exact conversions between JS values and their storage representation.
 *
 * The 8 dtypes are the ones of the AWS Neuron GpSimd custom-operator API. Floating types are stored as
 * float32 (Float32Array) or as raw 16-bit patterns (Uint16Array) for bfloat16 / float16; integral types
 * use the matching typed array (int64 uses BigInt64Array, so its JS values are bigints).
 *
 * All 16-bit float conversions are exact IEEE-754 conversions with round-to-nearest-even, and they are
 * written as integer bit manipulation on a shared scratch pair so they are cheap enough to run per
 * element on large arrays.
 */
import { inspect } from "node:util";
import { DTypeNameError, TensorValueError } from "../checks/errors.js";

/**
 * The kernel side's ScalarType enum (assembly/dtype.ts, include/torch): the number a dtype is in WebAssembly
 * (descriptors, kernel arguments, C++ shape functions). Host code uses DType objects; this is their scalarType.
 */
export enum ScalarType {
  Float = 0,
  BFloat16 = 1,
  Half = 2,
  Int = 3,
  Char = 4,
  Long = 5,
  Short = 6,
  Byte = 7,
}

/** The canonical dtype names, as numpy and torch spell them (without "torch."). */
export type DTypeName = "float32" | "bfloat16" | "float16" | "int32" | "int8" | "int64" | "int16" | "uint8";

/**
 * A tensor element type, as torch.dtype: one frozen object per type, so dtypes compare by identity
 * (`t.dtype === kFloat`), and one prints as its name (`float32`) in console.log, util.inspect, String and
 * JSON. `scalarType` is the number it is on the kernel side; only that number crosses into WebAssembly.
 * The 8 objects are the only ones there are (kFloat, kBFloat16, ... below; the constructor is private).
 */
export class DType<N extends DTypeName = DTypeName> {
  private constructor(
    /** Canonical name: "float32", "bfloat16", "float16", "int32", "int8", "int64", "int16", "uint8". */
    readonly name: N,
    /** The kernel-side ScalarType number. */
    readonly scalarType: ScalarType,
  ) {
    Object.freeze(this);
  }

  /** The name, e.g. "float32". */
  toString(): N { return this.name; }
  /** JSON holds the name: JSON.stringify({ dtype: kInt }) is {"dtype":"int32"}. */
  toJSON(): N { return this.name; }
  /** console.log and util.inspect show the name unquoted, as torch shows torch.float32. */
  [inspect.custom](): string { return this.name; }
}

// The private constructor keeps these the only instances; this module is the one place that calls it.
const make = <N extends DTypeName>(name: N, t: ScalarType) =>
  new (DType as unknown as new (name: N, t: ScalarType) => DType<N>)(name, t);

// PyTorch-style names used by kernels and shape functions, and their aliases.
export const kFloat = make("float32", ScalarType.Float);
export const kFloat32 = kFloat;
export const kBFloat16 = make("bfloat16", ScalarType.BFloat16);
export const kHalf = make("float16", ScalarType.Half);
export const kFloat16 = kHalf;
export const kInt = make("int32", ScalarType.Int);
export const kInt32 = kInt;
export const kChar = make("int8", ScalarType.Char);
export const kInt8 = kChar;
export const kLong = make("int64", ScalarType.Long);
export const kInt64 = kLong;
export const kShort = make("int16", ScalarType.Short);
export const kInt16 = kShort;
export const kByte = make("uint8", ScalarType.Byte);
export const kUInt8 = kByte;

/** Every dtype, in ScalarType order (ALL_DTYPES[n].scalarType === n). */
export const ALL_DTYPES: readonly DType[] = Object.freeze([kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte]);

export interface DTypeInfo {
  readonly dtype: DType;
  /** Canonical name: "float32", "bfloat16", "float16", "int32", "int8", "int64", "int16", "uint8". */
  readonly name: DTypeName;
  /** Size of one element in bytes. */
  readonly bytes: number;
  readonly isFloating: boolean;
  readonly isIntegral: boolean;
}

function info(dtype: DType, bytes: number, isFloating: boolean): DTypeInfo {
  return Object.freeze({ dtype, name: dtype.name, bytes, isFloating, isIntegral: !isFloating });
}

/** Indexed by ScalarType value. */
const INFOS: readonly DTypeInfo[] = Object.freeze([
  info(kFloat, 4, true),
  info(kBFloat16, 2, true),
  info(kHalf, 2, true),
  info(kInt, 4, false),
  info(kChar, 1, false),
  info(kLong, 8, false),
  info(kShort, 2, false),
  info(kByte, 1, false),
]);

function describeValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  return String(v);
}

/** True for one of the 8 dtype objects. */
function isDType(t: unknown): t is DType {
  return t instanceof DType && ALL_DTYPES[t.scalarType] === t;
}

const VALID_TEXT = "kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort or kByte";

/** Metadata for a dtype. Throws TypeError for anything that is not a DType. */
export function dtypeInfo(t: DType): DTypeInfo {
  if (!isDType(t)) throw new TypeError(`Invalid dtype ${describeValue(t)}; valid dtypes are ${VALID_TEXT}`);
  return INFOS[t.scalarType]!;
}

/**
 * The dtype a kernel-side ScalarType number stands for (a descriptor's or a C++ shape function's dtype).
 * Throws TypeError for a number that is not one.
 */
export function dtypeFromScalarType(n: number): DType {
  const t = Number.isInteger(n) ? ALL_DTYPES[n] : undefined;
  if (t === undefined) {
    throw new TypeError(`Invalid ScalarType ${describeValue(n)}; valid values are ${ALL_DTYPES.map((d) => `${d.scalarType} (${d.name})`).join(", ")}`);
  }
  return t;
}

const NAME_TABLE: ReadonlyMap<string, DType> = new Map<string, DType>([
  ["float32", kFloat],
  ["float", kFloat],
  ["f32", kFloat],
  ["bfloat16", kBFloat16],
  ["bf16", kBFloat16],
  ["float16", kHalf],
  ["half", kHalf],
  ["f16", kHalf],
  ["int32", kInt],
  ["int", kInt],
  ["i32", kInt],
  ["int8", kChar],
  ["i8", kChar],
  ["int64", kLong],
  ["long", kLong],
  ["i64", kLong],
  ["int16", kShort],
  ["short", kShort],
  ["i16", kShort],
  ["uint8", kByte],
  ["u8", kByte],
]);

/** Names accepted by parseDType (matching is case-insensitive and ignores surrounding whitespace). */
export const DTYPE_NAMES: readonly string[] = Object.freeze([...NAME_TABLE.keys()]);

/**
 * Resolve a dtype given as a DType (kFloat, t.dtype, ...) or by name ("float32", "bf16", "half", "i64", ...).
 * Anything else throws DTypeNameError (E_DTYPE_NAME) listing the accepted names: an unknown name, and a
 * number too (the kernel's ScalarType numbers are not host dtypes: write kInt, not 3).
 */
export function parseDType(name: DType | string): DType {
  if (isDType(name)) return name;
  if (typeof name === "string") {
    const t = NAME_TABLE.get(name.trim().toLowerCase());
    if (t !== undefined) return t;
  }
  const key = typeof name === "number" ? ScalarType[name] : undefined;
  const hint = typeof name === "number" ? ` (a number is the kernel's ScalarType; on the host write ${key === undefined ? "a dtype" : `k${key}`})` : "";
  throw new DTypeNameError(
    "E_DTYPE_NAME",
    `Unknown dtype ${describeValue(name)}${hint}; pass ${VALID_TEXT}, or one of the names ${DTYPE_NAMES.join(", ")}`,
    { details: { name: typeof name === "string" ? name : describeValue(name), names: DTYPE_NAMES } },
  );
}

export type StorageArray = Float32Array | Uint16Array | Int32Array | Int8Array | BigInt64Array | Int16Array | Uint8Array;

/** What decodeToArray returns: bfloat16 / float16 decode to float32, the other types keep their array type. */
export type DecodedArray = Float32Array | Int32Array | Int8Array | BigInt64Array | Int16Array | Uint8Array;

/**
 * A typed-array view of `length` elements of type t over `buffer` starting at `byteOffset`
 * (bfloat16 / float16 elements are viewed as their raw bits in a Uint16Array). No copy is made.
 */
export function storageArray(t: DType, buffer: ArrayBufferLike, byteOffset: number, length: number): StorageArray {
  const { name, bytes } = dtypeInfo(t);
  if (!Number.isSafeInteger(byteOffset) || byteOffset < 0) {
    throw new RangeError(`storageArray(${name}): byteOffset must be a non-negative integer, got ${describeValue(byteOffset)}`);
  }
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`storageArray(${name}): length must be a non-negative integer, got ${describeValue(length)}`);
  }
  if (byteOffset % bytes !== 0) {
    throw new RangeError(`storageArray(${name}): byteOffset ${byteOffset} is not a multiple of the element size ${bytes}`);
  }
  if (byteOffset + length * bytes > buffer.byteLength) {
    throw new RangeError(
      `storageArray(${name}): ${length} elements at byte offset ${byteOffset} need ${byteOffset + length * bytes} bytes ` +
        `but the buffer has ${buffer.byteLength}`,
    );
  }
  switch (t.scalarType) {
    case ScalarType.Float:
      return new Float32Array(buffer, byteOffset, length);
    case ScalarType.BFloat16:
    case ScalarType.Half:
      return new Uint16Array(buffer, byteOffset, length);
    case ScalarType.Int:
      return new Int32Array(buffer, byteOffset, length);
    case ScalarType.Char:
      return new Int8Array(buffer, byteOffset, length);
    case ScalarType.Long:
      return new BigInt64Array(buffer, byteOffset, length);
    case ScalarType.Short:
      return new Int16Array(buffer, byteOffset, length);
    case ScalarType.Byte:
      return new Uint8Array(buffer, byteOffset, length);
  }
}

// ---------------------------------------------------------------------------------------------------------
// 16-bit float conversions.
// ---------------------------------------------------------------------------------------------------------

/** Shared scratch pair used to move between float32 values and their bit patterns. */
const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/**
 * float32 bit pattern -> bfloat16 bit pattern, round-to-nearest-even.
 * NaN stays NaN with its sign and top payload bits, and is quieted (a signalling NaN whose payload lives
 * only in the low 16 bits would otherwise truncate to Inf). Overflow rounds to ±Inf; float32 subnormals
 * round like any other value (bfloat16 has the same exponent range, so they map to bfloat16 subnormals).
 */
export function f32BitsToBf16Bits(bits: number): number {
  bits = bits >>> 0;
  if ((bits & 0x7fffffff) > 0x7f800000) return ((bits >>> 16) | 0x0040) & 0xffff;
  // Add 0x7fff plus the lsb of the kept half: ties go to even, carries ripple into the exponent
  // (max finite float32 + carry gives exactly the Inf pattern 0x7f80 / 0xff80). Cannot exceed 2^32.
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** bfloat16 bit pattern -> float32 bit pattern (exact). */
export function bf16BitsToF32Bits(bits: number): number {
  return ((bits & 0xffff) << 16) >>> 0;
}

/**
 * float32 bit pattern -> float16 bit pattern, round-to-nearest-even.
 * Handles NaN (quieted, sign and top payload bits kept), ±Inf, overflow to ±Inf (|x| >= 65520),
 * results in the float16 subnormal range, underflow to ±0, and -0.
 */
export function f32BitsToF16Bits(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return mant !== 0 ? sign | 0x7e00 | (mant >>> 13) : sign | 0x7c00;
  const e = exp - 127; // unbiased exponent (float32 subnormals give e = -127: they underflow to 0 below)
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    // Normal float16 range: keep 10 mantissa bits, round on the 13 dropped ones. A carry out of the
    // mantissa correctly bumps the exponent (up to 0x7c00 = Inf for |x| >= 65520).
    const h = ((e + 15) << 10) | (mant >>> 13);
    const rem = mant & 0x1fff;
    return sign | (rem > 0x1000 || (rem === 0x1000 && (h & 1) !== 0) ? h + 1 : h);
  }
  if (e < -25) return sign; // |x| < 2^-25: below half the smallest subnormal (2^-24)
  // Subnormal float16: value = m * 2^(e-23) with the implicit bit; in units of 2^-24 that is m >> shift.
  const m = mant | 0x800000;
  const shift = -e - 1; // 14 .. 24
  const h = m >>> shift;
  const rem = m & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  // Rounding up from 0x3ff gives 0x400, the smallest normal: also correct.
  return sign | (rem > half || (rem === half && (h & 1) !== 0) ? h + 1 : h);
}

/** float16 bit pattern -> float32 bit pattern (exact; NaN payload bits are kept, signalling NaNs stay signalling). */
export function f16BitsToF32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exp = (h >>> 10) & 0x1f;
  let mant = h & 0x3ff;
  if (exp === 0x1f) return (sign | 0x7f800000 | (mant << 13)) >>> 0;
  if (exp !== 0) return (sign | ((exp + 112) << 23) | (mant << 13)) >>> 0;
  if (mant === 0) return sign >>> 0;
  // Subnormal: normalise. mant * 2^-24 with the leading one at bit k has exponent k - 24.
  let e = 113; // biased float32 exponent for 2^-14, decremented per shift
  while ((mant & 0x400) === 0) {
    mant <<= 1;
    e--;
  }
  return (sign | (e << 23) | ((mant & 0x3ff) << 13)) >>> 0;
}

/**
 * JS number -> bfloat16 bits. The number is first rounded to float32 (Math.fround semantics), so this is the
 * float32 -> bfloat16 conversion of the device; a double that is not a float32 value is rounded twice.
 */
export function f32ToBf16Bits(x: number): number {
  scratchF32[0] = x;
  return f32BitsToBf16Bits(scratchU32[0]!);
}

/** bfloat16 bits -> its (exact) value as a JS number. */
export function bf16BitsToF32(bits: number): number {
  scratchU32[0] = (bits & 0xffff) << 16;
  return scratchF32[0]!;
}

/**
 * JS number -> float16 bits. The number is first rounded to float32 (Math.fround semantics), so this is the
 * float32 -> float16 conversion of the device; a double that is not a float32 value is rounded twice.
 */
export function f32ToF16Bits(x: number): number {
  scratchF32[0] = x;
  return f32BitsToF16Bits(scratchU32[0]!);
}

/** float16 bits -> its (exact) value as a JS number. */
export function f16BitsToF32(bits: number): number {
  const exp = bits & 0x7c00;
  if (exp !== 0 && exp !== 0x7c00) {
    // Fast path for normal numbers.
    scratchU32[0] = ((bits & 0x8000) << 16) | (((bits & 0x7fff) + 0x1c000) << 13);
    return scratchF32[0]!;
  }
  scratchU32[0] = f16BitsToF32Bits(bits);
  return scratchF32[0]!;
}

// ---------------------------------------------------------------------------------------------------------
// Scalars.
// ---------------------------------------------------------------------------------------------------------

function nonFinite(t: DType, v: number): never {
  throw new TensorValueError("E_NOT_REPRESENTABLE", `Cannot convert ${v} to ${t.name}: only finite values convert to an integer type`, { details: { value: String(v), dtype: t.name } });
}

/**
 * Encode a JS value into the storage representation of t:
 * - float32: the value rounded to float32 (a number);
 * - bfloat16 / float16: the 16-bit pattern (a number), via float32 as on the device (see f32ToF16Bits);
 * - int32 / int8 / int16 / uint8: a number; int64: a bigint.
 *
 * Integer types behave like a C cast from double as the hardware does it with wrapping: the value is
 * truncated toward zero and then wrapped modulo 2^bits into the type's range (int8: 300 -> 44, -129 -> 127;
 * uint8: -1 -> 255). Bigint inputs wrap modulo 2^bits directly. NaN and ±Infinity have no integer value
 * (undefined behaviour in C), so they throw TensorValueError (E_NOT_REPRESENTABLE) instead. Bigint inputs to floating types are
 * converted with Number() first.
 */
export function encodeScalar(t: DType, v: number | bigint): number | bigint {
  switch (t.scalarType) {
    case ScalarType.Float:
      return Math.fround(Number(v));
    case ScalarType.BFloat16:
      return f32ToBf16Bits(Number(v));
    case ScalarType.Half:
      return f32ToF16Bits(Number(v));
    case ScalarType.Int:
      if (typeof v === "bigint") return Number(BigInt.asIntN(32, v));
      if (v - v !== 0) nonFinite(t, v);
      return v | 0; // ToInt32: truncate, then wrap modulo 2^32 (exact for every finite double)
    case ScalarType.Char:
      if (typeof v === "bigint") return Number(BigInt.asIntN(8, v));
      if (v - v !== 0) nonFinite(t, v);
      return (v << 24) >> 24;
    case ScalarType.Short:
      if (typeof v === "bigint") return Number(BigInt.asIntN(16, v));
      if (v - v !== 0) nonFinite(t, v);
      return (v << 16) >> 16;
    case ScalarType.Byte:
      if (typeof v === "bigint") return Number(BigInt.asUintN(8, v));
      if (v - v !== 0) nonFinite(t, v);
      return v & 0xff;
    case ScalarType.Long:
      if (typeof v === "bigint") return BigInt.asIntN(64, v);
      if (v - v !== 0) nonFinite(t, v);
      return BigInt.asIntN(64, BigInt(Math.trunc(v)));
    default:
      return dtypeInfo(t) as never; // throws
  }
}

/**
 * Decode a storage value of type t into a JS value: a number, or a bigint for int64.
 * bfloat16 / float16 take the 16-bit pattern; integer raw values are reinterpreted in the type's width
 * (so an int8 given the byte 200 decodes to -56).
 */
export function decodeScalar(t: DType, raw: number | bigint): number | bigint {
  switch (t.scalarType) {
    case ScalarType.Float:
      return Math.fround(Number(raw));
    case ScalarType.BFloat16:
      return bf16BitsToF32(Number(raw));
    case ScalarType.Half:
      return f16BitsToF32(Number(raw));
    case ScalarType.Int:
      return typeof raw === "bigint" ? Number(BigInt.asIntN(32, raw)) : raw | 0;
    case ScalarType.Char:
      return typeof raw === "bigint" ? Number(BigInt.asIntN(8, raw)) : (raw << 24) >> 24;
    case ScalarType.Short:
      return typeof raw === "bigint" ? Number(BigInt.asIntN(16, raw)) : (raw << 16) >> 16;
    case ScalarType.Byte:
      return typeof raw === "bigint" ? Number(BigInt.asUintN(8, raw)) : raw & 0xff;
    case ScalarType.Long:
      return BigInt.asIntN(64, typeof raw === "bigint" ? raw : BigInt(Math.trunc(raw)));
    default:
      return dtypeInfo(t) as never; // throws
  }
}

// ---------------------------------------------------------------------------------------------------------
// Bulk conversions.
// ---------------------------------------------------------------------------------------------------------

const STORAGE_CTORS = [Float32Array, Uint16Array, Uint16Array, Int32Array, Int8Array, BigInt64Array, Int16Array, Uint8Array] as const;

function checkStorage(t: DType, a: StorageArray, what: string): void {
  const ctor = STORAGE_CTORS[dtypeInfo(t).dtype.scalarType]!;
  if (!(a instanceof ctor)) {
    const got = (a as { constructor?: { name?: string } } | null)?.constructor?.name ?? typeof a;
    throw new TypeError(`${what}: ${t.name} storage must be a ${ctor.name}, got ${got}`);
  }
}

function isBigIntArray(src: ArrayLike<number> | ArrayLike<bigint>): src is ArrayLike<bigint> {
  if (src instanceof BigInt64Array || src instanceof BigUint64Array) return true;
  if (ArrayBuffer.isView(src)) return false;
  return src.length > 0 && typeof src[0] === "bigint";
}

function f32BitsView(src: ArrayLike<number>): Uint32Array | undefined {
  return src instanceof Float32Array ? new Uint32Array(src.buffer, src.byteOffset, src.length) : undefined;
}

/**
 * Encode `src` element by element into `dst[0 .. src.length)`, which must be t's storage array type
 * (see storageArray). Same rules as encodeScalar; a Float32Array source converts to bfloat16 / float16 from
 * its bit patterns, so NaN payloads and signs are preserved exactly.
 * Throws RangeError if dst is too short, TensorValueError if (for integer types) an element is NaN / ±Infinity.
 */
export function encodeInto(t: DType, dst: StorageArray, src: ArrayLike<number> | ArrayLike<bigint>): void {
  checkStorage(t, dst, "encodeInto");
  const n = src.length;
  if (n > dst.length) {
    throw new RangeError(`encodeInto(${t.name}): ${n} source elements do not fit in ${dst.length}`);
  }
  if (isBigIntArray(src)) {
    if (t === kLong) {
      const d = dst as BigInt64Array;
      for (let i = 0; i < n; i++) d[i] = src[i]!; // BigInt64Array stores wrap modulo 2^64
    } else {
      for (let i = 0; i < n; i++) dst[i] = encodeScalar(t, src[i]!) as number;
    }
    return;
  }
  switch (t.scalarType) {
    case ScalarType.Float:
      (dst as Float32Array).set(src);
      return;
    case ScalarType.BFloat16: {
      const d = dst as Uint16Array;
      const bits = f32BitsView(src);
      if (bits !== undefined) {
        for (let i = 0; i < n; i++) d[i] = f32BitsToBf16Bits(bits[i]!);
      } else {
        for (let i = 0; i < n; i++) {
          scratchF32[0] = src[i]!;
          d[i] = f32BitsToBf16Bits(scratchU32[0]!);
        }
      }
      return;
    }
    case ScalarType.Half: {
      const d = dst as Uint16Array;
      const bits = f32BitsView(src);
      if (bits !== undefined) {
        for (let i = 0; i < n; i++) d[i] = f32BitsToF16Bits(bits[i]!);
      } else {
        for (let i = 0; i < n; i++) {
          scratchF32[0] = src[i]!;
          d[i] = f32BitsToF16Bits(scratchU32[0]!);
        }
      }
      return;
    }
    case ScalarType.Long: {
      const d = dst as BigInt64Array;
      for (let i = 0; i < n; i++) {
        const v = src[i]!;
        if (v - v !== 0) nonFinite(t, v);
        d[i] = BigInt(Math.trunc(v)); // store wraps modulo 2^64
      }
      return;
    }
    default: {
      // int32 / int8 / int16 / uint8: typed-array stores do ToInt32/ToInt8/ToInt16/ToUint8, which is exactly
      // "truncate toward zero, wrap modulo 2^bits"; only non-finite values need rejecting.
      const d = dst as Int32Array | Int8Array | Int16Array | Uint8Array;
      const isIntSrc = src instanceof Int32Array || src instanceof Int16Array || src instanceof Int8Array ||
        src instanceof Uint8Array || src instanceof Uint16Array || src instanceof Uint32Array || src instanceof Uint8ClampedArray;
      if (isIntSrc) {
        d.set(src as ArrayLike<number>);
        return;
      }
      for (let i = 0; i < n; i++) {
        const v = src[i]!;
        if (v - v !== 0) nonFinite(t, v);
        d[i] = v;
      }
      return;
    }
  }
}

/** Decode t-typed storage into a fresh array: Float32Array for float32 / bfloat16 / float16, otherwise a copy of the same type. */
export function decodeToArray(t: DType<"float32" | "bfloat16" | "float16">, src: StorageArray): Float32Array;
export function decodeToArray(t: DType<"int32">, src: StorageArray): Int32Array;
export function decodeToArray(t: DType<"int8">, src: StorageArray): Int8Array;
export function decodeToArray(t: DType<"int64">, src: StorageArray): BigInt64Array;
export function decodeToArray(t: DType<"int16">, src: StorageArray): Int16Array;
export function decodeToArray(t: DType<"uint8">, src: StorageArray): Uint8Array;
export function decodeToArray(t: DType, src: StorageArray): DecodedArray;
export function decodeToArray(t: DType, src: StorageArray): DecodedArray {
  checkStorage(t, src, "decodeToArray");
  const n = src.length;
  switch (t.scalarType) {
    case ScalarType.BFloat16: {
      const s = src as Uint16Array;
      const out = new Float32Array(n);
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < n; i++) bits[i] = s[i]! << 16;
      return out;
    }
    case ScalarType.Half: {
      const s = src as Uint16Array;
      const out = new Float32Array(n);
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < n; i++) {
        const h = s[i]!;
        const exp = h & 0x7c00;
        bits[i] = exp !== 0 && exp !== 0x7c00 ? ((h & 0x8000) << 16) | (((h & 0x7fff) + 0x1c000) << 13) : f16BitsToF32Bits(h);
      }
      return out;
    }
    default: {
      // Copy into a fresh (non-shared) buffer of the same element type.
      const ctor = STORAGE_CTORS[t.scalarType] as unknown as new (n: number) => DecodedArray;
      const out = new ctor(n);
      (out as { set(a: ArrayLike<unknown>): void }).set(src as ArrayLike<unknown>);
      return out;
    }
  }
}
