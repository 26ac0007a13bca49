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

// The operators as gpsimd check calls them: each tensor's values, then every tensor's sizes.

/** log_softmax(x [M, C]) -> [M, C]. */
export function log_softmax(x: Float32Array, [[rows, cols]]: number[][]): Float64Array {
  return logSoftmax(x, rows, cols);
}

/** log_softmax_backward(grad [M, C], out [M, C]) = grad - exp(out) * (row sums of grad). */
export function log_softmax_backward(grad: Float32Array, out: Float32Array, [[rows, cols]]: number[][]): Float64Array {
  const dx = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let total = 0;
    for (let j = 0; j < cols; j++) total += grad[i * cols + j];
    for (let j = 0; j < cols; j++) dx[i * cols + j] = grad[i * cols + j] - Math.exp(out[i * cols + j]) * total;
  }
  return dx;
}

/** nll_loss(logp [M, C], target int32 [M]) -> [1]. */
export function nll_loss(logp: Float32Array, target: Int32Array, [[rows, cols]]: number[][]): Float64Array {
  return Float64Array.of(nllLoss(logp, target, rows, cols));
}

/** nll_loss_backward(grad [1], logp [M, C], target int32 [M]) -> [M, C]: -grad / M at [i, target[i]], zero elsewhere. */
export function nll_loss_backward(grad: Float32Array, _logp: Float32Array, target: Int32Array, [, [rows, cols]]: number[][]): Float64Array {
  const dx = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) dx[i * cols + target[i]] = -grad[0] / rows;
  return dx;
}
