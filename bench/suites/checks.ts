// What the checks cost: W1 and W2 kernels with library.configure({ checks:
// false, cross_core_checks: false }) against the defaults (both on). Each
// pair is also timed in alternating bursts, so its ratio survives a noisy machine.
import { ops, tensor, randn, type Library, type Tensor, type RuntimeOptions } from "gpsimd";
import { giouOf as giou } from "../../ops/giou/reference.js";
import { w1Boxes, W1_BATCH, W1_BOXES } from "../../ops/giou/boxes.js";
import { reluForward, reluBackward } from "../../ops/relu/reference.js";
import { shipped, accessorOrderKernels, withoutOwnershipChecks } from "../libraries.js";
import { GIOU_TOLERANCE } from "./giou.js";
import { reluWorkloadName } from "./relu.js";
import type { Suite, Workload } from "../suite.js";
import { UNCHECKED_BUILD } from "../unchecked-build.js";

const ON: RuntimeOptions = { checks: true, cross_core_checks: true };
const OFF: RuntimeOptions = { checks: false, cross_core_checks: false };

/** Name of the variant with checks on (the other is "checks-off"). */
export const CHECKS_ON = "checks-on";

/** The two settings of one kernel: checks on (the default) and off. */
function onOff(lib: Library, run: () => Tensor): Workload["variants"] {
  return [
    { name: CHECKS_ON, run, prepare: () => { lib.configure(ON); } },
    { name: "checks-off", run, prepare: () => { lib.configure(OFF); } },
  ];
}

