// What `npm start` runs: builds the shipped operators, runs them on the
// seeds' workloads (W1 GIOU, W2 ReLU, W4 AveragePool2D, W5 (a + b) * a * b),
// checks each result against a plain TypeScript reference, prints results
// and timings, and shows what gpsimd says about the seed's multicore ReLU and
// about the GIOU blog's giou.cpp, unmodified. After W1, the seeds' NKI
// kernels run beside the C++ and AssemblyScript ones (examples/nki-main.ts).
import os from "node:os";
import path from "node:path";
import { ops, tensor, randn, shutdown, custom_op, setOutput, type Tensor, type Library } from "gpsimd";
import { seedCpp } from "./seeds-cpp.js";
import { nkiSection } from "./nki-main.js";
import { loadOp, OP_LIBRARIES, PACKAGE_ROOT, OPS_BUILD_DIR, type OpLibraryName } from "../ops/index.js";
import { reluForward } from "../ops/relu/reference.js";
import { w5 } from "../ops/add/reference.js";
import { avgpool2dOf as avgpool2d } from "../ops/avgpool/reference.js";
import { giouOf as giou } from "../ops/giou/reference.js";
import { w1Boxes, W1_BATCH, W1_BOXES } from "../ops/giou/boxes.js";

/** Median milliseconds of fn over a few rounds (after a warm-up). */
function time(fn: () => void, minMs = 150): number {
  fn();
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < 5 || (performance.now() - start < minMs && samples.length < 1000)) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

function maxError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  return worst;
}

function table(rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  rows.forEach((r, i) => {
    console.log("  " + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("   "));
    if (i === 0) console.log("  " + widths.map((w) => "-".repeat(w)).join("   "));
  });
}

console.log(`gpsimd: GpSimd custom operators as WebAssembly — ${os.cpus().length} CPUs, Node ${process.version}\n`);

// ---- build ----
console.log(`Building the shipped operator libraries (cached in ${OPS_BUILD_DIR} when nothing changed):`);
const libraries = new Map<string, Library>();
for (const name of Object.keys(OP_LIBRARIES) as OpLibraryName[]) {
  const t0 = performance.now();
  libraries.set(name, loadOp(name));
  console.log(`  ${name.padEnd(20)} ${OP_LIBRARIES[name].multicore ? "multicore  " : "single-core"} ${(performance.now() - t0).toFixed(0).padStart(6)} ms`);
}

// ---- W2 ReLU ----
console.log("\nW2 ReLU forward, float32 [32, 4096] (the MLP's first hidden layer), against max(x, 0):");
const x = randn([32, 4096], { seed: 2 });
const reluRef = reluForward(x.data() as Float32Array);
const reluRows = [["variant", "max error", "ms/call"]];
for (const [label, call] of [
  ["element-wise accessor", () => ops.relu_elementwise.relu_forward(x)],
  ["TCM accessor", () => ops.relu_tcm.relu_forward(x)],
  ["TCM, 8 cores", () => ops.relu_multicore.relu_forward(x)],
] as [string, () => Tensor][]) {
  const y = call();
  reluRows.push([label, maxError(y.data() as Float32Array, reluRef).toExponential(1), time(() => call().dispose()).toFixed(3)]);
}
table(reluRows);

// ---- W5 ----
console.log("\nW5 (a + b) * a * b, a and b float32 [256, 1024], the addition as a custom operator:");
const a = randn([256, 1024], { seed: 5 }), b = randn([256, 1024], { seed: 6 });
const sum = ops.add_tcm.tensor_add(a, b).data() as Float32Array;
const ad = a.data() as Float32Array, bd = b.data() as Float32Array;
const composed = sum.map((s, i) => s * ad[i] * bd[i]);
console.log(`  max error against the reference: ${maxError(composed, w5(ad, bd)).toExponential(1)}; first values: ${Array.from(composed.subarray(0, 4), (v) => v.toFixed(4)).join(", ")}`);

