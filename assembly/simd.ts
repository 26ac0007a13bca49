// Fast element-wise helpers over raw memory (TCM buffers), for kernels'
// inner loops. A scalar compare/select compiles to a branch in V8 and costs
// ~5 ns per element on random signs; these are branch-free v128 loops.
// pmax/pmin (not max/min, which carry NaN rules) are the fast forms.
// Each checks its ranges once (assembly/ownership.ts), as memory.copy is
// checked, rather than access by access: the build's ownership pass leaves
// these helpers out (build/compile.ts).
import { own_read_range, own_store_in_place } from "./ownership";

/** dst[i] = max(src[i], 0) for n float32 values (dst may equal src). */
export function relu_f32(dst: usize, src: usize, n: usize): void {
  own_read_range(src, n << 2);
  own_store_in_place(dst, src, n << 2);
  const zero = f32x4.splat(0);
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) {
    const p = src + (i << 2), q = dst + (i << 2);
    v128.store(q, f32x4.pmax(zero, v128.load(p)));
    v128.store(q, f32x4.pmax(zero, v128.load(p, 16)), 16);
    v128.store(q, f32x4.pmax(zero, v128.load(p, 32)), 32);
    v128.store(q, f32x4.pmax(zero, v128.load(p, 48)), 48);
  }
  for (; i + 4 <= n; i += 4) v128.store(dst + (i << 2), f32x4.pmax(zero, v128.load(src + (i << 2))));
  for (; i < n; i++) {
    const x = load<f32>(src + (i << 2));
    store<f32>(dst + (i << 2), select<f32>(x, 0, x > 0));
  }
}

/** dst[i] = x[i] > 0 ? grad[i] : 0 for n float32 values (dst may equal grad or x). */
export function relu_backward_f32(dst: usize, grad: usize, x: usize, n: usize): void {
  own_read_range(grad, n << 2);
  own_read_range(x, n << 2);
  own_store_in_place(dst, grad, n << 2);
  const zero = f32x4.splat(0);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) {
    const o = i << 2;
    v128.store(dst + o, v128.and(v128.load(grad + o), f32x4.gt(v128.load(x + o), zero)));
  }
  for (; i < n; i++) {
    const o = i << 2;
    store<f32>(dst + o, select<f32>(load<f32>(grad + o), 0, load<f32>(x + o) > 0));
  }
}

/** dst[i] = a[i] + b[i] for n float32 values. */
export function add_f32(dst: usize, a: usize, b: usize, n: usize): void {
  own_read_range(a, n << 2);
  own_read_range(b, n << 2);
  own_store_in_place(dst, a, n << 2);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.add(v128.load(a + o), v128.load(b + o))); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, load<f32>(a + o) + load<f32>(b + o)); }
}

/** dst[i] = -src[i] for n float32 values. */
export function neg_f32(dst: usize, src: usize, n: usize): void {
  own_read_range(src, n << 2);
  own_store_in_place(dst, src, n << 2);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) { const o = i << 2; v128.store(dst + o, f32x4.neg(v128.load(src + o))); }
  for (; i < n; i++) { const o = i << 2; store<f32>(dst + o, -load<f32>(src + o)); }
}

/** Branch-free max of two float32 values (the larger; b when equal or NaN). */
// @ts-ignore: decorator
@inline export function fmax(a: f32, b: f32): f32 { return select<f32>(a, b, a > b); }

/** Branch-free min of two float32 values (the smaller; b when equal or NaN). */
// @ts-ignore: decorator
@inline export function fmin(a: f32, b: f32): f32 { return select<f32>(a, b, a < b); }
