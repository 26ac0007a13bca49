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

// The operators as gpsimd check calls them: each tensor's values, each scalar, then every tensor's sizes.

/** gemm(a [M, K], b [K, N]) -> [M, N]. */
export function gemm(a: Float32Array, b: Float32Array, [[m, k], [, n]]: number[][]): Float64Array {
  return matmul(a, b, m, k, n);
}

/** gemm_nt(a [M, K], b [N, K]) = a · bᵀ -> [M, N]. */
export function gemm_nt(a: Float32Array, b: Float32Array, [[m, k], [n]]: number[][]): Float64Array {
  return matmul(a, transpose(b, n, k), m, k, n);
}

/** gemm_tn(a [K, M], b [K, N]) = aᵀ · b -> [M, N]. */
export function gemm_tn(a: Float32Array, b: Float32Array, [[k, m], [, n]]: number[][]): Float64Array {
  return matmul(transpose(a, k, m), b, m, k, n);
}

/** linear(x [M, K], w [K, N], bias [N]) = x · w + bias -> [M, N]. */
export function linear(x: Float32Array, w: Float32Array, bias: Float32Array, [[m, k], [, n]]: number[][]): Float64Array {
  return matmul(x, w, m, k, n).map((v, i) => v + bias[i % n]);
}

/** bias_grad(grad [M, N]) = column sums -> [N]. */
export function bias_grad(grad: Float32Array, [[m, n]]: number[][]): Float64Array {
  return columnSums(grad, m, n);
}

/** pack_weights(w [K, N]) -> [ceil(N / 48), K, 48]. */
export function pack_weights(w: Float32Array, [[k, n]]: number[][]): Float32Array {
  return packPanels(w, k, n, 48);
}

/** linear_packed(xt [K, M], wp = pack_weights(w [K, N]), bias [N], transposed_out) -> [N, M] when transposed_out is 1, else [M, N]. */
export function linear_packed(xt: Float32Array, wp: Float32Array, bias: Float32Array, transposed_out: number, [[k, m], , [n]]: number[][]): Float64Array {
  const w = new Float32Array(k * n);
  for (let r = 0; r < k; r++) for (let c = 0; c < n; c++) w[r * n + c] = wp[(Math.floor(c / 48) * k + r) * 48 + (c % 48)];
  const out = matmul(transpose(xt, k, m), w, m, k, n).map((v, i) => v + bias[i % n]);
  return transposed_out ? Float64Array.from(transpose(Float32Array.from(out), m, n)) : out;
}
