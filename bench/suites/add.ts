// W5: a + b as a custom operator, and (a + b) * a * b with the addition on
// the device and the rest composed on the host, beside TypeScript and TF.js.
import { ops, randn } from "gpsimd";
import { add as addReference, w5 } from "../../ops/add/reference.js";
import { shipped } from "../libraries.js";
import { tfjs } from "../peers/tfjs.js";
import { add, mul } from "../peers/array-ops.js";
import { addTfjs, w5Tfjs, w5Fused } from "../peers/pool-add.js";
import type { Suite } from "../suite.js";

const SIZE: [number, number] = [256, 1024];

export const addSuite: Suite = {
  name: "add",
  title: "W5: tensor_add, and (a + b) * a * b with the addition as the custom operator",
  notes: [
    "Kernels with default checks on. In w5/tcm and w5/multicore-tcm the kernel adds and the host multiplies (one pass per operation, over the output's storageView()).",
    "naive-ts: one pass per operation; fused-ts: one loop rounding each operation to float32; tfjs-wasm includes dataSync.",
  ],
  async setup(scope) {
    const t = await tfjs();
    for (const lib of ["add_tcm", "add_multicore"] as const) shipped(lib);
    const a = scope.keep(randn(SIZE, { seed: 5 })), b = scope.keep(randn(SIZE, { seed: 6 }));
    const ad = a.data() as Float32Array, bd = b.data() as Float32Array;
    const tfA = scope.keep(t.tensor(ad, SIZE)), tfB = scope.keep(t.tensor(bd, SIZE));
    const exact = { abs: 0, rel: 0 };
    const hostMultiplies = (lib: "add_tcm" | "add_multicore") => () => {
      const sum = ops[lib].tensor_add(a, b);
      try {
        return mul(mul(sum.storageView() as Float32Array, ad), bd);
      } finally {
        sum.dispose();
      }
    };
    return [{
      name: "add",
      title: `tensor_add, a + b, [${SIZE.join(", ")}]`,
      reference: addReference(ad, bd),
      tolerance: exact,
      baseline: "ts-loop",
      elements: a.numel(),
      variants: [
        { name: "tcm", run: () => ops.add_tcm.tensor_add(a, b) },
        { name: "multicore-tcm", run: () => ops.add_multicore.tensor_add(a, b) },
        { name: "ts-loop", run: () => add(ad, bd) },
        { name: "tfjs-wasm", run: () => addTfjs(t, tfA, tfB) },
      ],
    }, {
      name: "w5",
      title: `W5 (a + b) * a * b, [${SIZE.join(", ")}]`,
      reference: w5(ad, bd),
      tolerance: exact,
      baseline: "naive-ts",
      elements: a.numel(),
      variants: [
        { name: "tcm", run: hostMultiplies("add_tcm") },
        { name: "multicore-tcm", run: hostMultiplies("add_multicore") },
        { name: "naive-ts", run: () => mul(mul(add(ad, bd), ad), bd) },
        { name: "fused-ts", run: () => w5Fused(ad, bd) },
        { name: "tfjs-wasm", run: () => w5Tfjs(t, tfA, tfB) },
      ],
    }];
  },
};
