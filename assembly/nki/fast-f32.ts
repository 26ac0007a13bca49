// Unit-stride rows of float32 and bfloat16 in float32 SIMD: + - * / max min on f32 lanes round exactly as
// the f64 path does (one rounding to float32), so these rows give the same bits, several times faster.
// bf16 <-> f32 conversions run four lanes at a time (round to nearest even, NaN quieted with its sign and
// top payload bits, as dtypes.ts).
import * as op from "./ops";
import { BF16 } from "./dtypes";

/** float32 values of n unit-stride elements (f32 or bf16) at p: p itself when f32, else expanded into tmp. */
export function asF32(p: usize, dtype: i32, n: i32, tmp: usize): usize {
  if (dtype != BF16) return p;
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const h = v128.load(p + (<usize>i << 1));
    v128.store(tmp + (<usize>i << 2), i32x4.shl(i32x4.extend_low_i16x8_u(h), 16));
    v128.store(tmp + (<usize>i << 2), i32x4.shl(i32x4.extend_high_i16x8_u(h), 16), 16);
  }
  for (; i < n; i++) store<u32>(tmp + (<usize>i << 2), <u32>load<u16>(p + (<usize>i << 1)) << 16);
  return tmp;
}

/** Rounds four float32 lanes (as bits) to bf16 patterns in the low halves of the lanes. */
// @ts-ignore: decorator
@inline function roundLanes(x: v128): v128 {
  const rounded = i32x4.shr_u(i32x4.add(i32x4.add(x, i32x4.splat(0x7fff)), v128.and(i32x4.shr_u(x, 16), i32x4.splat(1))), 16);
  const quiet = v128.or(i32x4.shr_u(x, 16), i32x4.splat(0x40));
  const isNaN = i32x4.gt_u(v128.and(x, i32x4.splat(0x7fffffff)), i32x4.splat(0x7f800000));
  return v128.bitselect(quiet, rounded, isNaN);
}

/** Stores n float32 values from src into unit-stride bf16 at p. */
export function storeBf16(p: usize, src: usize, n: i32): void {
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const lo = roundLanes(v128.load(src + (<usize>i << 2)));
    const hi = roundLanes(v128.load(src + (<usize>i << 2), 16));
    v128.store(p + (<usize>i << 1), i16x8.narrow_i32x4_u(lo, hi));
  }
  for (; i < n; i++) {
    const bits = load<u32>(src + (<usize>i << 2));
    store<u16>(p + (<usize>i << 1), <u16>((bits & 0x7fffffff) > 0x7f800000 ? (bits >>> 16) | 0x40 : (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16));
  }
}

/** A float32 row: o = a op b, b a row, or one value (bv) when broadcast. */
export function simdRow(code: i32, o: usize, a: usize, bp: usize, bv: f32, n: i32, broadcast: bool): void {
  const vb = f32x4.splat(bv);
  let i = 0;
  switch (code) {
    case op.B_ADD:
      for (; i + 4 <= n; i += 4) { const at = <usize>i << 2; v128.store(o + at, f32x4.add(v128.load(a + at), broadcast ? vb : v128.load(bp + at))); }
      break;
    case op.B_SUBTRACT:
      for (; i + 4 <= n; i += 4) { const at = <usize>i << 2; v128.store(o + at, f32x4.sub(v128.load(a + at), broadcast ? vb : v128.load(bp + at))); }
      break;
    case op.B_MULTIPLY:
      for (; i + 4 <= n; i += 4) { const at = <usize>i << 2; v128.store(o + at, f32x4.mul(v128.load(a + at), broadcast ? vb : v128.load(bp + at))); }
      break;
    case op.B_DIVIDE:
      for (; i + 4 <= n; i += 4) { const at = <usize>i << 2; v128.store(o + at, f32x4.div(v128.load(a + at), broadcast ? vb : v128.load(bp + at))); }
      break;
    case op.B_MAXIMUM: // numpy: a >= b || a is NaN ? a : b
      for (; i + 4 <= n; i += 4) {
        const at = <usize>i << 2;
        const x = v128.load(a + at), y = broadcast ? vb : v128.load(bp + at);
        v128.store(o + at, v128.bitselect(x, y, v128.or(f32x4.ge(x, y), f32x4.ne(x, x))));
      }
      break;
    default: // minimum
      for (; i + 4 <= n; i += 4) {
        const at = <usize>i << 2;
        const x = v128.load(a + at), y = broadcast ? vb : v128.load(bp + at);
        v128.store(o + at, v128.bitselect(x, y, v128.or(f32x4.le(x, y), f32x4.ne(x, x))));
      }
  }
  for (; i < n; i++) {
    const at = <usize>i << 2;
    const x = load<f32>(a + at), y = broadcast ? bv : load<f32>(bp + at);
    let v: f32;
    switch (code) {
      case op.B_ADD: v = x + y; break;
      case op.B_SUBTRACT: v = x - y; break;
      case op.B_MULTIPLY: v = x * y; break;
      case op.B_DIVIDE: v = x / y; break;
      case op.B_MAXIMUM: v = x >= y || x != x ? x : y; break;
      default: v = x <= y || x != x ? x : y;
    }
    store<f32>(o + at, v);
  }
}
