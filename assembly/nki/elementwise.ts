// One element-wise instruction over the shape of the output (slot 0): inputs in slots 1..3, each a
// strided operand (stride 0 broadcasts) or a scalar immediate. Each row of the innermost dimension is
// processed in chunks: inputs converted into f64 (or i64) buffers, the operation run over the buffers
// with the switch outside the loop, the result converted into the output. Common float32 rows with unit
// strides take direct loops instead (SIMD for + - * / max min, plain copies and bf16 conversions).
import { CHUNK, F_DTYPE, F_SCALAR, IDX, ROWS, buf, param, shapeAt, slot, strideAt } from "./layout";
import { F32, BF16, elementBytes, loadF64, loadI64, storeF64, storeI64, fillF64, fillI64, bf16ToF32 } from "./dtypes";
import { unaryF64, binaryF64, preluF64, roundF32 } from "./float-ops";
import { asF32, storeBf16, simdRow } from "./fast-f32";
import { unaryI64, binaryI64 } from "./int-ops";
import * as op from "./ops";
import { rowCount, resetIdx, advanceIdx, recordRows } from "./walk";

export const K_UNARY: i32 = 0;      // out = f(in1), or f(in1 * scale + in2) with flags
export const K_BINARY: i32 = 1;     // out = in1 op in2
export const K_TENSOR_SCALAR: i32 = 2; // out = (in1 op0 in2) op1 in3
export const K_SELECT: i32 = 3;     // out = in1 != 0 ? in2 : in3

export const FLAG_INT: i32 = 1;   // all inputs integral: compute in i64
export const FLAG_SCALE: i32 = 2; // unary: multiply by in4 first (rounded to f32)
export const FLAG_BIAS: i32 = 4;  // unary: then add in2 (rounded to f32)
export const FLAG_ALPHA: i32 = 8; // unary: in3 is the operation's alpha (prelu)

const FAST_NONE = 0;
const FAST_SIMD = 1;     // f32/bf16 + - * / max min (binary or tensor_scalar), unit strides (in2, in3 may be stride 0 or scalars)
const FAST_COPY = 2;     // same dtype, unit strides
const FAST_F32_BF16 = 3;
const FAST_BF16_F32 = 4;
const FAST_FILL = 5;     // a scalar copied into a unit-stride row (memset)

/** The last input slot an instruction reads. */
function inputCount(kind: i32, code1: i32, flags: i32): i32 {
  if (kind == K_UNARY) return flags & FLAG_SCALE ? 4 : flags & FLAG_ALPHA ? 3 : flags & FLAG_BIAS ? 2 : 1;
  if (kind == K_BINARY) return 2;
  if (kind == K_TENSOR_SCALAR) return code1 >= 0 ? 3 : 2;
  return 3;
}

// @ts-ignore: decorator
@inline function dtypeOf(sl: usize): i32 { return load<i32>(sl + F_DTYPE); }
// @ts-ignore: decorator
@inline function isScalar(sl: usize): bool { return load<i32>(sl + F_SCALAR) != 0; }

function fastPath(s: usize, kind: i32, code: i32, code1: i32, flags: i32): i32 {
  const o = slot(s, 0), a = slot(s, 1), b = slot(s, 2);
  if (strideAt(o, 5) != 1) return FAST_NONE;
  if (kind == K_UNARY && code == op.U_COPY && (flags & ~FLAG_INT) == 0 && isScalar(a)) return FAST_FILL;
  if (isScalar(a) || strideAt(a, 5) != 1) return FAST_NONE;
  if (kind == K_UNARY && code == op.U_COPY && flags == 0) {
    if (dtypeOf(o) == dtypeOf(a)) return FAST_COPY;
    if (dtypeOf(o) == BF16 && dtypeOf(a) == F32) return FAST_F32_BF16;
    if (dtypeOf(o) == F32 && dtypeOf(a) == BF16) return FAST_BF16_F32;
  }
  if ((kind == K_BINARY || kind == K_TENSOR_SCALAR) && flags == 0 && code <= op.B_MINIMUM && code1 <= op.B_MINIMUM &&
      isF32Lane(o, false) && isF32Lane(a, false) && isF32Lane(b, true) && (kind == K_BINARY || code1 < 0 || isF32Lane(slot(s, 3), true))) return FAST_SIMD;
  return FAST_NONE;
}

