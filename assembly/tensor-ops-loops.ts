// The element loops behind the tensor operations (tensor-ops.ts). Floating
// results are computed in float32 (libm functions in double, then rounded) and
// integral ones in int64 (wrapping), then stored in the result's dtype. float32 tensors are worked on in place with
// v128 where the operation allows; other dtypes go through chunks converted
// to float32 or int64 in scratch buffers on the kernel heap.
import { kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte, f32_to_bf16, bf16_to_f32, f32_to_f16, f16_to_f32 } from "./dtype";
import { Tensor, data_of } from "./tensor";
import { log_output_read } from "./writelog";

// Float32 loop kinds. p and q are the loop's parameters.
/** |a| */ export const F_ABS: i32 = 0;
/** ceil(a) */ export const F_CEIL: i32 = 1;
/** floor(a) */ export const F_FLOOR: i32 = 2;
/** sin(a) */ export const F_SIN: i32 = 3;
/** cos(a) */ export const F_COS: i32 = 4;
/** tan(a) */ export const F_TAN: i32 = 5;
/** log(a) */ export const F_LOG: i32 = 6;
/** log2(a) */ export const F_LOG2: i32 = 7;
/** log10(a) */ export const F_LOG10: i32 = 8;
/** exp(a) */ export const F_EXP: i32 = 9;
/** a + p*b (sub: p = -alpha) */ export const F_ADD: i32 = 10;
/** a * b */ export const F_MUL: i32 = 11;
/** a / b */ export const F_DIV: i32 = 12;
/** pow(a, b) */ export const F_POW: i32 = 13;
/** a + p (sub: p = -alpha*s) */ export const F_ADD_S: i32 = 14;
/** a * p */ export const F_MUL_S: i32 = 15;
/** a / p */ export const F_DIV_S: i32 = 16;
/** pow(a, p) */ export const F_POW_S: i32 = 17;
/** pow(p, a) */ export const F_RPOW_S: i32 = 18;
/** min(max(a, p), q), NaN in any operand gives NaN */ export const F_CLAMP: i32 = 19;

// Int64 loop kinds (wrapping arithmetic; the result's dtype keeps the low bits).
/** |a| */ export const I_ABS: i32 = 0;
/** a (ceil and floor of integers) */ export const I_COPY: i32 = 1;
/** ~a */ export const I_NOT: i32 = 2;
/** a + p*b (sub: p = -alpha) */ export const I_ADD: i32 = 3;
/** a * b */ export const I_MUL: i32 = 4;
/** powi(a, b) */ export const I_POW: i32 = 5;
/** a & b */ export const I_AND: i32 = 6;
/** a | b */ export const I_OR: i32 = 7;
/** a + p (sub: p = -alpha*s) */ export const I_ADD_S: i32 = 8;
/** a * p */ export const I_MUL_S: i32 = 9;
/** powi(a, p) */ export const I_POW_S: i32 = 10;
/** powi(p, a) */ export const I_RPOW_S: i32 = 11;
/** a & p */ export const I_AND_S: i32 = 12;
/** a | p */ export const I_OR_S: i32 = 13;
/** min(max(a, p), q) */ export const I_CLAMP: i32 = 14;

/** Elements converted per chunk for dtypes other than float32 (int64 for integer loops). */
const CHUNK: usize = 512;

/**
 * out = kind(a, b) over float32 values: a (and b, of a's dtype, or 0 for none) are read as float32, the result is
 * rounded to out's dtype (float32, bfloat16 or float16, nearest even).
 */
