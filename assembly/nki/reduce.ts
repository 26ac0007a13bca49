// Reductions: slot 0 is the output over the kept dimensions, slot 1 the input's reduced dimensions
// (shape and strides), slot 2 the input's kept dimensions (the output's shape, the input's strides).
// Each output element folds its reduced elements in row-major order: in f64 for floats (rounded once,
// when stored), exactly in i64 for integers (FLAG_INT). abs_max and abs_min fold nl.abs_max/abs_min: the
// result is the element of largest (smallest) magnitude with its sign, the later one on a tie.
import { CHUNK, F_ADDR, F_DTYPE, IDX, IDX2, buf, shapeAt, slot, strideAt } from "./layout";
import { elementBytes, loadF64, loadI64, storeF64, storeI64, readI64 } from "./dtypes";
import { maxNaN, minNaN, absMax, absMin } from "./float-ops";
import { rowCount, resetIdx, advanceIdx, rowOffset } from "./walk";
import { FLAG_INT } from "./elementwise";
import * as op from "./ops";

export function reduce(s: usize, code: i32, flags: i32): void {
  const out = slot(s, 0), inner = slot(s, 1), outer = slot(s, 2);
  const int = (flags & FLAG_INT) != 0;
  const dtype = load<i32>(outer + F_DTYPE);
  const size = elementBytes(dtype);
  const oSize = elementBytes(load<i32>(out + F_DTYPE));
  const rows = rowCount(out);
  const n = shapeAt(out, 5);
  const r = buf(s, 0);
  resetIdx(s + IDX);
  for (let row = 0; row < rows; row++) {
    const aRow = <isize>load<i32>(outer + F_ADDR) + <isize>rowOffset(s + IDX, outer) * size;
    const oRow = <isize>load<i32>(out + F_ADDR) + <isize>rowOffset(s + IDX, out) * oSize;
    for (let c = 0; c < n; c += CHUNK) {
      const m = min(CHUNK, n - c);
      for (let j = 0; j < m; j++) {
        const base = <usize>(aRow + <isize>(c + j) * strideAt(outer, 5) * size);
        if (int) store<i64>(r + (<usize>j << 3), foldI64(s, code, base, dtype));
        else store<f64>(r + (<usize>j << 3), foldF64(s, code, base, dtype));
      }
      const oStride = <isize>strideAt(out, 5) * oSize;
      const p = <usize>(oRow + <isize>c * oStride);
      if (int) storeI64(r, p, oStride, load<i32>(out + F_DTYPE), m);
      else storeF64(r, p, oStride, load<i32>(out + F_DTYPE), m);
    }
    advanceIdx(s + IDX, out);
  }
}

function foldF64(s: usize, code: i32, base: usize, dtype: i32): f64 {
  const inner = slot(s, 1);
  const size = elementBytes(dtype);
  const rows = rowCount(inner);
  const n = shapeAt(inner, 5);
  const stride = <isize>strideAt(inner, 5) * size;
  const b = buf(s, 1);
  let acc: f64 = code == op.R_MAX ? -Infinity : code == op.R_MIN || code == op.R_ABS_MIN ? Infinity : code == op.R_MULTIPLY || code == op.R_LOGICAL_AND ? 1 : code == op.R_BITWISE_AND ? -1 : 0;
  let bits: i64 = code == op.R_BITWISE_AND ? -1 : 0;
  resetIdx(s + IDX2);
  for (let row = 0; row < rows; row++) {
    const p0 = <isize>base + <isize>rowOffset(s + IDX2, inner) * size;
    for (let c = 0; c < n; c += CHUNK) {
      const m = min(CHUNK, n - c);
      loadF64(b, <usize>(p0 + <isize>c * stride), stride, dtype, m);
      switch (code) {
        case op.R_ADD: case op.R_MEAN: for (let i = 0; i < m; i++) acc += load<f64>(b + (<usize>i << 3)); break;
        case op.R_MAX: for (let i = 0; i < m; i++) acc = maxNaN(acc, load<f64>(b + (<usize>i << 3))); break;
        case op.R_MIN: for (let i = 0; i < m; i++) acc = minNaN(acc, load<f64>(b + (<usize>i << 3))); break;
        case op.R_MULTIPLY: for (let i = 0; i < m; i++) acc *= load<f64>(b + (<usize>i << 3)); break;
        case op.R_ABS_MAX: for (let i = 0; i < m; i++) acc = absMax(acc, load<f64>(b + (<usize>i << 3))); break;
        case op.R_ABS_MIN: for (let i = 0; i < m; i++) acc = absMin(acc, load<f64>(b + (<usize>i << 3))); break;
        case op.R_LOGICAL_AND: for (let i = 0; i < m; i++) if (load<f64>(b + (<usize>i << 3)) == 0) acc = 0; break;
        case op.R_LOGICAL_OR: for (let i = 0; i < m; i++) if (load<f64>(b + (<usize>i << 3)) != 0) acc = 1; break;
        // Bitwise reductions of floats: of the values truncated to integers.
        case op.R_BITWISE_AND: for (let i = 0; i < m; i++) bits &= <i64>load<f64>(b + (<usize>i << 3)); break;
        default: for (let i = 0; i < m; i++) bits |= <i64>load<f64>(b + (<usize>i << 3)); break;
      }
    }
    advanceIdx(s + IDX2, inner);
  }
  if (code == op.R_MEAN) return acc / <f64>(rows * n);
  if (code == op.R_BITWISE_AND || code == op.R_BITWISE_OR) return <f64>bits;
  return acc;
}