/** An f32 or bf16 operand with unit stride (or, if allowed, broadcast or a scalar). */
function isF32Lane(sl: usize, broadcast: bool): bool {
  if (isScalar(sl)) return broadcast;
  const dtype = dtypeOf(sl);
  const stride = strideAt(sl, 5);
  return (dtype == F32 || dtype == BF16) && (stride == 1 || broadcast && stride == 0);
}

export function elementwise(s: usize, kind: i32, code0: i32, code1: i32, flags: i32): void {
  const out = slot(s, 0);
  const inputs = inputCount(kind, code1, flags);
  const rows = rowCount(out);
  const n = shapeAt(out, 5);
  const fast = fastPath(s, kind, code0, code1, flags);
  resetIdx(s + IDX);
  for (let r = 0; r < rows; r++) {
    recordRows(s, out, inputs + 1);
    if (fast != FAST_NONE) fastRow(s, fast, code0, code1, flags, n);
    else {
      for (let c = 0; c < n; c += CHUNK) chunk(s, kind, code0, code1, flags, inputs, c, min(CHUNK, n - c));
    }
    advanceIdx(s + IDX, out);
  }
}

// @ts-ignore: decorator
@inline function rowAt(s: usize, k: i32): usize { return <usize>load<u32>(s + ROWS + (<usize>k << 2)); }

/** Loads input k's elements c..c+m of the current row into buffer k. */
function loadInput(s: usize, k: i32, c: i32, m: i32, int: bool): void {
  const sl = slot(s, k);
  const dst = buf(s, k);
  if (isScalar(sl)) {
    if (int) fillI64(dst, <i64>param(s, k), m);
    else fillF64(dst, param(s, k), m);
    return;
  }
  const dtype = dtypeOf(sl);
  const size = elementBytes(dtype);
  const stride = <isize>strideAt(sl, 5) * size;
  const p = rowAt(s, k) + <usize>(<isize>c * stride);
  if (int) loadI64(dst, p, stride, dtype, m);
  else loadF64(dst, p, stride, dtype, m);
}

function chunk(s: usize, kind: i32, code0: i32, code1: i32, flags: i32, inputs: i32, c: i32, m: i32): void {
  const int = (flags & FLAG_INT) != 0;
  const r = buf(s, 0);
  if (kind == K_SELECT) {
    loadInput(s, 1, c, m, false); // the condition as a float: any nonzero value (NaN too) selects in2
    loadInput(s, 2, c, m, int);
    loadInput(s, 3, c, m, int);
    const cond = buf(s, 1), x = buf(s, 2), y = buf(s, 3);
    for (let i = 0; i < m; i++) {
      const at = <usize>i << 3;
      store<i64>(r + at, load<f64>(cond + at) != 0 ? load<i64>(x + at) : load<i64>(y + at)); // bits: f64 or i64 alike
    }
  } else {
    if (kind == K_UNARY) {
      // in1 the data, in2 the bias, in3 prelu's alpha, in4 the scale: each loaded when its flag is set
      loadInput(s, 1, c, m, int);
      if (flags & FLAG_BIAS) loadInput(s, 2, c, m, false);
      if (flags & FLAG_ALPHA) loadInput(s, 3, c, m, false);
      if (flags & FLAG_SCALE) loadInput(s, 4, c, m, false);
      let x = buf(s, 1);
      if (flags & FLAG_SCALE) {
        // activation(in * scale + bias): the ACT engine's affine step in fp32, each operation rounded
        binaryF64(op.B_MULTIPLY, x, x, buf(s, 4), m);
        roundF32(x, m);
      }
      if (flags & FLAG_BIAS) {
        binaryF64(op.B_ADD, x, x, buf(s, 2), m);
        roundF32(x, m);
      }
      if (int) unaryI64(code0, r, x, m);
      else if (code0 == op.U_PRELU) preluF64(r, x, buf(s, 3), m);
      else unaryF64(code0, r, x, m);
    } else {
      for (let k = 1; k <= inputs; k++) loadInput(s, k, c, m, int);
      if (int) {
        binaryI64(code0, r, buf(s, 1), buf(s, 2), m);
        if (kind == K_TENSOR_SCALAR && code1 >= 0) binaryI64(code1, r, r, buf(s, 3), m);
      } else {
        binaryF64(code0, r, buf(s, 1), buf(s, 2), m);
        if (kind == K_TENSOR_SCALAR && code1 >= 0) {
          roundF32(r, m); // the engine's fp32 intermediate
          binaryF64(code1, r, r, buf(s, 3), m);
        }
      }
    }
  }
  const out = slot(s, 0);
  const dtype = dtypeOf(out);
  const size = elementBytes(dtype);
  const stride = <isize>strideAt(out, 5) * size;
  const p = rowAt(s, 0) + <usize>(<isize>c * stride);
  if (int) storeI64(r, p, stride, dtype, m);
  else storeF64(r, p, stride, dtype, m);
}

