// Addition and the W5 expression in plain TypeScript, independent of gpsimd.
// Float32Array stores round each result to float32, as float32 tensor ops do.

/** a + b per element (same lengths). */
export function add(a: Float32Array, b: Float32Array): Float32Array {
  if (a.length !== b.length) throw new Error(`add: a has ${a.length} elements, b has ${b.length}`);
  return a.map((v, i) => v + b[i]);
}

/** tensor_add as gpsimd check calls it: the operator's tensors as typed arrays (then every tensor's sizes, unused). */
export function tensor_add(a: Float32Array, b: Float32Array): Float32Array {
  return add(a, b);
}

/** W5: (a + b) * a * b per element, each operation rounded to float32 as a tensor library computes it. */
export function w5(a: Float32Array, b: Float32Array): Float32Array {
  const sum = add(a, b);
  const times_a = sum.map((v, i) => v * a[i]);
  return times_a.map((v, i) => v * b[i]);
}