export function map_float(kind: i32, out: Tensor, a: Tensor, b: usize, p: f32, q: f32): void {
  const n = <usize>out.numel();
  log_operand_reads(a, b, n);
  const da = a.scalar_type(), dout = out.scalar_type();
  const pa = data_of(a), pb = b ? data_of(changetype<Tensor>(b)) : 0, po = data_of(out);
  if (da == kFloat && dout == kFloat) { f32_loop(kind, po, pa, pb, n, p, q); return; }
  const scratch = heap.alloc(3 * CHUNK << 2);
  const sa = scratch, sb = scratch + (CHUNK << 2), so = scratch + (CHUNK << 3);
  for (let i: usize = 0; i < n; i += CHUNK) {
    const m = min(n - i, CHUNK);
    const xa = da == kFloat ? pa + (i << 2) : to_f32(da, pa, i, m, sa);
    const xb = pb == 0 ? 0 : da == kFloat ? pb + (i << 2) : to_f32(da, pb, i, m, sb);
    const xo = dout == kFloat ? po + (i << 2) : so;
    f32_loop(kind, xo, xa, xb, m, p, q);
    if (dout != kFloat) from_f32(dout, so, po, i, m);
  }
  heap.free(scratch);
}

/** out = kind(a, b) over int64 values: a (and b, of a's dtype, or 0) are read sign- or zero-extended; out keeps the low bits. */
export function map_int(kind: i32, out: Tensor, a: Tensor, b: usize, p: i64, q: i64): void {
  const n = <usize>out.numel();
  log_operand_reads(a, b, n);
  const dt = a.scalar_type();
  const pa = data_of(a), pb = b ? data_of(changetype<Tensor>(b)) : 0, po = data_of(out);
  if (dt == kLong) { i64_loop(kind, po, pa, pb, n, p, q); return; }
  const scratch = heap.alloc(3 * CHUNK << 3);
  const sa = scratch, sb = scratch + (CHUNK << 3), so = scratch + (CHUNK << 4);
  for (let i: usize = 0; i < n; i += CHUNK) {
    const m = min(n - i, CHUNK);
    to_i64(dt, pa, i, m, sa);
    if (pb) to_i64(dt, pb, i, m, sb);
    i64_loop(kind, so, sa, sb, m, p, q);
    from_i64(dt, so, po, i, m);
  }
  heap.free(scratch);
}

/** Logs the reads of operands a and b (0: none), n elements each, for the cross-core race check (only the output's count). */
function log_operand_reads(a: Tensor, b: usize, n: usize): void {
  log_output_read(changetype<usize>(a), 0, <u32>n);
  if (b) log_output_read(b, 0, <u32>n);
}

/** v, an integer of any width, as the dtype dt holds it (C++ static_cast: the low bits, sign-extended for signed types). */
export function wrap_to(dt: i32, v: i64): i64 {
  switch (dt) {
    case kInt: return <i64><i32>v;
    case kShort: return <i64><i16>v;
    case kChar: return <i64><i8>v;
    case kByte: return <i64><u8>v;
    default: return v;
  }
}

/** a to the power b in wrapping integer arithmetic; a negative b gives 1 for a = 1, ±1 for a = -1, else 0 (as torch). */
function powi(a: i64, b: i64): i64 {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b & 1) ? -1 : 1;
    return 0;
  }
  let r: i64 = 1;
  while (b != 0) {
    if (b & 1) r *= a;
    b >>= 1;
    a *= a;
  }
  return r;
}

/** Converts m elements of dtype dt at element i of src to float32 at buf; returns buf. */
function to_f32(dt: i32, src: usize, i: usize, m: usize, buf: usize): usize {
  switch (dt) {
    case kBFloat16: for (let k: usize = 0; k < m; k++) store<f32>(buf + (k << 2), bf16_to_f32(load<u16>(src + ((i + k) << 1)))); break;
    case kHalf: for (let k: usize = 0; k < m; k++) store<f32>(buf + (k << 2), f16_to_f32(load<u16>(src + ((i + k) << 1)))); break;
    case kInt: for (let k: usize = 0; k < m; k++) store<f32>(buf + (k << 2), <f32>load<i32>(src + ((i + k) << 2))); break;
    case kLong: for (let k: usize = 0; k < m; k++) store<f32>(buf + (k << 2), <f32>load<i64>(src + ((i + k) << 3))); break;
    case kShort: for (let k: usize = 0; k < m; k++) store<f32>(buf + (k << 2), <f32>load<i16>(src + ((i + k) << 1))); break;
    case kChar: for (let k: usize = 0; k < m; k++) store<f32>(buf + (k << 2), <f32>load<i8>(src + i + k)); break;
    case kByte: for (let k: usize = 0; k < m; k++) store<f32>(buf + (k << 2), <f32>load<u8>(src + i + k)); break;
  }
  return buf;
}

