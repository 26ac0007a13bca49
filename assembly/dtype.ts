// Scalar types, numbered as in host/device/dtype.ts (ScalarType).
import { E_DTYPE_MISMATCH } from "./errors";
import { fail } from "./core";

/** float32 */ export const kFloat: i32 = 0;
/** float32 */ export const kFloat32: i32 = 0;
/** bfloat16, stored as u16 bits */ export const kBFloat16: i32 = 1;
/** float16, stored as u16 bits */ export const kHalf: i32 = 2;
/** float16, stored as u16 bits */ export const kFloat16: i32 = 2;
/** int32 */ export const kInt: i32 = 3;
/** int32 */ export const kInt32: i32 = 3;
/** int8 */ export const kChar: i32 = 4;
/** int8 */ export const kInt8: i32 = 4;
/** int64 */ export const kLong: i32 = 5;
/** int64 */ export const kInt64: i32 = 5;
/** int16 */ export const kShort: i32 = 6;
/** int16 */ export const kInt16: i32 = 6;
/** uint8 */ export const kByte: i32 = 7;
/** uint8 */ export const kUInt8: i32 = 7;

/** Bytes per element of a scalar type. */
export function element_size(dtype: i32): i32 {
  switch (dtype) {
    case kFloat: case kInt: return 4;
    case kBFloat16: case kHalf: case kShort: return 2;
    case kChar: case kByte: return 1;
    case kLong: return 8;
    default: return 0;
  }
}

/** True for float32, bfloat16 and float16. */
export function is_floating(dtype: i32): bool {
  return dtype == kFloat || dtype == kBFloat16 || dtype == kHalf;
}

/** Checks that elements of type T can stand for the tensor's dtype (16-bit floats are read as u16 bits). */
// @ts-ignore: decorator
@inline export function check_element_type<T>(dtype: i32, slot: i32): void {
  let ok: bool;
  if (isFloat<T>()) {
    ok = sizeof<T>() == 4 ? dtype == kFloat : false;
  } else if (sizeof<T>() == 2) {
    ok = dtype == kShort || dtype == kBFloat16 || dtype == kHalf;
  } else if (sizeof<T>() == 4) {
    ok = dtype == kInt;
  } else if (sizeof<T>() == 8) {
    ok = dtype == kLong;
  } else {
    ok = dtype == kChar || dtype == kByte;
  }
  if (!ok) fail(E_DTYPE_MISMATCH, slot, <f64>sizeof<T>(), isFloat<T>() ? 1 : 0, <f64>dtype);
}

/** float32 to bfloat16 bits, rounding to nearest even (NaN stays NaN). */
export function f32_to_bf16(x: f32): u16 {
  const bits = reinterpret<u32>(x);
  if ((bits & 0x7FFFFFFF) > 0x7F800000) return <u16>((bits >>> 16) | 0x40);
  return <u16>((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
}

/** bfloat16 bits to float32 (exact). */
// @ts-ignore: decorator
@inline export function bf16_to_f32(h: u16): f32 {
  return reinterpret<f32>(<u32>h << 16);
}

/** float32 to float16 bits, rounding to nearest even, with subnormals, overflow to infinity, NaN kept. */
export function f32_to_f16(x: f32): u16 {
  const bits = reinterpret<u32>(x);
  const sign = <u16>((bits >>> 16) & 0x8000);
  const abs = bits & 0x7FFFFFFF;
  if (abs > 0x7F800000) return sign | 0x7E00 | <u16>((abs >>> 13) & 0x3FF);
  if (abs >= 0x477FF000) return sign | 0x7C00; // rounds to >= 65520: infinity
  if (abs < 0x38800000) { // below the smallest normal float16: subnormal or zero
    if (abs < 0x33000000) return sign; // below half of the smallest subnormal
    const e = <i32>(abs >>> 23);
    const m = (abs & 0x7FFFFF) | 0x800000;
    const shift = 126 - e; // 14 - (e - 127) + 10 ... bits to drop
    const half = <u32>1 << (shift - 1);
    const rest = m & ((half << 1) - 1);
    let r = m >>> shift;
    if (rest > half || (rest == half && (r & 1) != 0)) r++;
    return sign | <u16>r;
  }
  const rounded = abs + 0xFFF + ((abs >>> 13) & 1);
  return sign | <u16>((rounded - 0x38000000) >>> 13);
}

/** float16 bits to float32 (exact). */
export function f16_to_f32(h: u16): f32 {
  const sign = <u32>(h & 0x8000) << 16;
  const e = <u32>(h >>> 10) & 0x1F;
  const m = <u32>h & 0x3FF;
  if (e == 0x1F) return reinterpret<f32>(sign | 0x7F800000 | (m << 13));
  if (e == 0) return m == 0 ? reinterpret<f32>(sign) : (sign ? -1 : 1) * <f32>m * <f32>5.9604644775390625e-8;
  return reinterpret<f32>(sign | ((e + 112) << 23) | (m << 13));
}
