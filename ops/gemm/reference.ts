// GEMM in plain TypeScript, independent of gpsimd: naive triple loops in
// float64 over row-major Float32Arrays, what the kernels must compute.

/** a [m, k] · b [k, n] -> [m, n] (loops i, p, j so that b is read along its rows). */
export function matmul(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      const x = a[i * k + p];
      for (let j = 0; j < n; j++) c[i * n + j] += x * b[p * n + j];
    }
  }
  return c;
}

/** The transpose of a row-major [rows, cols] matrix. */
export function transpose(a: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(a.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = a[i * cols + j];
  return t;
}

/** Column sums of a row-major [rows, cols] matrix. */
export function columnSums(a: Float32Array, rows: number, cols: number): Float64Array {
  const s = new Float64Array(cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) s[j] += a[i * cols + j];
  return s;
}

/** w [k, n] as panels of `width` columns, zero-padded: [ceil(n / width), k, width] (what pack_weights makes). */
export function packPanels(w: Float32Array, k: number, n: number, width: number): Float32Array {
  const panels = Math.ceil(n / width);
  const out = new Float32Array(panels * k * width);
  for (let p = 0; p < panels; p++) {
    for (let r = 0; r < k; r++) {
      for (let c = 0; c < width && p * width + c < n; c++) out[(p * k + r) * width + c] = w[r * n + p * width + c];
    }
  }
  return out;
}