/** Rounds m float32 values at buf into dst (bfloat16 or float16) from element i. */
function from_f32(dt: i32, buf: usize, dst: usize, i: usize, m: usize): void {
  if (dt == kBFloat16) {
    for (let k: usize = 0; k < m; k++) store<u16>(dst + ((i + k) << 1), f32_to_bf16(load<f32>(buf + (k << 2))));
  } else {
    for (let k: usize = 0; k < m; k++) store<u16>(dst + ((i + k) << 1), f32_to_f16(load<f32>(buf + (k << 2))));
  }
}

/** Converts m elements of the integral dtype dt at element i of src to int64 at buf. */
function to_i64(dt: i32, src: usize, i: usize, m: usize, buf: usize): void {
  switch (dt) {
    case kInt: for (let k: usize = 0; k < m; k++) store<i64>(buf + (k << 3), <i64>load<i32>(src + ((i + k) << 2))); break;
    case kShort: for (let k: usize = 0; k < m; k++) store<i64>(buf + (k << 3), <i64>load<i16>(src + ((i + k) << 1))); break;
    case kChar: for (let k: usize = 0; k < m; k++) store<i64>(buf + (k << 3), <i64>load<i8>(src + i + k)); break;
    case kByte: for (let k: usize = 0; k < m; k++) store<i64>(buf + (k << 3), <i64>load<u8>(src + i + k)); break;
  }
}

/** Stores the low bits of m int64 values at buf into dst (dtype dt) from element i. */
function from_i64(dt: i32, buf: usize, dst: usize, i: usize, m: usize): void {
  switch (dt) {
    case kInt: for (let k: usize = 0; k < m; k++) store<i32>(dst + ((i + k) << 2), <i32>load<i64>(buf + (k << 3))); break;
    case kShort: for (let k: usize = 0; k < m; k++) store<i16>(dst + ((i + k) << 1), <i16>load<i64>(buf + (k << 3))); break;
    case kChar: case kByte: for (let k: usize = 0; k < m; k++) store<u8>(dst + i + k, <u8>load<i64>(buf + (k << 3))); break;
  }
}

/** dst[i] = kind(a[i], b[i]) for n float32 values (dst may be a or b). */
function f32_loop(kind: i32, dst: usize, a: usize, b: usize, n: usize, p: f32, q: f32): void {
  switch (kind) {
    case F_ABS: f32_abs(dst, a, n); return;
    case F_CEIL: f32_ceil(dst, a, n); return;
    case F_FLOOR: f32_floor(dst, a, n); return;
    case F_ADD: f32_add(dst, a, b, n, p); return;
    case F_MUL: f32_mul(dst, a, b, n); return;
    case F_DIV: f32_div(dst, a, b, n); return;
    case F_ADD_S: f32_add_s(dst, a, n, p); return;
    case F_MUL_S: f32_mul_s(dst, a, n, p); return;
    case F_DIV_S: f32_div_s(dst, a, n, p); return;
    case F_CLAMP: f32_clamp(dst, a, n, p, q); return;
  }
  // The rest is libm work, one element at a time, in double precision rounded to float32: AssemblyScript's
  // float32 Mathf.sin/cos/tan reduce large arguments wrongly (thousands of ulps off beyond 2^16), while its
  // float64 Math (musl) rounded to float32 agrees with the correctly rounded result on random inputs.
  for (let i: usize = 0; i < n; i++) {
    const o = i << 2;
    const x = <f64>load<f32>(a + o);
    let r: f64;
    switch (kind) {
      case F_SIN: r = Math.sin(x); break;
      case F_COS: r = Math.cos(x); break;
      case F_TAN: r = Math.tan(x); break;
      case F_LOG: r = Math.log(x); break;
      case F_LOG2: r = Math.log2(x); break;
      case F_LOG10: r = Math.log10(x); break;
      case F_EXP: r = Math.exp(x); break;
      case F_POW: r = Math.pow(x, <f64>load<f32>(b + o)); break;
      case F_POW_S: r = Math.pow(x, <f64>p); break;
      default: r = Math.pow(<f64>p, x); break; // F_RPOW_S
    }
    store<f32>(dst + o, <f32>r);
  }
}