function fastRow(s: usize, fast: i32, code: i32, code1: i32, flags: i32, n: i32): void {
  const o = rowAt(s, 0), a = rowAt(s, 1);
  if (fast == FAST_FILL) {
    // the first element converted as any store does, then doubled by copies
    const dtype = dtypeOf(slot(s, 0));
    const size = <usize>elementBytes(dtype);
    const r = buf(s, 0);
    if (flags & FLAG_INT) { fillI64(r, <i64>param(s, 1), 1); storeI64(r, o, 0, dtype, 1); }
    else { fillF64(r, param(s, 1), 1); storeF64(r, o, 0, dtype, 1); }
    const total = <usize>n * size;
    for (let done = size; done < total; done <<= 1) memory.copy(o + done, o, min(done, total - done));
  } else if (fast == FAST_COPY) {
    copyBytes(o, a, <usize>n * elementBytes(dtypeOf(slot(s, 0))));
  } else if (fast == FAST_F32_BF16) {
    storeBf16(o, a, n);
  } else if (fast == FAST_BF16_F32) {
    asF32(a, BF16, n, o);
  } else {
    simdChunks(s, code, code1, n);
  }
}

/** A row of f32/bf16 arithmetic in chunks: inputs as f32 (bf16 expanded), one or two SIMD operations, the result stored. */
function simdChunks(s: usize, code0: i32, code1: i32, n: i32): void {
  const out = slot(s, 0), a = slot(s, 1);
  const oType = dtypeOf(out), aType = dtypeOf(a);
  const oRow = rowAt(s, 0), aRow = rowAt(s, 1);
  for (let c = 0; c < n; c += CHUNK) {
    const m = min(CHUNK, n - c);
    const x = asF32(aRow + <usize>c * elementBytes(aType), aType, m, buf(s, 1));
    const r = oType == F32 ? oRow + (<usize>c << 2) : buf(s, 0);
    operandRow(s, 2, code0, r, x, c, m);
    if (code1 >= 0) operandRow(s, 3, code1, r, r, c, m);
    if (oType == BF16) storeBf16(oRow + (<usize>c << 1), r, m);
  }
}

/** r = x op (input k's elements c..c+m: a scalar, a broadcast element or a row). */
function operandRow(s: usize, k: i32, code: i32, r: usize, x: usize, c: i32, m: i32): void {
  const sl = slot(s, k);
  if (isScalar(sl)) { simdRow(code, r, x, 0, <f32>param(s, k), m, true); return; }
  const dtype = dtypeOf(sl);
  const row = rowAt(s, k);
  if (strideAt(sl, 5) == 0) {
    simdRow(code, r, x, 0, dtype == F32 ? load<f32>(row) : bf16ToF32(<u32>load<u16>(row)), m, true);
    return;
  }
  simdRow(code, r, x, asF32(row + <usize>c * elementBytes(dtype), dtype, m, buf(s, 2 + k)), 0, m, false);
}

/**
 * memmove: sixteen bytes at a time when the two ranges do not overlap (memory.copy on a shared memory
 * measured twice as slow as this loop), else memory.copy.
 */
function copyBytes(o: usize, a: usize, bytes: usize): void {
  if (o != a && o < a + bytes && a < o + bytes) { memory.copy(o, a, bytes); return; }
  let i: usize = 0;
  for (; i + 16 <= bytes; i += 16) v128.store(o + i, v128.load(a + i));
  for (; i < bytes; i++) store<u8>(o + i, load<u8>(a + i));
}
