// log_softmax and the NLL loss in plain TypeScript (float64), independent of
// gpsimd: what the kernels must compute, on row-major [rows, cols] arrays.

/** Row-wise x - max - log(sum exp(x - max)). */
export function logSoftmax(x: ArrayLike<number>, rows: number, cols: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let top = -Infinity;
    for (let j = 0; j < cols; j++) top = Math.max(top, x[i * cols + j]);
    let total = 0;
    for (let j = 0; j < cols; j++) total += Math.exp(x[i * cols + j] - top);
    const shift = top + Math.log(total);
    for (let j = 0; j < cols; j++) out[i * cols + j] = x[i * cols + j] - shift;
  }
  return out;
}

/** -(1/rows) sum_i logp[i, target[i]]. */
export function nllLoss(logp: ArrayLike<number>, target: ArrayLike<number>, rows: number, cols: number): number {
  let total = 0;
  for (let i = 0; i < rows; i++) total += logp[i * cols + target[i]];
  return -total / rows;
}