function f32_abs(dst: usize, a: usize, n: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.abs(v128.load(a + o))); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, Mathf.abs(load<f32>(a + o))); }
}

function f32_ceil(dst: usize, a: usize, n: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.ceil(v128.load(a + o))); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, Mathf.ceil(load<f32>(a + o))); }
}

function f32_floor(dst: usize, a: usize, n: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.floor(v128.load(a + o))); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, Mathf.floor(load<f32>(a + o))); }
}

/** dst = a + alpha*b; alpha*b is rounded to float32 before the add (no fused multiply-add). */
function f32_add(dst: usize, a: usize, b: usize, n: usize, alpha: f32): void {
  let i: usize = 0;
  if (alpha == 1) {
    for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.add(v128.load(a + o), v128.load(b + o))); }
  } else if (alpha == -1) {
    for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.sub(v128.load(a + o), v128.load(b + o))); }
  } else {
    const al = f32x4.splat(alpha);
    for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.add(v128.load(a + o), f32x4.mul(al, v128.load(b + o)))); }
  }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, load<f32>(a + o) + alpha * load<f32>(b + o)); }
}

function f32_mul(dst: usize, a: usize, b: usize, n: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.mul(v128.load(a + o), v128.load(b + o))); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, load<f32>(a + o) * load<f32>(b + o)); }
}

function f32_div(dst: usize, a: usize, b: usize, n: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.div(v128.load(a + o), v128.load(b + o))); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, load<f32>(a + o) / load<f32>(b + o)); }
}

function f32_add_s(dst: usize, a: usize, n: usize, s: f32): void {
  const v = f32x4.splat(s);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.add(v128.load(a + o), v)); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, load<f32>(a + o) + s); }
}

function f32_mul_s(dst: usize, a: usize, n: usize, s: f32): void {
  const v = f32x4.splat(s);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.mul(v128.load(a + o), v)); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, load<f32>(a + o) * s); }
}

function f32_div_s(dst: usize, a: usize, n: usize, s: f32): void {
  const v = f32x4.splat(s);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.div(v128.load(a + o), v)); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, load<f32>(a + o) / s); }
}

/** min(max(a, lo), hi) with WebAssembly's max/min: a NaN anywhere gives NaN, and +0 is above -0. */
function f32_clamp(dst: usize, a: usize, n: usize, lo: f32, hi: f32): void {
  const l = f32x4.splat(lo), h = f32x4.splat(hi);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.min(f32x4.max(v128.load(a + o), l), h)); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, min<f32>(max<f32>(load<f32>(a + o), lo), hi)); }
}

/** dst[i] = kind(a[i], b[i]) for n int64 values (dst may be a or b). */
function i64_loop(kind: i32, dst: usize, a: usize, b: usize, n: usize, p: i64, q: i64): void {
  for (let i: usize = 0; i < n; i++) {
    const o = i << 3;
    const x = load<i64>(a + o);
    let r: i64;
    switch (kind) {
      case I_ABS: r = abs<i64>(x); break;
      case I_COPY: r = x; break;
      case I_NOT: r = ~x; break;
      case I_ADD: r = x + p * load<i64>(b + o); break;
      case I_MUL: r = x * load<i64>(b + o); break;
      case I_POW: r = powi(x, load<i64>(b + o)); break;
      case I_AND: r = x & load<i64>(b + o); break;
      case I_OR: r = x | load<i64>(b + o); break;
      case I_ADD_S: r = x + p; break;
      case I_MUL_S: r = x * p; break;
      case I_POW_S: r = powi(x, p); break;
      case I_RPOW_S: r = powi(p, x); break;
      case I_AND_S: r = x & p; break;
      case I_OR_S: r = x | p; break;
      default: r = min<i64>(max<i64>(x, p), q); break; // I_CLAMP
    }
    store<i64>(dst + o, r);
  }
}
