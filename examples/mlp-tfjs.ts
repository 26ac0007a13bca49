// The same MLP in TensorFlow.js on its WebAssembly backend (XNNPACK SIMD
// kernels, one thread in Node): the peer the examples and the mlp benchmark
// compare with. Same weights, same layout (x · w + b), log_softmax at the end.
import type * as tf from "@tensorflow/tfjs-core";
import { readResult } from "../bench/peers/tfjs.js";
import type { Mlp } from "./mlp.js";

/** The MLP's weights as TF.js tensors, and a forward pass that returns the log-probabilities as a Float32Array. */
export interface TfjsMlp {
  /** Uploads x [rows, 784], runs the MLP, reads the result (dataSync), frees the temporaries. */
  forward(x: Float32Array, rows: number): Float32Array;
  dispose(): void;
}

/** A TF.js copy of an MLP's parameters. */
export function tfjsMlp(t: typeof tf, mlp: Mlp): TfjsMlp {
  const layers = mlp.layers.map((l) => ({
    w: t.tensor2d(l.weight.data() as Float32Array, l.weight.sizes() as [number, number]),
    b: t.tensor1d(l.bias.data() as Float32Array),
  }));
  return {
    forward(x, rows) {
      return readResult(t, () => {
        let h: tf.Tensor2D = t.tensor2d(x, [rows, x.length / rows]);
        layers.forEach(({ w, b }, i) => {
          h = t.add(t.matMul(h, w), b);
          if (i < layers.length - 1) h = t.relu(h);
        });
        return t.logSoftmax(h);
      });
    },
    dispose() {
      for (const { w, b } of layers) { w.dispose(); b.dispose(); }
    },
  };
}
