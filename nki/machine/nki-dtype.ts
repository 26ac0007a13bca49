// NKI's element types as Python sees them (nl.float32, np.float32, ...): one HostObject per type,
// compared by identity and by hashKey (so `t.dtype == nl.float32` and dict keys work), printing as
// its name. Each knows the engine's code for it, its byte size, and the gpsimd DType an HBM tensor
// of it has (null where gpsimd's tensors have no such type).
import { HostObject, type PyValue } from "../python/values.js";
import { kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte, type DType } from "../../host/device/dtype.js";

/** The engine's dtype numbers (nki/machine/engine.ts EngineDType); -1 for a type gpsimd cannot compute in. */
export const ENGINE_CODE = {
  f32: 0, bf16: 1, f16: 2, i32: 3, i8: 4, i64: 5, i16: 6, u8: 7, u32: 8, u16: 9, f64: 10, none: -1,
} as const;

export type NkiDTypeKind = "float" | "int" | "uint" | "bool";

export class NkiDType extends HostObject {
  readonly typeName = "dtype";
  constructor(
    /** The NKI name: "float32", "bfloat16", "bool_", ... */
    readonly name: string,
    /** EngineDType number; -1 for types gpsimd has no arithmetic for (fp8, packed types). */
    readonly code: number,
    /** Bytes per element. */
    readonly bytes: number,
    readonly kind: NkiDTypeKind,
    /** The gpsimd DType of an HBM tensor of this type, or null. */
    readonly hostDType: DType | null,
  ) { super(); }

  get isFloat(): boolean { return this.kind === "float"; }
  get isInt(): boolean { return this.kind !== "float"; }
  /** True for types the engine computes in. */
  get supported(): boolean { return this.code >= 0; }

  override getAttr(name: string): PyValue | undefined {
    if (name === "itemsize") return this.bytes;
    if (name === "name" || name === "__name__") return this.name;
    return undefined;
  }
  override repr(): string { return this.name; }
  override str(): string { return this.name; }
  override hashKey(): string { return `nki-dtype:${this.name}`; }
}

const d = (name: string, code: number, bytes: number, kind: NkiDTypeKind, host: DType | null) => new NkiDType(name, code, bytes, kind, host);

export const float32 = d("float32", ENGINE_CODE.f32, 4, "float", kFloat);
export const bfloat16 = d("bfloat16", ENGINE_CODE.bf16, 2, "float", kBFloat16);
export const float16 = d("float16", ENGINE_CODE.f16, 2, "float", kHalf);
/** tf32 is computed and stored as float32 here (TensorE's reduced-mantissa multiply is not modelled). */
export const tfloat32 = d("tfloat32", ENGINE_CODE.f32, 4, "float", kFloat);
export const float64 = d("float64", ENGINE_CODE.f64, 8, "float", null);
export const int32 = d("int32", ENGINE_CODE.i32, 4, "int", kInt);
export const int16 = d("int16", ENGINE_CODE.i16, 2, "int", kShort);
export const int8 = d("int8", ENGINE_CODE.i8, 1, "int", kChar);
export const int64 = d("int64", ENGINE_CODE.i64, 8, "int", kLong);
export const uint8 = d("uint8", ENGINE_CODE.u8, 1, "uint", kByte);
export const uint16 = d("uint16", ENGINE_CODE.u16, 2, "uint", null);
export const uint32 = d("uint32", ENGINE_CODE.u32, 4, "uint", null);
/** Booleans are bytes holding 0 or 1. */
export const bool_ = d("bool_", ENGINE_CODE.u8, 1, "bool", kByte);
export const float8_e4m3 = d("float8_e4m3", ENGINE_CODE.none, 1, "float", null);
export const float8_e4m3fn = d("float8_e4m3fn", ENGINE_CODE.none, 1, "float", null);
export const float8_e5m2 = d("float8_e5m2", ENGINE_CODE.none, 1, "float", null);

/** Every NKI dtype by its nl.* attribute name. */
export const NKI_DTYPES: ReadonlyMap<string, NkiDType> = new Map([
  float32, bfloat16, float16, tfloat32, float64, int32, int16, int8, int64, uint8, uint16, uint32, bool_,
  float8_e4m3, float8_e4m3fn, float8_e5m2,
].map((t) => [t.name, t] as const));

/** numpy's names for the same objects (np.float32 is nl.float32 here). */
export const NUMPY_DTYPES: ReadonlyMap<string, NkiDType> = new Map([
  ["float32", float32], ["float16", float16], ["float64", float64], ["double", float64], ["single", float32], ["half", float16],
  ["int32", int32], ["int16", int16], ["int8", int8], ["int64", int64], ["uint8", uint8], ["uint16", uint16], ["uint32", uint32],
  ["bool_", bool_], ["bool", bool_], ["bfloat16", bfloat16],
]);

/** The NKI dtype of an HBM tensor of gpsimd dtype t. */
export function nkiDTypeOf(t: DType): NkiDType {
  switch (t) {
    case kFloat: return float32;
    case kBFloat16: return bfloat16;
    case kHalf: return float16;
    case kInt: return int32;
    case kChar: return int8;
    case kLong: return int64;
    case kShort: return int16;
    case kByte: return uint8;
  }
  throw new Error(`no NKI dtype for ${String(t)}`);
}

/** Rank of float types for promotion: the wider wins; bf16 with f16 gives float32. */
function floatRank(t: NkiDType): number {
  return t === float64 ? 4 : t === float32 || t === tfloat32 ? 3 : 2;
}

/**
 * The result type of an element-wise instruction on two tiles when no dtype= is given, as NKI promotes:
 * float with int gives the float; two floats give the wider (bfloat16 with float16 gives float32); two
 * integers give the wider, signed if either is signed (uint8 with int8 gives int16).
 */
export function promote(a: NkiDType, b: NkiDType): NkiDType {
  if (a === b) return a;
  if (a.isFloat && !b.isFloat) return a;
  if (b.isFloat && !a.isFloat) return b;
  if (a.isFloat && b.isFloat) {
    const ra = floatRank(a), rb = floatRank(b);
    if (ra !== rb) return ra > rb ? a : b;
    if (a === tfloat32 || b === tfloat32) return float32;
    return float32; // bfloat16 with float16
  }
  // Both integral (bool counts as uint8).
  const signedA = a.kind === "int", signedB = b.kind === "int";
  if (signedA === signedB) return a.bytes >= b.bytes ? (a.kind === "bool" ? b : a) : b;
  const [s, u] = signedA ? [a, b] : [b, a];
  if (s.bytes > u.bytes) return s;
  return u.bytes >= 4 ? int64 : u.bytes === 2 ? int32 : int16;
}
