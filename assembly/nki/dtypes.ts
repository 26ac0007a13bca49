// Element types and the conversions between storage and the f64 / i64 values the engine computes with.
// Codes: F32=0 BF16=1 F16=2 I32=3 I8=4 I64=5 I16=6 U8=7 (gpsimd's ScalarType), U32=8 U16=9 F64=10.
//
// Storing a float: f64 -> f32 (round to nearest even), then for bf16/f16 f32 -> 16 bits (round to
// nearest even; NaN keeps its sign and top payload bits, quieted), exactly as host/device/dtype.ts.
// Storing a float into an integer type: truncated toward zero to i64 (NaN gives 0, out of i64 range
// saturates), then wrapped to the type's width (numpy's astype on values in range).

export const F32: i32 = 0;
export const BF16: i32 = 1;
export const F16: i32 = 2;
export const I32: i32 = 3;
export const I8: i32 = 4;
export const I64: i32 = 5;
export const I16: i32 = 6;
export const U8: i32 = 7;
export const U32: i32 = 8;
export const U16: i32 = 9;
export const F64: i32 = 10;

/** Bytes of one element. */
export function elementBytes(dtype: i32): i32 {
  switch (dtype) {
    case I8: case U8: return 1;
    case BF16: case F16: case I16: case U16: return 2;
    case I64: case F64: return 8;
    default: return 4;
  }
}

// @ts-ignore: decorator
@inline export function bf16ToF32(h: u32): f32 { return reinterpret<f32>(h << 16); }

// @ts-ignore: decorator
@inline export function f32ToBf16(f: f32): u32 {
  const bits = reinterpret<u32>(f);
  if ((bits & 0x7fffffff) > 0x7f800000) return ((bits >>> 16) | 0x40) & 0xffff;
  return (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
}

export function f16ToF32(h: u32): f32 {
  const sign = (h & 0x8000) << 16;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp == 0x1f) return reinterpret<f32>(sign | 0x7f800000 | (mant << 13));
  if (exp != 0) return reinterpret<f32>(sign | ((exp + 112) << 23) | (mant << 13));
  const v = <f32>mant * reinterpret<f32>(0x33800000); // mant * 2^-24, exact
  return sign ? -v : v;
}

export function f32ToF16(f: f32): u32 {
  const bits = reinterpret<u32>(f);
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp == 0xff) return mant != 0 ? sign | 0x7e00 | (mant >>> 13) : sign | 0x7c00;
  const e = <i32>exp - 127;
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    // Keep 10 mantissa bits and round on the 13 dropped ones; a carry bumps the exponent (to Inf at 65520).
    const h = (<u32>(e + 15) << 10) | (mant >>> 13);
    const rem = mant & 0x1fff;
    return sign | (rem > 0x1000 || (rem == 0x1000 && (h & 1) != 0) ? h + 1 : h);
  }
  if (e < -25) return sign;
  const m = mant | 0x800000;
  const shift = <u32>(-e - 1);
  const h = m >>> shift;
  const rem = m & ((1 << shift) - 1);
  const half: u32 = 1 << (shift - 1);
  return sign | (rem > half || (rem == half && (h & 1) != 0) ? h + 1 : h);
}

/** One element as f64. */
// @ts-ignore: decorator
@inline export function readF64(p: usize, dtype: i32): f64 {
  switch (dtype) {
    case F32: return <f64>load<f32>(p);
    case BF16: return <f64>bf16ToF32(<u32>load<u16>(p));
    case F16: return <f64>f16ToF32(<u32>load<u16>(p));
    case I32: return <f64>load<i32>(p);
    case I8: return <f64>load<i8>(p);
    case I64: return <f64>load<i64>(p);
    case I16: return <f64>load<i16>(p);
    case U8: return <f64>load<u8>(p);
    case U32: return <f64>load<u32>(p);
    case U16: return <f64>load<u16>(p);
    default: return load<f64>(p);
  }
}

/** One element as i64 (floats truncated toward zero). */
// @ts-ignore: decorator
@inline export function readI64(p: usize, dtype: i32): i64 {
  switch (dtype) {
    case I32: return <i64>load<i32>(p);
    case I8: return <i64>load<i8>(p);
    case I64: return load<i64>(p);
    case I16: return <i64>load<i16>(p);
    case U8: return <i64>load<u8>(p);
    case U32: return <i64>load<u32>(p);
    case U16: return <i64>load<u16>(p);
    default: return <i64>readF64(p, dtype);
  }
}

