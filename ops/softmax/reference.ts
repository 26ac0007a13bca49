// Row softmax in plain TypeScript (float64), independent of gpsimd: what the kernels must compute.

/** softmax over each row of an [rows, cols] matrix stored row by row. */
export function softmaxRows(x: Float32Array, rows: number, cols: number): Float64Array {
  if (x.length !== rows * cols) throw new Error(`softmaxRows: ${x.length} values are not ${rows} x ${cols}`);
  const out = new Float64Array(x.length);
  for (let i = 0; i < rows; i++) {
    const row = x.subarray(i * cols, (i + 1) * cols);
    const top = row.reduce((a, b) => Math.max(a, b), -Infinity);
    let total = 0;
    for (let j = 0; j < cols; j++) total += (out[i * cols + j] = Math.exp(row[j] - top));
    for (let j = 0; j < cols; j++) out[i * cols + j] /= total;
  }
  return out;
}
