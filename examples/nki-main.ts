// The NKI part of `npm start`: the seeds' NKI kernels (examples/seeds-nki/,
// unchanged) on gpsimd. The GIOU blog's giou_kernel on its 1024 x 256 box
// pairs beside the blog's C++ GIOU (giou-fixed.cpp, built multicore) and
// ops/giou's 8-core AssemblyScript kernel, with how far apart they are and
// their times; then the AvgPool2D seed on the tutorial's check and the tensor
// add seed on its SPMD grid, each against plain TypeScript.
import path from "node:path";
import { availableParallelism } from "node:os";
import { nki, ops, custom_op, tensor, randn, empty, kFloat, setOutput, type Tensor } from "gpsimd";
import { PACKAGE_ROOT, OPS_BUILD_DIR } from "../ops/index.js";
import { seedCpp } from "./seeds-cpp.js";
import { avgpool2dOf } from "../ops/avgpool/reference.js";
import { W1_BATCH, W1_BOXES } from "../ops/giou/boxes.js";

const seedNki = (file: string) => path.join(PACKAGE_ROOT, "examples", "seeds-nki", file);

/** Median milliseconds of `calls` calls after one warm-up (NKI calls take long enough that a few tell). */
function medianMs(fn: () => void, calls: number): number {
  fn();
  const samples = Array.from({ length: calls }, () => { const t0 = performance.now(); fn(); return performance.now() - t0; });
  return samples.sort((a, b) => a - b)[samples.length >> 1];
}

/** fn with kernel prints discarded. */
function quietly<T>(fn: () => T): T {
  const restore = setOutput({ printf: () => undefined });
  try {
    return fn();
  } finally {
    restore();
  }
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

function table(rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  rows.forEach((r, i) => {
    console.log("  " + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("   "));
    if (i === 0) console.log("  " + widths.map((w) => "-".repeat(w)).join("   "));
  });
}

/** Runs the NKI section on W1's boxes (pred and target float32 [1024, 256, 4]) and its plain TypeScript reference. */
export async function nkiSection(pred: Tensor, target: Tensor, giouRef: Float32Array): Promise<void> {
  console.log(`\nNKI: the GIOU blog's giou_kernel (examples/seeds-nki/giou.py, unchanged) on its ${W1_BATCH} x ${W1_BOXES} box pairs,`);
  console.log("beside the blog's C++ kernel (giou-fixed.cpp, 8 cores) and ops/giou (AssemblyScript, 8 cores):");
  const giouKernel = nki.load(seedNki("giou.py"), "giou_kernel");
  const preds = pred.reshape([W1_BATCH, W1_BOXES * 4]), targets = target.reshape([W1_BATCH, W1_BOXES * 4]);
  const out = empty([W1_BATCH, W1_BOXES], kFloat);
  // On a CPU machine the seed binds debug_print to nl.device_print and prints every [128, 512] tile it loads.
  let printedLines = 0;
  const restore = setOutput({ printf: (text) => { printedLines += text.split("\n").length - 1; } });
  try {
    nki.simulate_kernel(giouKernel, preds, targets, out);
  } finally {
    restore();
  }
  console.log(`  (its debug_print, nl.device_print on a CPU machine, printed ${printedLines} lines of tiles: not shown)`);
  const cpp = custom_op.load({
    name: "seed_giou_fixed", compute_srcs: [seedCpp("giou-fixed.cpp")], shape_srcs: [seedCpp("shape.cpp")], build_directory: OPS_BUILD_DIR,
    multicore: true, extra_cflags: ["-Dmy_ops=seed_giou_fixed"],
  });
  const nkiOut = out.data() as Float32Array;
  const cppOut = ops.seed_giou_fixed.giou(pred, target).data() as Float32Array;
  const asOut = ops.giou_multicore.giou(pred, target).data() as Float32Array;
  table([
    ["GIOU, 1024 x 256 pairs", "max |diff| vs NKI", "max |diff| vs reference", "ms/call"],
    ["NKI giou_kernel (nki.simulate_kernel)", "0", maxAbsDiff(nkiOut, giouRef).toExponential(1), quietly(() => medianMs(() => nki.simulate_kernel(giouKernel, preds, targets, out), 3)).toFixed(2)],
    ["C++ seed giou-fixed.cpp, 8 cores", maxAbsDiff(cppOut, nkiOut).toExponential(1), maxAbsDiff(cppOut, giouRef).toExponential(1), medianMs(() => ops.seed_giou_fixed.giou(pred, target).dispose(), 5).toFixed(3)],
    ["ops/giou AssemblyScript, 8 cores", maxAbsDiff(asOut, nkiOut).toExponential(1), maxAbsDiff(asOut, giouRef).toExponential(1), medianMs(() => ops.giou_multicore.giou(pred, target).dispose(), 5).toFixed(3)],
  ]);
  console.log(`  the three agree: ${Math.max(maxAbsDiff(cppOut, nkiOut), maxAbsDiff(asOut, nkiOut)) <= 1e-5 ? "yes" : "NO"} (float32 arithmetic in different orders; the reference is float64)`);
  cpp.unload();

  console.log("\nNKI AvgPool2D seed (tensor_avgpool_kernel), the tutorial's check: arange(2*6*6) as [2, 6, 6], pool_size=2:");
  const avgpool = nki.load(seedNki("avgpool.py"), "tensor_avgpool_kernel");
  const small = tensor(Float32Array.from({ length: 72 }, (_, i) => i), [2, 6, 6]);
  const pooled = avgpool(small, { pool_size: 2 }) as Tensor;
  console.log(`  ${JSON.stringify(pooled.tolist())}`);
  console.log(`  matches the reference: ${maxAbsDiff(pooled.data() as Float32Array, avgpool2dOf(small.data() as Float32Array, 2, 6, 6, 2)) === 0}`);

  console.log("\nNKI tensor add seed (nki_tensor_add_kernel_) on its SPMD grid, a and b float32 [256, 1024], grid [2, 2]:");
  const add = nki.load(seedNki("tensor_add.py"), "nki_tensor_add_kernel_");
  const a = randn([256, 1024], { seed: 5 }), b = randn([256, 1024], { seed: 6 });
  const c = add[[2, 2] as unknown as "2,2"](a, b) as Tensor;
  const ad = a.data() as Float32Array, bd = b.data() as Float32Array;
  console.log(`  equal to a + b in plain TypeScript: ${maxAbsDiff(c.data() as Float32Array, ad.map((v, i) => Math.fround(v + bd[i]))) === 0}`);
  const threads = Math.min(4, Math.max(2, availableParallelism()));
  table([
    ["tensor add [256, 1024]", "ms/call"],
    ["NKI, grid [2, 2], 1 thread", medianMs(() => (add.with({ threads: 1 }).grid(2, 2)(a, b) as Tensor).dispose(), 5).toFixed(2)],
    [`NKI, grid [2, 2], ${threads} threads`, medianMs(() => (add.with({ threads }).grid(2, 2)(a, b) as Tensor).dispose(), 5).toFixed(2)],
  ]);
  await nki.shutdown();
}
