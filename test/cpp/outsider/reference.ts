// Plain TypeScript references for the outsider kernels (test/cpp/outsider/*.cpp), written from
// what each kernel's comment says it computes, in float32 where the kernel computes in float.
const f = Math.fround;

/** Row-wise softmax of a [rows, cols] matrix. */
export function softmaxRows(x: ArrayLike<number>, rows: number, cols: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows; i++) {
    const row = Array.from({ length: cols }, (_, j) => x[i * cols + j]);
    const mx = Math.max(...row);
    const e = row.map((v) => Math.exp(v - mx));
    const s = e.reduce((a, b) => a + b, 0);
    out.push(...e.map((v) => v / s));
  }
  return out;
}

/** alpha * GELU(x) with the tanh approximation. */
export function geluScaled(x: ArrayLike<number>, alpha: number): number[] {
  const k = Math.sqrt(2 / Math.PI);
  return Array.from(x, (v) => alpha * 0.5 * v * (1 + Math.tanh(k * (v + 0.044715 * v ** 3))));
}

/** Layer norm over the last dimension, no affine part. */
export function layernorm(x: ArrayLike<number>, rows: number, cols: number, eps: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows; i++) {
    const row = Array.from({ length: cols }, (_, j) => x[i * cols + j]);
    const mean = row.reduce((a, b) => a + b, 0) / cols;
    const variance = row.reduce((a, b) => a + b * b, 0) / cols - mean * mean;
    out.push(...row.map((v) => (v - mean) / Math.sqrt(variance + eps)));
  }
  return out;
}

/** floor(x) + |x| + log(1 + |x|) + poly(clamp(x, -2, 2)) + clamp(x, piece i % 3). */
export function special(x: ArrayLike<number>): number[] {
  const coeffs = [0.5, -0.25, 0.125, 2, 1];
  const pieces = [[-1, 1], [0, 2], [-3, 0.5]];
  const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
  return Array.from(x, (v, i) => {
    const c = clamp(v, -2, 2);
    const poly = coeffs.reduceRight((acc, k) => k + c * acc, 0);
    const [lo, hi] = pieces[i % 3];
    return Math.floor(v) + Math.abs(v) + Math.log(1 + Math.abs(v)) + poly + clamp(v, lo, hi);
  });
}

/** Each row sorted in descending order. */
export function sortRowsDescending(x: ArrayLike<number>, rows: number, cols: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows; i++) out.push(...Array.from({ length: cols }, (_, j) => x[i * cols + j]).sort((a, b) => b - a));
  return out;
}

/** The sum of the k largest values (float32 additions, largest first does not matter for exact small integers). */
export function topkSum(x: ArrayLike<number>, k: number): number {
  return Array.from(x).sort((a, b) => b - a).slice(0, Math.min(k, x.length)).reduce((a, b) => a + b, 0);
}

/** [a, b, c] -> [a, b]: (max - min) + mean over the last dimension. */
export function reduce3d(x: ArrayLike<number>, a: number, b: number, c: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < a * b; i++) {
    const v = Array.from({ length: c }, (_, k) => x[i * c + k]);
    out.push(Math.max(...v) - Math.min(...v) + v.reduce((p, q) => p + q, 0) / c);
  }
  return out;
}

/** Counts of byte values in `bins` equal buckets of [0, 256). */
export function histogram(x: ArrayLike<number>, bins: number): number[] {
  const counts = new Array<number>(bins).fill(0);
  for (const v of Array.from(x)) counts[Math.floor((v * bins) / 256)]++;
  return counts;
}

/** exp(clamp(a + 2b, -5, 5)) * a. */
export function tensorOps(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  return Array.from(a, (v, i) => Math.exp(Math.min(Math.max(f(v + 2 * b[i]), -5), 5)) * v);
}

/** x * s in float32 (the kernel's product, before rounding to bfloat16). */
export function scaledFloat32(x: ArrayLike<number>, s: number): number[] {
  return Array.from(x, (v) => f(v * f(s)));
}

/** x * scale + shift. */
export function scaleShift(x: ArrayLike<number>, scale: number, shift: number): number[] {
  return Array.from(x, (v) => v * scale + shift);
}

/** The maximum of each row. */
export function rowMax(x: ArrayLike<number>, rows: number, cols: number): number[] {
  return Array.from({ length: rows }, (_, i) => Math.max(...Array.from({ length: cols }, (_, j) => x[i * cols + j])));
}

/** Each value printed to `digits` decimals and read back as float32. */
export function formatRound(x: ArrayLike<number>, digits: number): number[] {
  return Array.from(x, (v) => f(Number(v.toFixed(digits))));
}
