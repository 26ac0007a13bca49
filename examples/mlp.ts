// The seed's 3-layer MLP for MNIST: Linear -> Relu -> Linear -> Relu ->
// Linear -> log_softmax, every step a custom operator wrapped as an autograd
// Function (my-ops.ts), trained with SGD on the NLL loss. Weights are
// [in, out] (x · w + b), xavier-normal from a fixed seed; biases as
// torch.nn.Linear's, uniform in ±1/sqrt(in). Inference (infer) runs the same
// layers on weights packed once (pack_weights) with the activations
// feature-major, the layout in which the GEMM copies least (gemm/packed.ts).
import { autograd, ops, tensor, Rng, type Tensor } from "gpsimd";
import { reluFunction, linearFunction, LogSoftmax, NllLoss, type ReluVariant, type GemmLibrary } from "./my-ops.js";

/** W3, the inference MLP of the performance tutorial. */
export const W3_LAYERS = [784, 4096, 2048, 10];
/** The training tutorial's MLP. */
export const TRAINING_LAYERS = [784, 120, 84, 10];
/** The tutorials' batch size. */
export const BATCH = 32;

/** One linear layer's parameters. */
export interface LinearLayer {
  /** [in, out] */
  weight: Tensor;
  /** [out] */
  bias: Tensor;
}

/** The MLP's layers and how it runs. */
export interface Mlp {
  layers: LinearLayer[];
  relu: ReluVariant;
  gemm: GemmLibrary;
}

/** A fresh MLP with the given layer sizes (e.g. W3_LAYERS). */
export function createMlp(sizes: readonly number[], options: { relu: ReluVariant; gemm: GemmLibrary; seed?: number }): Mlp {
  const rng = new Rng(options.seed ?? 0);
  const layers = sizes.slice(1).map((out, i) => {
    const inputs = sizes[i];
    const w = new Float32Array(inputs * out);
    rng.fillNormal(w, 0, Math.sqrt(2 / (inputs + out)));
    const b = new Float32Array(out);
    rng.fillUniform(b, -1 / Math.sqrt(inputs), 1 / Math.sqrt(inputs));
    return { weight: tensor(w, [inputs, out]), bias: tensor(b, [out]) };
  });
  return { layers, relu: options.relu, gemm: options.gemm };
}

/** The weights and biases in order (w1, b1, w2, b2, ...). */
export function parameters(mlp: Mlp): Tensor[] {
  return mlp.layers.flatMap((l) => [l.weight, l.bias]);
}

/**
 * Log-probabilities [batch, classes] of a batch x [batch, in]. Intermediate tensors are pushed onto `made`
 * (dispose them when done with the step); the result is returned, not pushed.
 */
export function forward(mlp: Mlp, x: Tensor, made: Tensor[] = []): Tensor {
  const Relu = reluFunction(mlp.relu);
  const Linear = linearFunction(mlp.gemm);
  let h = x;
  mlp.layers.forEach((layer, i) => {
    h = Linear.apply(h, layer.weight, layer.bias);
    made.push(h);
    if (i < mlp.layers.length - 1) {
      h = Relu.apply(h);
      made.push(h);
    }
  });
  return LogSoftmax.apply(h);
}

/** An MLP's weights packed for linear_packed, one [ceil(out/48), in, 48] tensor per layer. */
export interface PackedWeights {
  panels: Tensor[];
}

/** Packs every layer's weight (once; repack after the weights change). */
export function packWeights(mlp: Mlp): PackedWeights {
  return { panels: mlp.layers.map((l) => ops[mlp.gemm].pack_weights(l.weight)) };
}

/** A batch [rows, cols] as the feature-major tensor [cols, rows] infer() takes. */
export function featureMajor(x: Float32Array, rows: number, cols: number): Tensor {
  const t = new Float32Array(x.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = x[i * cols + j];
  return tensor(t, [cols, rows]);
}

/**
 * Inference: log-probabilities [batch, classes] of a feature-major batch xt [in, batch] (see featureMajor), through
 * linear_packed, the ReLU variant and log_softmax. Records nothing; intermediates are disposed.
 */
export function infer(mlp: Mlp, packed: PackedWeights, xt: Tensor): Tensor {
  const Relu = reluFunction(mlp.relu);
  const last = mlp.layers.length - 1;
  let h = xt;
  return autograd.no_grad(() => {
    mlp.layers.forEach((layer, i) => {
      // Hidden layers stay feature-major ([out, batch]) for the next layer; the last one comes out [batch, classes].
      const y = ops[mlp.gemm].linear_packed(h, packed.panels[i], layer.bias, i < last ? 1 : 0);
      if (h !== xt) h.dispose();
      h = y;
      if (i < last) {
        h = Relu.apply(y);
        y.dispose();
      }
    });
    const logp = LogSoftmax.apply(h);
    h.dispose();
    return logp;
  });
}

/** Mean NLL loss of log-probabilities against int32 targets (pushes nothing). */
export function nllLoss(logp: Tensor, target: Tensor): Tensor {
  return NllLoss.apply(logp, target);
}

/** One SGD step on a batch: forward, loss, gradients of every parameter, w -= lr * dw. Returns the loss. */
export function trainStep(mlp: Mlp, x: Tensor, target: Tensor, lr: number): number {
  const params = parameters(mlp);
  for (const p of params) autograd.requires_grad_(p);
  const made: Tensor[] = [];
  const logp = forward(mlp, x, made);
  const loss = nllLoss(logp, target);
  const value = (loss.storageView() as Float32Array)[0];
  const grads = autograd.grad(loss, params);
  params.forEach((p, i) => {
    sgdUpdate(p, grads[i], lr);
    grads[i].dispose();
  });
  for (const t of [...made, logp, loss]) t.dispose();
  return value;
}

/** p -= lr * g, in place in device memory. */
export function sgdUpdate(p: Tensor, g: Tensor, lr: number): void {
  const w = p.storageView() as Float32Array, d = g.storageView() as Float32Array;
  for (let i = 0; i < w.length; i++) w[i] -= lr * d[i];
}

/** Predicted classes (argmax of each row) of log-probabilities [batch, classes]. */
export function predictions(logp: Tensor): Int32Array {
  const [rows, cols] = logp.sizes();
  const v = logp.storageView() as Float32Array;
  const out = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    let best = 0;
    for (let j = 1; j < cols; j++) if (v[i * cols + j] > v[i * cols + best]) best = j;
    out[i] = best;
  }
  return out;
}

/** Frees the parameters (and packed weights, if given). */
export function disposeMlp(mlp: Mlp, packed?: PackedWeights): void {
  for (const p of [...parameters(mlp), ...(packed?.panels ?? [])]) p.dispose();
}
