// The cost of a call itself: an empty kernel (each core writes its share of
// an 8-element output from TCM) on the calling thread, on 1 logical core of
// the core threads, and on 8; synchronous and .async calls.
import { ops, zeros, kFloat, randn } from "gpsimd";
import { emptyKernel, shipped } from "../libraries.js";
import { reluForward } from "../../ops/relu/reference.js";
import { reluFloors } from "../floors/index.js";
import { verifyOutput } from "../verify.js";
import { launchTargets, type LaunchTargetsInput } from "./launch-targets.js";
import type { Suite, Variant, Workload } from "../suite.js";

/** Single calls timed for the latency percentiles. */
export const LAUNCH_CALLS = 20_000;

const KINDS = [
  ["single-core", "single"],
  ["multicore-1core", "multicore-1core"],
  ["multicore-8cores", "multicore"],
] as const;

export const launchSuite: Suite = {
  name: "launch",
  title: "Launch latency: an empty kernel, 1 and 8 logical cores, sync and async calls",
  notes: [
    "Default checks on, cross-core checks included: every core writes its own element(s) of an 8-element output.",
    "single-core runs on the calling thread (sync) or on a core thread (async); multicore-1core and multicore-8cores run on the core threads.",
    `Latency: ${LAUNCH_CALLS} single calls timed with performance.now(); median, p90, p99.`,
    "Then the targets as measured (met, or by how much not), and the tiny call's host time by stage (host/library/call-stages.ts).",
  ],
  async setup(scope) {
    const input = scope.keep(zeros([8], kFloat));
    const workload = (mode: "sync" | "async"): Workload => ({
      name: `launch-${mode}`,
      title: `Empty kernel, ${mode === "sync" ? "synchronous call" : "await op.async(...)"}`,
      reference: new Float32Array(8),
      tolerance: { abs: 0, rel: 0 },
      baseline: "single-core",
      latencyCalls: LAUNCH_CALLS,
      variants: KINDS.map(([variant, kind]): Variant => {
        const op = ops[emptyKernel(kind).namespace].empty;
        return { name: variant, run: mode === "sync" ? () => op(input) : () => op.async(input) };
      }),
    });
    // A tiny real call: what the runtime adds to a kernel whose own work is a few nanoseconds.
    const relu = shipped("relu_tcm");
    const x = scope.keep(randn([256], { seed: 7 }));
    targetsInput = { tiny: { library: relu, call: (t) => ops.relu_tcm.relu_forward(t), input: x } };
    const xs = x.data() as Float32Array, reference = reluForward(xs);
    const tiny: Workload = {
      name: "tiny-relu-256",
      title: "ReLU of 256 floats, one core (relu_tcm), synchronous call",
      reference, tolerance: { abs: 0, rel: 0 }, elements: 256, latencyCalls: LAUNCH_CALLS,
      variants: [{ name: "tcm", run: () => ops.relu_tcm.relu_forward(x) }],
      floors: await reluFloors(scope, [xs], (out) => verifyOutput("tiny-relu-256/floor wasm", out, reference, { abs: 0, rel: 0 })),
    };
    return [workload("sync"), workload("async"), tiny];
  },
  finish: (meta) => launchTargets(meta, targetsInput!),
};

/** What finish() measures again (set by setup). */
let targetsInput: LaunchTargetsInput | null = null;
