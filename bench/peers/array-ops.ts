// A minimal tensor library over Float32Arrays, as a user would write or find
// one: every operation is its own pass and returns a new array. Composing
// these is the "naive" peer (the tensor-library user's code).

/** x[..., k] of a row-major array whose last dimension has `width` entries. */
export function column(x: Float32Array, k: number, width: number): Float32Array {
  const out = new Float32Array(x.length / width);
  for (let i = 0; i < out.length; i++) out[i] = x[i * width + k];
  return out;
}

/** a + b */
export function add(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] + b[i];
  return out;
}

/** a - b */
export function sub(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] - b[i];
  return out;
}

/** a * b */
export function mul(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] * b[i];
  return out;
}

/** a / b */
export function div(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] / b[i];
  return out;
}

/** Element-wise maximum. */
export function maximum(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.max(a[i], b[i]);
  return out;
}

/** Element-wise minimum. */
export function minimum(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.min(a[i], b[i]);
  return out;
}

/** max(a, lo) per element (torch's clamp(min=lo)). */
export function clampMin(a: Float32Array, lo: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.max(a[i], lo);
  return out;
}
