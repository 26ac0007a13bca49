// W3 MLP inference (784 -> 4096 -> 2048 -> 10, batch 32) with each ReLU
// kernel, beside the same MLP in TensorFlow.js (wasm), and the GEMM operator
// at the W3 layer shapes beside tf.matMul: the figures behind the target
// "W3 inference with the TCM multicore ReLU at least 1.2x TF.js wasm".
import { ops, randn, zeros, kFloat, type Tensor } from "gpsimd";
import { matmul } from "../../ops/gemm/reference.js";
import { shipped } from "../libraries.js";
import { tfjs, readResult } from "../peers/tfjs.js";
import { createMlp, infer, packWeights, featureMajor, disposeMlp, W3_LAYERS, BATCH } from "../../examples/mlp.js";
import { mnist, PIXELS } from "../../examples/mnist.js";
import { mlpForwardReference } from "../../examples/mlp-reference.js";
import { plainLayers } from "../../examples/mlp-report.js";
import { tfjsMlp } from "../../examples/mlp-tfjs.js";
import { RELU_VARIANTS, type ReluVariant } from "../../examples/my-ops.js";
import type { Suite, Variant, Workload } from "../suite.js";

/** The W3 layers as GEMM shapes [M, K, N]. */
export const W3_GEMMS: [number, number, number][] = W3_LAYERS.slice(1).map((n, i) => [BATCH, W3_LAYERS[i], n]);

export const mlpSuite: Suite = {
  name: "mlp",
  title: "W3 MLP inference with each ReLU kernel, and the GEMM operator at the W3 shapes, beside TensorFlow.js wasm",
  notes: [
    "Kernels with default checks on. mlp-w3: linear layers on gemm_multicore's linear_packed (8 logical cores, weights packed once, activations feature-major), log_softmax on nn_tcm; tcm-relu-1core-gemm runs every operator on one core. The input batch (32 MNIST test digits) is already on the device, the log-probabilities stay there.",
    "tfjs-wasm: the same weights, matMul + add + relu + logSoftmax (XNNPACK, one thread in Node), dataSync of the result in the timed call.",
    "gemm-MxKxN workloads: elements = multiply-adds (M*K*N), so GFLOP/s = 2 / (ns/element). linear-packed takes aᵀ and the packed b (zero bias).",
  ],
  maxTime: 2,
  async setup(scope) {
    const t = await tfjs();
    for (const lib of ["relu_elementwise", "relu_tcm", "relu_multicore", "gemm_tcm", "gemm_multicore", "nn_tcm"] as const) shipped(lib);
    const workloads: Workload[] = [];

    for (const [m, k, n] of W3_GEMMS) {
      const a: Tensor = scope.keep(randn([m, k], { seed: 60 + n })), b: Tensor = scope.keep(randn([k, n], { seed: 61 + n }));
      const tfA = scope.keep(t.tensor2d(a.data() as Float32Array, [m, k])), tfB = scope.keep(t.tensor2d(b.data() as Float32Array, [k, n]));
      const at: Tensor = scope.keep(featureMajor(a.data() as Float32Array, m, k)), packed: Tensor = scope.keep(ops.gemm_multicore.pack_weights(b));
      const noBias: Tensor = scope.keep(zeros([n], kFloat));
      workloads.push({
        name: `gemm-${m}x${k}x${n}`,
        title: `GEMM [${m}, ${k}] · [${k}, ${n}] (W3 layer)`,
        reference: Float32Array.from(matmul(a.data() as Float32Array, b.data() as Float32Array, m, k, n)),
        // float32 sums of k products of standard normals against float64.
        tolerance: { abs: 1e-5 * k, rel: 1e-4 },
        baseline: "tfjs-wasm",
        elements: m * k * n,
        variants: [
          { name: "tcm", run: () => ops.gemm_tcm.gemm(a, b) },
          { name: "multicore-tcm", run: () => ops.gemm_multicore.gemm(a, b) },
          { name: "linear-packed-multicore", run: () => ops.gemm_multicore.linear_packed(at, packed, noBias, 0) },
          { name: "tfjs-wasm", run: () => readResult(t, () => t.matMul(tfA, tfB)) },
        ],
      });
    }

    const mlp = createMlp(W3_LAYERS, { relu: "multicore", gemm: "gemm_multicore", seed: 3 });
    const weights = packWeights(mlp);
    scope.atEnd(() => disposeMlp(mlp, weights));
    const digits = mnist().test.images.slice(0, BATCH * PIXELS);
    const xt: Tensor = scope.keep(featureMajor(digits, BATCH, PIXELS));
    const peer = tfjsMlp(t, mlp);
    scope.atEnd(() => peer.dispose());
    const reference = Float32Array.from(mlpForwardReference(plainLayers(mlp), digits, BATCH));
    const ours = (relu: ReluVariant): Variant => ({
      name: `${relu}-relu`,
      run: () => {
        mlp.relu = relu;
        mlp.gemm = "gemm_multicore";
        return infer(mlp, weights, xt);
      },
    });
    // Everything on one core (gemm_tcm reads the same packed weights): our per-core speed against TF.js's one thread.
    const oneCore: Variant = {
      name: "tcm-relu-1core-gemm",
      run: () => {
        mlp.relu = "tcm";
        mlp.gemm = "gemm_tcm";
        return infer(mlp, weights, xt);
      },
    };
    const tfVariant: Variant = { name: "tfjs-wasm", run: () => peer.forward(digits, BATCH) };
    const w3 = { reference, tolerance: { abs: 1e-4, rel: 0 }, baseline: "tfjs-wasm" };
    workloads.push({
      ...w3,
      name: "mlp-w3",
      title: `W3 MLP inference ${W3_LAYERS.join(" -> ")}, batch ${BATCH}`,
      variants: [...(Object.keys(RELU_VARIANTS) as ReluVariant[]).map(ours), oneCore, tfVariant],
    }, {
      ...w3,
      name: "mlp-w3-paired",
      title: "W3 inference, TCM multicore ReLU vs TF.js wasm in alternating bursts (time ratio < 0.83 meets the 1.2x target)",
      paired: true,
      variants: [ours("multicore"), tfVariant],
    });
    return workloads;
  },
};
