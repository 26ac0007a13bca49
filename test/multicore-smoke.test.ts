import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, shutdown } from "gpsimd";
import { loadOp } from "../ops/index.js";

describe("multicore relu", () => {
  const lib = loadOp("relu_multicore");
  afterAll(async () => { lib.unload(); await shutdown(); });

  it("matches max(x, 0) for sizes below, at and not divisible by 8", () => {
    for (const sizes of [[1], [3], [8], [999, 1001], [0]]) {
      const x = randn(sizes, { seed: 7 });
      const y = ops.relu_multicore.relu_forward(x);
      const xd = x.data() as Float32Array;
      expect(Array.from(y.data() as Float32Array)).toEqual(Array.from(xd, (v) => Math.max(v, 0)));
    }
  });
});
