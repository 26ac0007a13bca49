// Helpers of the outsider round (outsider.test.ts): deterministic inputs, plain TypeScript
// references for the kernels of test/nki/fixtures/outsider/, and a comparison that names the
// first element outside tolerance.
import path from "node:path";
import { REPO } from "../helpers.js";

export const OUTSIDER = (file: string) => path.join(REPO, "test", "nki", "fixtures", "outsider", file);

/** Deterministic floats in [-r, r) from an LCG, rounded to float32. */
export function values(n: number, seed: number, r = 1): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * r;
  }
  return out;
}

/** Deterministic int32 values in [lo, hi). */
export function ints(n: number, seed: number, lo: number, hi: number): Int32Array {
  const out = new Int32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + Math.floor((s / 2 ** 32) * (hi - lo));
  }
  return out;
}

/** float32 values rounded to bfloat16 (round to nearest even), still as float32. */
export function toBf16(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  const bits = new Uint32Array(out.buffer);
  out.set(x);
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i];
    bits[i] = ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) << 16;
  }
  return out;
}

/** The first element where |a - b| > atol + rtol * |b|, or null. */
export function firstMismatch(a: ArrayLike<number>, b: ArrayLike<number>, rtol: number, atol: number): string | null {
  if (a.length !== b.length) return `${a.length} elements, expected ${b.length}`;
  for (let i = 0; i < b.length; i++) {
    if (!(Math.abs(a[i] - b[i]) <= atol + rtol * Math.abs(b[i]))) return `element ${i}: ${a[i]}, expected ${b[i]}`;
  }
  return null;
}

/** erf to 1e-15 (the Maclaurin series for |x| < 3, the continued fraction beyond). */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 3) {
    let term = ax, sum = ax;
    for (let n = 1; n < 200; n++) {
      term *= -ax * ax / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17) break;
    }
    return Math.sign(x) * sum * 2 / Math.sqrt(Math.PI);
  }
  // erfc by Lentz's continued fraction.
  let f = ax, c = ax, d = 0;
  for (let n = 1; n < 200; n++) {
    const an = n / 2;
    d = ax + an * d; d = 1 / d;
    c = ax + an / c;
    f *= c * d;
  }
  const erfc = Math.exp(-ax * ax) / (f * Math.sqrt(Math.PI));
  return Math.sign(x) * (1 - erfc);
}

export const gelu = (x: number) => 0.5 * x * (1 + erf(x / Math.SQRT2));
export const silu = (x: number) => x / (1 + Math.exp(-x));

/** C[M, N] = A[M, K] @ B[K, N] in float64, A given as aT[K, M] when transposedA. */
export function matmul(a: ArrayLike<number>, b: ArrayLike<number>, M: number, K: number, N: number, transposedA: boolean): Float64Array {
  const c = new Float64Array(M * N);
  for (let m = 0; m < M; m++) {
    for (let k = 0; k < K; k++) {
      const av = transposedA ? a[k * M + m] : a[m * K + k];
      for (let n = 0; n < N; n++) c[m * N + n] += av * b[k * N + n];
    }
  }
  return c;
}