// ---- W4 AveragePool2D ----
console.log("\nW4 AveragePool2D, the seed's check: arange(2*6*6) as [2, 6, 6], pool 2:");
const small = tensor(Float32Array.from({ length: 72 }, (_, i) => i), [2, 6, 6]);
const pooled = ops.avgpool_tcm.avgpool2d(small, 2);
console.log(`  ${JSON.stringify(pooled.tolist())}`);
console.log(`  matches the reference: ${maxError(pooled.data() as Float32Array, avgpool2d(small.data() as Float32Array, 2, 6, 6, 2)) === 0}`);
const big = randn([128, 256, 256], { seed: 4 });
table([
  ["AveragePool2D [128, 256, 256], pool 2", "ms/call"],
  ["TCM accessor", time(() => ops.avgpool_tcm.avgpool2d(big, 2).dispose()).toFixed(3)],
  ["TCM, 8 cores", time(() => ops.avgpool_multicore.avgpool2d(big, 2).dispose()).toFixed(3)],
]);

// ---- W1 GIOU ----
console.log(`\nW1 GIOU, ${W1_BATCH} x ${W1_BOXES} box pairs (seed: the blog's C++ kernel reached 0.061 ms on a NeuronCore):`);
const [predData, targetData] = w1Boxes(0);
const pred = tensor(predData, [W1_BATCH, W1_BOXES, 4]), target = tensor(targetData, [W1_BATCH, W1_BOXES, 4]);
const giouRef = giou(predData, targetData, W1_BATCH, W1_BOXES);
const giouRows = [["variant", "max error", "ms/call"]];
for (const [label, call] of [
  ["element-wise accessor", () => ops.giou_elementwise.giou(pred, target)],
  ["TCM accessor", () => ops.giou_tcm.giou(pred, target)],
  ["TCM, 8 cores", () => ops.giou_multicore.giou(pred, target)],
] as [string, () => Tensor][]) {
  const y = call();
  giouRows.push([label, maxError(y.data() as Float32Array, giouRef).toExponential(1), time(() => call().dispose()).toFixed(3)]);
}
giouRows.push(["plain TypeScript loop (reference)", "0", time(() => giou(predData, targetData, W1_BATCH, W1_BOXES)).toFixed(3)]);
table(giouRows);

// ---- NKI: the seeds' NKI kernels beside the C++ seed and ops/giou ----
await nkiSection(pred, target, giouRef);

// ---- an error ----
console.log("\nThe seed's multicore ReLU, ported literally, on [999, 1001] (999,999 elements, not a multiple of 8):");
const seedDir = path.join(PACKAGE_ROOT, "examples", "seeds");
const seed = custom_op.load({
  name: "seed_relu", compute_srcs: [path.join(seedDir, "relu-multicore.ts")], shape_srcs: [path.join(seedDir, "relu-multicore-register.ts")],
  build_directory: OPS_BUILD_DIR, multicore: true,
});
try {
  ops.seed_relu.relu_forward(randn([999, 1001]));
  console.log("  (no error?)");
} catch (e) {
  console.log(`  ${(e as Error).name}: ${(e as Error).message.replace(/\n/g, "\n  ")}`);
}
seed.unload();

// ---- the blog's giou.cpp, unmodified, in C++ ----
console.log("\nThe blog's giou.cpp and shape.cpp, byte for byte (examples/seeds-cpp/), built by clang and run on [16, 8, 4] boxes:");
const leaks: string[] = [];
const giouCpp = custom_op.load({
  name: "seed_giou_cpp", compute_srcs: [seedCpp("giou.cpp")], shape_srcs: [seedCpp("shape.cpp")], build_directory: OPS_BUILD_DIR, multicore: true,
  verbose: true, // the first build takes a while (clang, then the device runtime): show its progress
});
const restore = setOutput({ warn: (w) => leaks.push(w) });
try {
  const boxes = () => tensor(Float32Array.from({ length: 16 * 8 * 4 }, (_, i) => [0, 0, 4, 4][i % 4] + (i % 7)), [16, 8, 4]);
  ops.my_ops.giou(boxes(), boxes());
  console.log("  (no error?)");
} catch (e) {
  console.log(`  ${(e as Error).name}: ${(e as Error).message.replace(/\n/g, "\n  ")}`);
} finally {
  restore();
}
for (const w of leaks) console.log(`  warning: ${w.replace(/\n/g, "\n  ")}`);
console.log("  (examples/seeds-cpp/giou-fixed.cpp corrects it: diff the two files)");
giouCpp.unload();
for (const lib of libraries.values()) lib.unload();
await shutdown();