/** n elements from p (stride in bytes) into dst as f64. */
export function loadF64(dst: usize, p: usize, stride: isize, dtype: i32, n: i32): void {
  switch (dtype) {
    case F32: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<f32>(p)); p += stride; } break;
    case BF16: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>bf16ToF32(<u32>load<u16>(p))); p += stride; } break;
    case F16: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>f16ToF32(<u32>load<u16>(p))); p += stride; } break;
    case I32: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<i32>(p)); p += stride; } break;
    case I8: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<i8>(p)); p += stride; } break;
    case I64: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<i64>(p)); p += stride; } break;
    case I16: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<i16>(p)); p += stride; } break;
    case U8: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<u8>(p)); p += stride; } break;
    case U32: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<u32>(p)); p += stride; } break;
    case U16: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), <f64>load<u16>(p)); p += stride; } break;
    default: for (let i = 0; i < n; i++) { store<f64>(dst + (<usize>i << 3), load<f64>(p)); p += stride; } break;
  }
}

/** n elements from p into dst as i64 (integer types exactly; floats truncated toward zero). */
export function loadI64(dst: usize, p: usize, stride: isize, dtype: i32, n: i32): void {
  switch (dtype) {
    case I32: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), <i64>load<i32>(p)); p += stride; } break;
    case I8: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), <i64>load<i8>(p)); p += stride; } break;
    case I64: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), load<i64>(p)); p += stride; } break;
    case I16: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), <i64>load<i16>(p)); p += stride; } break;
    case U8: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), <i64>load<u8>(p)); p += stride; } break;
    case U32: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), <i64>load<u32>(p)); p += stride; } break;
    case U16: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), <i64>load<u16>(p)); p += stride; } break;
    default: for (let i = 0; i < n; i++) { store<i64>(dst + (<usize>i << 3), <i64>readF64(p, dtype)); p += stride; } break;
  }
}

/** n f64 values from src stored at p (stride in bytes) as dtype. */
export function storeF64(src: usize, p: usize, stride: isize, dtype: i32, n: i32): void {
  switch (dtype) {
    case F32: for (let i = 0; i < n; i++) { store<f32>(p, <f32>load<f64>(src + (<usize>i << 3))); p += stride; } break;
    case BF16: for (let i = 0; i < n; i++) { store<u16>(p, f32ToBf16(<f32>load<f64>(src + (<usize>i << 3)))); p += stride; } break;
    case F16: for (let i = 0; i < n; i++) { store<u16>(p, f32ToF16(<f32>load<f64>(src + (<usize>i << 3)))); p += stride; } break;
    case F64: for (let i = 0; i < n; i++) { store<f64>(p, load<f64>(src + (<usize>i << 3))); p += stride; } break;
    default:
      for (let i = 0; i < n; i++) store<i64>(src + (<usize>i << 3), <i64>load<f64>(src + (<usize>i << 3)));
      storeI64(src, p, stride, dtype, n);
  }
}

/** n i64 values from src stored at p as dtype (wrapped to an integer type's width, converted to a float type). */
export function storeI64(src: usize, p: usize, stride: isize, dtype: i32, n: i32): void {
  switch (dtype) {
    case I32: case U32: for (let i = 0; i < n; i++) { store<i32>(p, <i32>load<i64>(src + (<usize>i << 3))); p += stride; } break;
    case I8: case U8: for (let i = 0; i < n; i++) { store<i8>(p, <i8>load<i64>(src + (<usize>i << 3))); p += stride; } break;
    case I16: case U16: for (let i = 0; i < n; i++) { store<i16>(p, <i16>load<i64>(src + (<usize>i << 3))); p += stride; } break;
    case I64: for (let i = 0; i < n; i++) { store<i64>(p, load<i64>(src + (<usize>i << 3))); p += stride; } break;
    default:
      for (let i = 0; i < n; i++) store<f64>(src + (<usize>i << 3), <f64>load<i64>(src + (<usize>i << 3)));
      storeF64(src, p, stride, dtype, n);
  }
}

/** n copies of v in dst. */
export function fillF64(dst: usize, v: f64, n: i32): void {
  for (let i = 0; i < n; i++) store<f64>(dst + (<usize>i << 3), v);
}
export function fillI64(dst: usize, v: i64, n: i32): void {
  for (let i = 0; i < n; i++) store<i64>(dst + (<usize>i << 3), v);
}

/** One f64 value stored at p as dtype (rounded as storeF64 does). */
export function writeF64(p: usize, dtype: i32, v: f64): void {
  switch (dtype) {
    case F32: store<f32>(p, <f32>v); break;
    case BF16: store<u16>(p, f32ToBf16(<f32>v)); break;
    case F16: store<u16>(p, f32ToF16(<f32>v)); break;
    case F64: store<f64>(p, v); break;
    case I8: case U8: store<i8>(p, <i8><i64>v); break;
    case I16: case U16: store<i16>(p, <i16><i64>v); break;
    case I64: store<i64>(p, <i64>v); break;
    default: store<i32>(p, <i32><i64>v);
  }
}
