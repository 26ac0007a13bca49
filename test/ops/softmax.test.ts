// The shipped row-softmax libraries (TCM, TCM multicore) against the plain-TypeScript reference, on rows that fit
// the TCM buffer and rows that must be streamed in pieces; and their profile: a softmax is compute-bound (an exp
// and a divide per element), and eight cores divide its compute by eight.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, profile, shutdown, setOutput } from "gpsimd";
import { loadOp } from "../../ops/index.js";
import { floats, STRICT } from "../helpers.js";
import { softmaxRows } from "../../ops/softmax/reference.js";

const tcm = loadOp("softmax_tcm", STRICT);
const multicore = loadOp("softmax_multicore", STRICT);
afterAll(async () => {
  tcm.unload();
  multicore.unload();
  await shutdown();
});

// One element, fewer rows than cores, a row of exactly the buffer (2048), rows streamed in pieces (2500, 4097).
const shapes = [[1, 1], [5, 10], [9, 2048], [7, 2500], [3, 4097], [64, 33]];

describe("softmax over rows", () => {
  for (const name of ["softmax_tcm", "softmax_multicore"] as const) {
    it(`${name}: each row's softmax, to float32 rounding`, () => {
      shapes.forEach(([m, c], k) => {
        const x = randn([m, c], { seed: 40 + k });
        const got = floats(ops[name].softmax(x));
        const want = softmaxRows(floats(x), m, c);
        got.forEach((v, i) => expect(Math.abs(v - want[i]), `[${m}, ${c}] element ${i}`).toBeLessThanOrEqual(1e-5 * want[i] + 1e-12));
      });
    });
  }

  it("rejects a tensor that is not M x C, naming it", () => {
    expect(() => ops.softmax_tcm.softmax(randn([2, 3, 4]))).toThrow(/softmax: x must be M x C \(2-d: softmax over each row\), got float32\[2, 3, 4\]/);
  });
});

describe("its estimated device time", () => {
  it("is compute-bound, with one divide per element; eight cores divide the compute by eight", () => {
    const restore = setOutput({ printf: () => undefined, warn: () => undefined });
    try {
      const x = randn([256, 1000], { seed: 3 });
      const one = profile(tcm, "softmax", [x], { runs: 1, traceRuns: 1, warmup: 0 });
      const eight = profile(multicore, "softmax", [x], { runs: 1, traceRuns: 1, warmup: 0 });
      expect(one.estimate.limitedBy).toBe("compute");
      expect(one.trace.cores[0].instructions!.divide).toBe(x.numel());
      // Each core's share, and the two integer divides of its row range (M * k / n, M * (k + 1) / n).
      expect(eight.trace.cores.map((c) => c.instructions!.divide)).toEqual(Array(8).fill(x.numel() / 8 + 2));
      expect(eight.estimate.limitedBy).toBe("compute");
      expect(one.estimate.cores[0].computeNs / eight.estimate.cores[0].computeNs).toBeCloseTo(8, 1);
    } finally {
      restore();
    }
  });
});
