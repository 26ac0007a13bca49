// The MLP's forward pass in plain TypeScript (float64), independent of
// gpsimd's operators: what the operator MLP must compute.
import { logSoftmax } from "../ops/nn/reference.js";

/** One layer as plain arrays: weight row-major [inputs, outputs], bias [outputs]. */
export interface PlainLayer {
  weight: Float32Array | Float64Array;
  bias: Float32Array | Float64Array;
  inputs: number;
  outputs: number;
}

/** Log-probabilities [rows, classes] of x [rows, inputs]: ReLU after every layer but the last, log_softmax at the end. */
export function mlpForwardReference(layers: readonly PlainLayer[], x: ArrayLike<number>, rows: number): Float64Array {
  let h: ArrayLike<number> = x;
  layers.forEach((layer, index) => {
    const { weight, bias, inputs, outputs } = layer;
    const out = new Float64Array(rows * outputs);
    for (let i = 0; i < rows; i++) {
      const row = out.subarray(i * outputs, (i + 1) * outputs);
      row.set(bias);
      for (let p = 0; p < inputs; p++) {
        const v = h[i * inputs + p];
        if (v === 0) continue;
        const w = weight.subarray(p * outputs, (p + 1) * outputs);
        for (let j = 0; j < outputs; j++) row[j] += v * w[j];
      }
      if (index < layers.length - 1) for (let j = 0; j < outputs; j++) row[j] = row[j] > 0 ? row[j] : 0;
    }
    h = out;
  });
  return logSoftmax(h, rows, layers[layers.length - 1].outputs);
}
