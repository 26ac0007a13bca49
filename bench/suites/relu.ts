// W2 ReLU forward and backward at the MLP's sizes, 16 Mi elements and an odd
// size: the three kernels beside a TypeScript loop and tf.relu (wasm).
import { ops, randn, type Tensor } from "gpsimd";
import { reluForward, reluBackward } from "../../ops/relu/reference.js";
import { shipped, seedCppKernel } from "../libraries.js";
import { tfjs } from "../peers/tfjs.js";
import { reluLoop, reluBackwardLoop, reluTfjs, reluBackwardTfjs } from "../peers/relu.js";
import { reluFloors } from "../floors/index.js";
import { verifyOutput } from "../verify.js";
import { multicoreBreakdown } from "../multicore-breakdown.js";
import type { Suite, Workload } from "../suite.js";

/** The largest output the seed's C++ TCM ReLU can make with torch::zeros in the default kernel heap (4 MB, less its C++ stack). */
const CPP_HEAP_OUTPUT_BYTES = 2 << 20;

/** The W2 sizes: the MLP's hidden activations, 16 Mi elements, and 999 x 1001 (not a multiple of 8 or of 1024). */
export const RELU_SIZES: [number, number][] = [[32, 4096], [32, 2048], [4096, 4096], [999, 1001]];

/** The sizes whose multicore calls are broken down: the MLP's [32, 4096] (the multicore checks' goal), ≈2^20 and 2^24. */
const BREAKDOWN_SIZES: [number, number][] = [[32, 4096], [999, 1001], [4096, 4096]];

/** "relu-fwd-32x4096" */
export function reluWorkloadName(direction: "fwd" | "bwd", [rows, cols]: [number, number]): string {
  return `relu-${direction}-${rows}x${cols}`;
}

export const reluSuite: Suite = {
  name: "relu",
  title: "W2 ReLU forward and backward: the kernels, a TypeScript loop and tf.relu",
  notes: [
    "Kernels with default checks on. ts-loop writes a new Float32Array; tfjs-wasm includes dataSync of the result (backward is dy * step(x), tfjs's own Relu gradient).",
    "ns/element = time per call / elements.",
    "cpp-tcm and cpp-multicore: the tutorial's relu.cpp kernels unchanged (examples/seeds-cpp/), compiled by clang; cpp-multicore only where the size is a multiple of 8 (elsewhere the seed's core 7 runs out of range), cpp-tcm only where its torch::zeros output fits the default 4 MB kernel heap.",
  ],
  async setup(scope) {
    const t = await tfjs();
    for (const lib of ["relu_elementwise", "relu_tcm", "relu_multicore"] as const) shipped(lib);
    seedCppKernel("relu-tcm");
    seedCppKernel("relu-multicore");
    const workloads: Workload[] = [];
    for (const [k, size] of RELU_SIZES.entries()) {
      const x: Tensor = scope.keep(randn(size, { seed: 20 + k })), grad: Tensor = scope.keep(randn(size, { seed: 40 + k }));
      const xs = x.data() as Float32Array, gs = grad.data() as Float32Array;
      const tfX = scope.keep(t.tensor(xs, size)), tfGrad = scope.keep(t.tensor(gs, size));
      const common = { tolerance: { abs: 0, rel: 0 }, baseline: "ts-loop", elements: x.numel() };
      const forward = reluForward(xs);
      const name = reluWorkloadName("fwd", size);
      const floors = await reluFloors(scope, [xs], (out) => verifyOutput(`${name}/floor wasm`, out, forward, common.tolerance));
      if (BREAKDOWN_SIZES.some(([r, c]) => r === size[0] && c === size[1])) {
        // Where relu_multicore's time goes, per thread and per core, beside its floors (the checks' cost at [32, 4096]).
        const lines = await multicoreBreakdown({
          label: `W2 relu_multicore forward [${size.join(", ")}]`, library: shipped("relu_multicore"), call: () => ops.relu_multicore.relu_forward(x),
          elements: x.numel(), copiedBytes: x.numel() * 8, floors,
          goals: { oneThread: 0.8, split: 1.6 },
          speedups: [{ label: "relu (ops/relu)", single: () => ops.relu_tcm.relu_forward(x), multi: () => ops.relu_multicore.relu_forward(x) }],
        });
        console.log(lines.join("\n"));
      }
      workloads.push({
        ...common,
        name,
        title: `W2 ReLU forward, [${size.join(", ")}]`,
        reference: forward,
        floors,
        floorVariants: ["tcm", "multicore-tcm"],
        variants: [
          { name: "elementwise", run: () => ops.relu_elementwise.relu_forward(x) },
          { name: "tcm", run: () => ops.relu_tcm.relu_forward(x) },
          { name: "multicore-tcm", run: () => ops.relu_multicore.relu_forward(x) },
          ...(x.numel() * 4 <= CPP_HEAP_OUTPUT_BYTES ? [{ name: "cpp-tcm", run: () => ops.bench_cpp_relu_tcm.relu_forward(x) }] : []),
          ...(x.numel() % 8 === 0 ? [{ name: "cpp-multicore", run: () => ops.bench_cpp_relu_multicore.relu_forward(x) }] : []),
          { name: "ts-loop", run: () => reluLoop(xs) },
          { name: "tfjs-wasm", run: () => reluTfjs(t, tfX) },
        ],
      }, {
        ...common,
        name: reluWorkloadName("bwd", size),
        title: `W2 ReLU backward, [${size.join(", ")}]`,
        reference: reluBackward(gs, xs),
        variants: [
          { name: "elementwise", run: () => ops.relu_elementwise.relu_backward(grad, x) },
          { name: "tcm", run: () => ops.relu_tcm.relu_backward(grad, x) },
          { name: "multicore-tcm", run: () => ops.relu_multicore.relu_backward(grad, x) },
          { name: "ts-loop", run: () => reluBackwardLoop(gs, xs) },
          { name: "tfjs-wasm", run: () => reluBackwardTfjs(t, tfGrad, tfX) },
        ],
      });
    }
    return workloads;
  },
};
