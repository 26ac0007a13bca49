// The shipped avgpool2d libraries (TCM, TCM multicore): a case computed by
// hand, random cases against the plain-TypeScript reference, and the
// multicore result equal to the single-core one bit for bit.
import { describe, it, expect, afterAll } from "vitest";
import { ops, rand, tensor, shutdown } from "gpsimd";
import { loadOp } from "../../ops/index.js";
import { floats, STRICT, bitDifference } from "../helpers.js";
import { avgpool2dOf as avgpool2d } from "../../ops/avgpool/reference.js";


/** The first element further than tolerance * |expected| from expected, described; null when all are close. */
function relativeDifference(got: Float32Array, want: Float32Array, tolerance: number): string | null {
  if (got.length !== want.length) return `length ${got.length}, expected ${want.length}`;
  for (let i = 0; i < got.length; i++) {
    if (!(Math.abs(got[i] - want[i]) <= tolerance * Math.abs(want[i]))) return `element ${i}: got ${got[i]}, expected ${want[i]} (tolerance ${tolerance} relative)`;
  }
  return null;
}

const tcm = loadOp("avgpool_tcm", STRICT);
const multicore = loadOp("avgpool_multicore", STRICT);
afterAll(async () => {
  tcm.unload();
  multicore.unload();
  await shutdown();
});

// [C, H, W, p]: p = 1; output rows (C * H/p) below 8 and not divisible by 8;
// rows wider than a 1024-float chunk; a window wider than a chunk (p > 1024); empty tensors.
const cases = [
  [1, 1, 1, 1], [2, 6, 6, 2], [3, 4, 6, 2], [2, 9, 9, 3], [5, 8, 12, 4], [1, 2, 2050, 2], [3, 6, 3000, 3],
  [7, 10, 10, 5], [13, 4, 8, 2], [1, 1025, 2050, 1025], [0, 4, 4, 2], [2, 0, 4, 2], [2, 4, 0, 2],
];

/** Kernel sums run in float32: p rows, then p columns, then one division. With positive inputs each stage's
 * relative error is at most (p - 1) * 2^-24, so (2p + 1) * 2^-24 bounds the total with room to spare. */
const tolerance = (p: number) => (2 * p + 1) * 2 ** -24;

describe.each(["avgpool_tcm", "avgpool_multicore"] as const)("%s", (lib) => {
  it("pools 2 x 6 x 6 arange with p = 2 to the hand-computed means", () => {
    const x = tensor(Float32Array.from({ length: 72 }, (_, i) => i), [2, 6, 6]);
    // Window (c, oy, ox) holds v, v + 1, v + 6, v + 7 with v = 36c + 12oy + 2ox: its mean is v + 3.5.
    expect(ops[lib].avgpool2d(x, 2).tolist()).toEqual([
      [[3.5, 5.5, 7.5], [15.5, 17.5, 19.5], [27.5, 29.5, 31.5]],
      [[39.5, 41.5, 43.5], [51.5, 53.5, 55.5], [63.5, 65.5, 67.5]],
    ]);
  });

  it("agrees with the reference on random inputs of every kind of size", () => {
    cases.forEach(([c, h, w, p], k) => {
      const x = rand([c, h, w], { seed: 40 + k });
      const y = ops[lib].avgpool2d(x, p);
      expect(y.sizes()).toEqual([c, h / p, w / p]);
      expect(relativeDifference(floats(y), avgpool2d(floats(x), c, h, w, p), tolerance(p))).toBeNull();
    });
  });

  it("rejects H or W not divisible by p, p < 1, and inputs that are not C x H x W, with the numbers in the message", () => {
    expect(() => ops[lib].avgpool2d(rand([2, 6, 6]), 4)).toThrow(/H=6 and W=6 .*p=4/);
    expect(() => ops[lib].avgpool2d(rand([2, 8, 6]), 4)).toThrow(/H=8 and W=6 .*p=4/);
    expect(() => ops[lib].avgpool2d(rand([2, 6, 6]), 0)).toThrow(/p=0/);
    expect(() => ops[lib].avgpool2d(rand([6, 6]), 2)).toThrow(/C x H x W.*float32\[6, 6\]/);
  });
});

describe("avgpool_multicore", () => {
  it("equals the single-core result bitwise (same sums in the same order)", () => {
    cases.forEach(([c, h, w, p], k) => {
      const x = rand([c, h, w], { seed: 70 + k });
      expect(bitDifference(floats(ops.avgpool_multicore.avgpool2d(x, p)), floats(ops.avgpool_tcm.avgpool2d(x, p)))).toBeNull();
    });
  });
});