export const checksSuite: Suite = {
  name: "checks",
  title: "Checks on (the default) against checks and cross-core checks off, W1 and W2",
  notes: [
    "checks-off: library.configure({ checks: false, cross_core_checks: false }); checks-on: the defaults.",
    "Workload names are <workload>-<kernel variant>; the paired ratio is time(checks-on) / time(checks-off) from alternating bursts.",
    `<workload>${UNCHECKED_BUILD}: the shipped library with checks on (raw loads and stores checked too) against the same kernel built with ${"-DGPSIMD_WITHOUT_OWNERSHIP_CHECKS=1"} (no raw load and store checks), checks off.`,
  ],
  maxTime: 1,
  setup(scope) {
    const workloads: Workload[] = [];
    const libs = { elementwise: "giou_elementwise", tcm: "giou_tcm", "multicore-tcm": "giou_multicore" } as const;
    const [predData, targetData] = w1Boxes(0);
    const shape: [number, number, number] = [W1_BATCH, W1_BOXES, 4];
    const pred = scope.keep(tensor(predData, shape)), target = scope.keep(tensor(targetData, shape));
    const giouReference = giou(predData, targetData, W1_BATCH, W1_BOXES);
    for (const [variant, name] of Object.entries(libs)) {
      const lib = shipped(name);
      scope.atEnd(() => lib.configure(ON));
      workloads.push({
        name: `giou-${variant}`, title: `W1 GIOU, ${variant} kernel`, reference: giouReference, tolerance: GIOU_TOLERANCE,
        baseline: "checks-off", elements: W1_BATCH * W1_BOXES, paired: true, variants: onOff(lib, () => ops[name].giou(pred, target)),
      });
    }
    const relu = { elementwise: "relu_elementwise", tcm: "relu_tcm", "multicore-tcm": "relu_multicore" } as const;
    const cases: ["fwd" | "bwd", [number, number], (keyof typeof relu)[]][] = [
      ["fwd", [32, 4096], ["elementwise", "tcm", "multicore-tcm"]],
      ["bwd", [32, 4096], ["tcm", "multicore-tcm"]],
      ["fwd", [999, 1001], ["tcm", "multicore-tcm"]],
      ["fwd", [4096, 4096], ["tcm", "multicore-tcm"]],
    ];
    cases.forEach(([direction, size, variants], k) => {
      const x = scope.keep(randn(size, { seed: 60 + k })), grad = scope.keep(randn(size, { seed: 80 + k }));
      const xs = x.data() as Float32Array, gs = grad.data() as Float32Array;
      const reference = direction === "fwd" ? reluForward(xs) : reluBackward(gs, xs);
      for (const variant of variants) {
        const lib = shipped(relu[variant]);
        scope.atEnd(() => lib.configure(ON));
        const op = ops[relu[variant]];
        workloads.push({
          name: `${reluWorkloadName(direction, size)}-${variant}`, title: `W2 ReLU ${direction === "fwd" ? "forward" : "backward"}, [${size.join(", ")}], ${variant} kernel`,
          reference, tolerance: { abs: 0, rel: 0 }, baseline: "checks-off", elements: x.numel(), paired: true,
          variants: onOff(lib, direction === "fwd" ? () => op.relu_forward(x) : () => op.relu_backward(grad, x)),
        });
      }
    });
    // The default mode (checks on, raw loads and stores checked) against the same kernel built without those checks,
    // checks off: what the default mode costs in all.
    const unchecked = [
      ["giou-tcm", "giou_tcm", () => ops.giou_tcm.giou(pred, target), giouReference, W1_BATCH * W1_BOXES, "W1 GIOU, tcm kernel"],
      ["giou-multicore", "giou_multicore", () => ops.giou_multicore.giou(pred, target), giouReference, W1_BATCH * W1_BOXES, "W1 GIOU, multicore-tcm kernel"],
    ] as const;
    for (const [kind, name, run, reference, elements, title] of unchecked) {
      const plain = withoutOwnershipChecks(kind);
      const plainOp = ops[`bench_${kind.replace("-", "_")}_unchecked`];
      workloads.push({
        name: `${kind}${UNCHECKED_BUILD}`, title: `${title}: default checks against a build without raw load and store checks, checks off`,
        reference, tolerance: GIOU_TOLERANCE, baseline: "unchecked-build-checks-off", elements, paired: true,
        variants: [
          { name: CHECKS_ON, run, prepare: () => { shipped(name).configure(ON); } },
          { name: "unchecked-build-checks-off", run: () => plainOp.giou(pred, target), prepare: () => { plain.configure(OFF); } },
        ],
      });
    }
    for (const [size, k] of [[[32, 4096], 0], [[4096, 4096], 3]] as const) {
      const x = scope.keep(randn([...size], { seed: 60 + k }));
      const plain = withoutOwnershipChecks("relu-tcm");
      workloads.push({
        name: `${reluWorkloadName("fwd", [...size])}-tcm${UNCHECKED_BUILD}`, title: `W2 ReLU forward, [${size.join(", ")}], tcm kernel: default checks against a build without raw load and store checks, checks off`,
        reference: reluForward(x.data() as Float32Array), tolerance: { abs: 0, rel: 0 }, baseline: "unchecked-build-checks-off", elements: x.numel(), paired: true,
        variants: [
          { name: CHECKS_ON, run: () => ops.relu_tcm.relu_forward(x), prepare: () => { shipped("relu_tcm").configure(ON); } },
          { name: "unchecked-build-checks-off", run: () => ops.bench_relu_tcm_unchecked.relu_forward(x), prepare: () => { plain.configure(OFF); } },
        ],
      });
    }
    // Element-wise accessors writing in order and out of order: 2 accesses (a read and a write) per element.
    const order = accessorOrderKernels();
    scope.atEnd(() => order.configure(ON));
    const [rows, cols] = ACCESSOR_ORDER_SIZE;
    const m = scope.keep(randn([rows, cols], { seed: 99 }));
    const ms = m.data() as Float32Array;
    const transposed = new Float32Array(ms.length);
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) transposed[j * rows + i] = ms[i * cols + j];
    for (const [kernel, reference] of [["copy2d", ms], ["transpose2d", transposed]] as const) {
      workloads.push({
        name: `${kernel}-elementwise`, title: `Element-wise accessor ${kernel === "copy2d" ? "copy (writes in order)" : "transpose (writes out of order)"}, [${rows}, ${cols}]`,
        reference, tolerance: { abs: 0, rel: 0 }, baseline: "checks-off", elements: rows * cols, paired: true,
        variants: onOff(order, () => ops.bench_accessor_order[kernel](m)),
      });
    }
    return workloads;
  },
};

/** Size of the element-wise copy and transpose workloads. */
export const ACCESSOR_ORDER_SIZE = [256, 512] as const;
