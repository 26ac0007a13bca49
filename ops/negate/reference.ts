// Negation in plain TypeScript, independent of gpsimd.

/** -x per element. */
export function negate(x: Float32Array): Float32Array {
  return x.map((v) => -v);
}

/** tensor_negate as gpsimd check calls it. */
export function tensor_negate(x: Float32Array): Float32Array {
  return negate(x);
}
