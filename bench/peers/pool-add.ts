// Peers of W4 AveragePool2D and W5 (a + b) * a * b: TensorFlow.js, and the
// W5 expression as one TypeScript loop.
import type * as tf from "@tensorflow/tfjs-core";
import { readResult } from "./tfjs.js";

/** tf.avgPool over a C x H x W tensor (as C images of one channel), p x p windows, stride p; read back with dataSync. */
export function avgpoolTfjs(t: typeof tf, x: tf.Tensor3D, p: number): Float32Array {
  const [c, h, w] = x.shape;
  return readResult(t, () => t.avgPool(t.reshape(x, [c, h, w, 1]) as tf.Tensor4D, p, p, "valid"));
}

/** a + b in TensorFlow.js, read back with dataSync. */
export function addTfjs(t: typeof tf, a: tf.Tensor, b: tf.Tensor): Float32Array {
  return readResult(t, () => t.add(a, b));
}

/** (a + b) * a * b in TensorFlow.js, read back with dataSync. */
export function w5Tfjs(t: typeof tf, a: tf.Tensor, b: tf.Tensor): Float32Array {
  return readResult(t, () => t.mul(t.mul(t.add(a, b), a), b));
}

/** (a + b) * a * b in one loop, each operation rounded to float32 as a tensor library would. */
export function w5Fused(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.fround(Math.fround(a[i] + b[i]) * a[i]) * b[i];
  return out;
}