/** |x| as an unsigned magnitude. */
// @ts-ignore: decorator
@inline function mag(x: i64): u64 { return <u64>(x < 0 ? -x : x); }

function foldI64(s: usize, code: i32, base: usize, dtype: i32): i64 {
  const inner = slot(s, 1);
  const size = elementBytes(dtype);
  const rows = rowCount(inner);
  const n = shapeAt(inner, 5);
  const stride = <isize>strideAt(inner, 5) * size;
  const b = buf(s, 1);
  // abs_min starts from the first element (no integer is of larger magnitude than all others)
  let acc: i64 = code == op.R_MAX ? i64.MIN_VALUE : code == op.R_MIN ? i64.MAX_VALUE : code == op.R_ABS_MIN ? readI64(base, dtype) : code == op.R_MULTIPLY || code == op.R_LOGICAL_AND ? 1 : code == op.R_BITWISE_AND ? -1 : 0;
  resetIdx(s + IDX2);
  for (let row = 0; row < rows; row++) {
    const p0 = <isize>base + <isize>rowOffset(s + IDX2, inner) * size;
    for (let c = 0; c < n; c += CHUNK) {
      const m = min(CHUNK, n - c);
      loadI64(b, <usize>(p0 + <isize>c * stride), stride, dtype, m);
      switch (code) {
        case op.R_ADD: for (let i = 0; i < m; i++) acc += load<i64>(b + (<usize>i << 3)); break;
        case op.R_MAX: for (let i = 0; i < m; i++) { const v = load<i64>(b + (<usize>i << 3)); if (v > acc) acc = v; } break;
        case op.R_MIN: for (let i = 0; i < m; i++) { const v = load<i64>(b + (<usize>i << 3)); if (v < acc) acc = v; } break;
        case op.R_MULTIPLY: for (let i = 0; i < m; i++) acc *= load<i64>(b + (<usize>i << 3)); break;
        case op.R_ABS_MAX: for (let i = 0; i < m; i++) { const v = load<i64>(b + (<usize>i << 3)); if (!(mag(acc) > mag(v))) acc = v; } break;
        case op.R_ABS_MIN: for (let i = 0; i < m; i++) { const v = load<i64>(b + (<usize>i << 3)); if (!(mag(acc) < mag(v))) acc = v; } break;
        case op.R_LOGICAL_AND: for (let i = 0; i < m; i++) if (load<i64>(b + (<usize>i << 3)) == 0) acc = 0; break;
        case op.R_LOGICAL_OR: for (let i = 0; i < m; i++) if (load<i64>(b + (<usize>i << 3)) != 0) acc = 1; break;
        case op.R_BITWISE_AND: for (let i = 0; i < m; i++) acc &= load<i64>(b + (<usize>i << 3)); break;
        default: for (let i = 0; i < m; i++) acc |= load<i64>(b + (<usize>i << 3)); break; // bitwise_or (mean is float mode)
      }
    }
    advanceIdx(s + IDX2, inner);
  }
  return acc;
}
