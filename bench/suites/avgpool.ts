// W4 AveragePool2D: the seed's check (arange(72) as 2 x 6 x 6, pool 2) and the
// large case (128 x 256 x 256, pool 2), kernels beside a loop and tf.avgPool.
import { ops, tensor, randn, type Tensor } from "gpsimd";
import { avgpool2dOf as avgpool2d } from "../../ops/avgpool/reference.js";
import { shipped } from "../libraries.js";
import { tfjs } from "../peers/tfjs.js";
import { avgpoolTfjs } from "../peers/pool-add.js";
import type { Scope, Suite, Workload } from "../suite.js";
import type * as tf from "@tensorflow/tfjs-core";

const POOL = 2;

async function workload(scope: Scope, x: Tensor): Promise<Workload> {
  const t = await tfjs();
  const [c, h, w] = x.sizes();
  const xs = x.data() as Float32Array;
  const tfX = scope.keep(t.tensor3d(xs, [c, h, w])) as tf.Tensor3D;
  return {
    name: `avgpool-${c}x${h}x${w}`,
    title: `W4 AveragePool2D, ${c} x ${h} x ${w}, pool ${POOL}`,
    reference: avgpool2d(xs, c, h, w, POOL),
    tolerance: { abs: 1e-6, rel: 1e-6 },
    baseline: "ts-loop",
    elements: x.numel(),
    variants: [
      { name: "tcm", run: () => ops.avgpool_tcm.avgpool2d(x, POOL) },
      { name: "multicore-tcm", run: () => ops.avgpool_multicore.avgpool2d(x, POOL) },
      { name: "ts-loop", run: () => avgpool2d(xs, c, h, w, POOL) },
      { name: "tfjs-wasm", run: () => avgpoolTfjs(t, tfX, POOL) },
    ],
  };
}

export const avgpoolSuite: Suite = {
  name: "avgpool",
  title: "W4 AveragePool2D: the seed's small check and the large case",
  notes: [
    "Kernels with default checks on. ts-loop is the plain TypeScript reference (float64 sums); tfjs-wasm is tf.avgPool on C images of one channel, dataSync included.",
  ],
  async setup(scope) {
    for (const lib of ["avgpool_tcm", "avgpool_multicore"] as const) shipped(lib);
    const small = scope.keep(tensor(Float32Array.from({ length: 72 }, (_, i) => i), [2, 6, 6]));
    const large = scope.keep(randn([128, 256, 256], { seed: 4 }));
    return [await workload(scope, small), await workload(scope, large)];
  },
};
