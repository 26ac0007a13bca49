// W2 ReLU as a TypeScript user writes it (a loop over a Float32Array) and in
// TensorFlow.js (tf.relu; backward as tfjs's own Relu gradient, dy * step(x)).
import type * as tf from "@tensorflow/tfjs-core";
import { readResult } from "./tfjs.js";

/** max(x, 0) per element, into a new array. */
export function reluLoop(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] > 0 ? x[i] : 0;
  return out;
}

/** grad where x > 0, else 0, into a new array. */
export function reluBackwardLoop(grad: Float32Array, x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] > 0 ? grad[i] : 0;
  return out;
}

/** tf.relu, read back with dataSync. */
export function reluTfjs(t: typeof tf, x: tf.Tensor): Float32Array {
  return readResult(t, () => t.relu(x));
}

/** dy * step(x) (how tfjs differentiates relu), read back with dataSync. */
export function reluBackwardTfjs(t: typeof tf, grad: tf.Tensor, x: tf.Tensor): Float32Array {
  return readResult(t, () => t.mul(grad, t.step(x)));
}
