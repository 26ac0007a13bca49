// W1 GIOU, 1024 x 256 box pairs: the three kernels beside what a TypeScript
// user would otherwise run (array-op composition, a fused loop, TF.js wasm).
import { ops, tensor } from "gpsimd";
import { giouOf as giou } from "../../ops/giou/reference.js";
import { w1Boxes, W1_BATCH, W1_BOXES } from "../../ops/giou/boxes.js";
import { shipped, seedCppKernel } from "../libraries.js";
import { tfjs } from "../peers/tfjs.js";
import { giouNaive, giouTfjs } from "../peers/giou.js";
import { giouFloors } from "../floors/index.js";
import { verifyOutput } from "../verify.js";
import { multicoreBreakdown } from "../multicore-breakdown.js";
import type { Suite, Tolerance } from "../suite.js";

/** GIOU values lie in [-1, 1]; float32 arithmetic against the float64 reference. */
export const GIOU_TOLERANCE: Tolerance = { abs: 1e-5, rel: 1e-5 };

export const giouSuite: Suite = {
  name: "giou",
  title: "W1 GIOU, 1024 x 256 box pairs: the kernels and their TypeScript peers",
  notes: [
    "Kernels with default checks on; their output stays in device memory (reading it through storageView() is free).",
    "naive-ts: one pass per array operation, with temporaries; fused-ts: one loop; tfjs-wasm: the same composition in TF.js, dataSync of the result inside the timed call.",
    "cpp-seed: the blog's giou.cpp with its offsets corrected (examples/seeds-cpp/giou-fixed.cpp), scalar loop unchanged, compiled by clang -O3 -msimd128; giou-cpp pairs it with the hand-tuned v128 AssemblyScript kernel on 8 logical cores, giou-cpp-1core on one.",
  ],
  async setup(scope) {
    const t = await tfjs();
    const [predData, targetData] = w1Boxes(0);
    const shape: [number, number, number] = [W1_BATCH, W1_BOXES, 4];
    const pred = scope.keep(tensor(predData, shape)), target = scope.keep(tensor(targetData, shape));
    const tfPred = scope.keep(t.tensor3d(predData, shape)), tfTarget = scope.keep(t.tensor3d(targetData, shape));
    for (const lib of ["giou_elementwise", "giou_tcm", "giou_multicore"] as const) shipped(lib);
    const reference = giou(predData, targetData, W1_BATCH, W1_BOXES);
    const tcm = () => ops.giou_tcm.giou(pred, target), multicore = () => ops.giou_multicore.giou(pred, target);
    const floors = await giouFloors(scope, predData, targetData, (out) => verifyOutput("giou/floor wasm", out, reference, GIOU_TOLERANCE));
    seedCppKernel("giou-fixed");
    seedCppKernel("giou-fixed-1core");
    const cpp = () => ops.bench_cpp_giou_fixed.giou(pred, target), cpp1 = () => ops.bench_cpp_giou_fixed_1core.giou(pred, target);
    // Where giou_multicore's time goes, per thread and per core, beside its floors; the multicore speed-up of the
    // AssemblyScript kernel and of the corrected seed C++ kernel (each against its own single-core build), same rounds.
    const breakdown = await multicoreBreakdown({
      label: "W1 giou_multicore", library: shipped("giou_multicore"), call: multicore, elements: W1_BATCH * W1_BOXES,
      copiedBytes: W1_BATCH * W1_BOXES * 36, floors, goals: { oneThread: 0.8, split: 1.6 },
      speedups: [
        { label: "AssemblyScript giou (ops/giou)", single: tcm, multi: multicore },
        { label: "C++ giou-fixed.cpp", single: cpp1, multi: cpp },
      ],
    });
    console.log(breakdown.join("\n"));
    return [{
      name: "giou",
      title: `W1 GIOU, ${W1_BATCH} x ${W1_BOXES} box pairs`,
      reference,
      tolerance: GIOU_TOLERANCE,
      baseline: "naive-ts",
      elements: W1_BATCH * W1_BOXES,
      variants: [
        { name: "elementwise", run: () => ops.giou_elementwise.giou(pred, target) },
        { name: "tcm", run: tcm },
        { name: "multicore-tcm", run: multicore },
        { name: "cpp-seed", run: cpp },
        { name: "naive-ts", run: () => giouNaive(predData, targetData) },
        { name: "fused-ts", run: () => giou(predData, targetData, W1_BATCH, W1_BOXES) }, // the reference is one fused loop
        { name: "tfjs-wasm", run: () => giouTfjs(t, tfPred, tfTarget) },
      ],
      floors,
      floorVariants: ["tcm", "multicore-tcm"],
    }, {
      // The same kernel on one core and on 8 logical cores, timed in alternating bursts: the
      // paired ratio time(tcm) / time(multicore-tcm) is the multicore speed-up on this machine.
      name: "giou-scaling",
      title: `W1 GIOU, ${W1_BATCH} x ${W1_BOXES} box pairs: the TCM kernel on one core against 8 logical cores`,
      reference,
      tolerance: GIOU_TOLERANCE,
      baseline: "tcm",
      elements: W1_BATCH * W1_BOXES,
      paired: true,
      variants: [{ name: "tcm", run: tcm }, { name: "multicore-tcm", run: multicore }],
    }, {
      // The corrected seed C++ kernel against the hand-tuned v128 AssemblyScript kernel, both on 8 logical
      // cores, in alternating bursts: the paired ratio time(cpp-seed) / time(multicore-tcm) is W1's C++ cost.
      name: "giou-cpp",
      title: `W1 GIOU, ${W1_BATCH} x ${W1_BOXES} box pairs: the seed's C++ kernel (scalar loop, clang) against the v128 AssemblyScript kernel`,
      reference,
      tolerance: GIOU_TOLERANCE,
      baseline: "multicore-tcm",
      elements: W1_BATCH * W1_BOXES,
      paired: true,
      variants: [{ name: "multicore-tcm", run: multicore }, { name: "cpp-seed", run: cpp }],
    }, {
      // The same two kernels on one core (the C++ file unchanged: get_cpu_count() is 1), where the
      // core threads do not compete for the machine's CPUs: the cleaner measure of the code itself.
      name: "giou-cpp-1core",
      title: `W1 GIOU, ${W1_BATCH} x ${W1_BOXES} box pairs, one core: the seed's C++ kernel against the v128 AssemblyScript kernel`,
      reference,
      tolerance: GIOU_TOLERANCE,
      baseline: "tcm",
      elements: W1_BATCH * W1_BOXES,
      paired: true,
      variants: [{ name: "tcm", run: tcm }, { name: "cpp-seed", run: cpp1 }],
    }];
  },
};
