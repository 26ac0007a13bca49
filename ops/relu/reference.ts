// ReLU in plain TypeScript, independent of gpsimd: what the kernels must compute.

/** max(x, 0) per element (+0 for x <= 0 and for NaN, as x > 0 ? x : 0 gives). */
export function reluForward(x: Float32Array): Float32Array {
  return x.map((v) => (v > 0 ? v : 0));
}

/** The gradient through ReLU: grad where x > 0, else 0. */
export function reluBackward(grad: Float32Array, x: Float32Array): Float32Array {
  if (grad.length !== x.length) throw new Error(`reluBackward: grad has ${grad.length} elements, x has ${x.length}`);
  return grad.map((g, i) => (x[i] > 0 ? g : 0));
}
