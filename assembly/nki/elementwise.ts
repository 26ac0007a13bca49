// One element-wise instruction over the shape of the output (slot 0): inputs in slots 1..3, each a
// strided operand (stride 0 broadcasts) or a scalar immediate. Each row of the innermost dimension is
// processed in chunks: inputs converted into f64 (or i64) buffers, the operation run over the buffers
// with the switch outside the loop, the result converted into the output. Common float32 rows with unit
// strides take direct loops instead (SIMD for + - * / max min, plain copies and bf16 conversions).
import { CHUNK, F_DTYPE, F_SCALAR, IDX, ROWS, P_SCALE, buf, param, shapeAt, slot, strideAt } from "./layout";
import { F32, BF16, elementBytes, loadF64, loadI64, storeF64, storeI64, fillF64, fillI64, f32ToBf16, bf16ToF32 } from "./dtypes";
import { unaryF64, binaryF64, preluF64, roundF32 } from "./float-ops";
import { unaryI64, binaryI64 } from "./int-ops";
import * as op from "./ops";
import { rowCount, resetIdx, advanceIdx, recordRows } from "./walk";

export const K_UNARY: i32 = 0;      // out = f(in1), or f(in1 * scale + in2) with flags
export const K_BINARY: i32 = 1;     // out = in1 op in2
export const K_TENSOR_SCALAR: i32 = 2; // out = (in1 op0 in2) op1 in3
export const K_SELECT: i32 = 3;     // out = in1 != 0 ? in2 : in3

export const FLAG_INT: i32 = 1;   // all inputs integral: compute in i64
export const FLAG_SCALE: i32 = 2; // unary: multiply by PARAMS[P_SCALE] first (rounded to f32)
export const FLAG_BIAS: i32 = 4;  // unary: then add in2 (rounded to f32)
export const FLAG_ALPHA: i32 = 8; // unary: in3 is the operation's alpha (prelu)

const FAST_NONE = 0;
const FAST_SIMD = 1;     // f32 + - * / max min, unit strides (in2 may be stride 0 or a scalar)
const FAST_COPY = 2;     // same dtype, unit strides
const FAST_F32_BF16 = 3;
const FAST_BF16_F32 = 4;
const FAST_FILL = 5;     // a scalar copied into a unit-stride row (memset)

/** The last input slot an instruction reads. */
function inputCount(kind: i32, code1: i32, flags: i32): i32 {
  if (kind == K_UNARY) return flags & FLAG_ALPHA ? 3 : flags & FLAG_BIAS ? 2 : 1;
  if (kind == K_BINARY) return 2;
  if (kind == K_TENSOR_SCALAR) return code1 >= 0 ? 3 : 2;
  return 3;
}

// @ts-ignore: decorator
@inline function dtypeOf(sl: usize): i32 { return load<i32>(sl + F_DTYPE); }
// @ts-ignore: decorator
@inline function isScalar(sl: usize): bool { return load<i32>(sl + F_SCALAR) != 0; }

function fastPath(s: usize, kind: i32, code: i32, flags: i32): i32 {
  const o = slot(s, 0), a = slot(s, 1), b = slot(s, 2);
  if (strideAt(o, 5) != 1) return FAST_NONE;
  if (kind == K_UNARY && code == op.U_COPY && (flags & ~FLAG_INT) == 0 && isScalar(a)) return FAST_FILL;
  if (isScalar(a) || strideAt(a, 5) != 1) return FAST_NONE;
  if (kind == K_UNARY && code == op.U_COPY && flags == 0) {
    if (dtypeOf(o) == dtypeOf(a)) return FAST_COPY;
    if (dtypeOf(o) == BF16 && dtypeOf(a) == F32) return FAST_F32_BF16;
    if (dtypeOf(o) == F32 && dtypeOf(a) == BF16) return FAST_BF16_F32;
  }
  if (kind == K_BINARY && code <= op.B_MINIMUM && dtypeOf(o) == F32 && dtypeOf(a) == F32 && dtypeOf(b) == F32 &&
      (isScalar(b) || strideAt(b, 5) <= 1 && strideAt(b, 5) >= 0)) return FAST_SIMD;
  return FAST_NONE;
}

export function elementwise(s: usize, kind: i32, code0: i32, code1: i32, flags: i32): void {
  const out = slot(s, 0);
  const inputs = inputCount(kind, code1, flags);
  const rows = rowCount(out);
  const n = shapeAt(out, 5);
  const fast = fastPath(s, kind, code0, flags);
  resetIdx(s + IDX);
  for (let r = 0; r < rows; r++) {
    recordRows(s, out, inputs + 1);
    if (fast != FAST_NONE) fastRow(s, fast, code0, flags, n);
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
    for (let k = 1; k <= inputs; k++) if (kind != K_UNARY || k != 2 || (flags & FLAG_BIAS)) loadInput(s, k, c, m, int);
    if (kind == K_UNARY) {
      let x = buf(s, 1);
      if (flags & FLAG_SCALE) {
        // activation(in * scale + bias): the ACT engine's affine step in fp32, each operation rounded
        const scale = param(s, P_SCALE);
        for (let i = 0; i < m; i++) store<f64>(x + (<usize>i << 3), <f64><f32>(load<f64>(x + (<usize>i << 3)) * scale));
      }
      if (flags & FLAG_BIAS) {
        binaryF64(op.B_ADD, x, x, buf(s, 2), m);
        roundF32(x, m);
      }
      if (int) unaryI64(code0, r, x, m);
      else if (code0 == op.U_PRELU) preluF64(r, x, buf(s, 3), m);
      else unaryF64(code0, r, x, m);
    } else if (int) {
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
  const out = slot(s, 0);
  const dtype = dtypeOf(out);
  const size = elementBytes(dtype);
  const stride = <isize>strideAt(out, 5) * size;
  const p = rowAt(s, 0) + <usize>(<isize>c * stride);
  if (int) storeI64(r, p, stride, dtype, m);
  else storeF64(r, p, stride, dtype, m);
}

function fastRow(s: usize, fast: i32, code: i32, flags: i32, n: i32): void {
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
    memory.copy(o, a, <usize>n * elementBytes(dtypeOf(slot(s, 0))));
  } else if (fast == FAST_F32_BF16) {
    for (let i = 0; i < n; i++) store<u16>(o + (<usize>i << 1), f32ToBf16(load<f32>(a + (<usize>i << 2))));
  } else if (fast == FAST_BF16_F32) {
    for (let i = 0; i < n; i++) store<f32>(o + (<usize>i << 2), bf16ToF32(<u32>load<u16>(a + (<usize>i << 1))));
  } else {
    const b = slot(s, 2);
    if (isScalar(b)) simdRow(code, o, a, 0, <f32>param(s, 2), n, true);
    else simdRow(code, o, a, rowAt(s, 2), 0, n, strideAt(b, 5) == 0);
  }
}

/** A float32 row: o = a op b, b a row, or one value (at bp, or bv when bp is 0) when broadcast. */
function simdRow(code: i32, o: usize, a: usize, bp: usize, bv: f32, n: i32, broadcast: bool): void {
  if (broadcast && bp != 0) bv = load<f32>(bp);
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
