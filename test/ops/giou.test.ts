// The shipped giou libraries (element-wise accessor, TCM, TCM multicore):
// hand-computed pairs, W1-style random boxes against the plain-TypeScript
// reference, and the variants equal to each other bit for bit.
import { describe, it, expect, afterAll } from "vitest";
import { ops, tensor, shutdown, type Tensor } from "gpsimd";
import { loadOp } from "../../ops/index.js";
import { floats, STRICT, bitDifference } from "../helpers.js";
import { giouOf as giou } from "../../ops/giou/reference.js";
import { w1Boxes, W1_BATCH, W1_BOXES } from "../../ops/giou/boxes.js";


/**
 * Tolerance against the float64 reference: 1e-5, relative to the scale of the two terms GIOU subtracts
 * (IoU and the enclosure ratio, both in [0, 1]), i.e. 1e-5 * max(1, |expected|). The kernels compute in
 * float32 (a few roundings of 2^-24 each on terms of size <= 1); relative to the result itself the error is
 * unbounded, because the subtraction can cancel to near 0.
 */
const TOLERANCE = 1e-5;
function giouDifference(got: Float32Array, want: Float32Array): string | null {
  if (got.length !== want.length) return `length ${got.length}, expected ${want.length}`;
  for (let i = 0; i < got.length; i++) {
    if (!(Math.abs(got[i] - want[i]) <= TOLERANCE * Math.max(1, Math.abs(want[i])))) return `pair ${i}: got ${got[i]}, expected ${want[i]}`;
  }
  return null;
}

const libraries = { giou_elementwise: loadOp("giou_elementwise", STRICT), giou_tcm: loadOp("giou_tcm", STRICT), giou_multicore: loadOp("giou_multicore", STRICT) };
afterAll(async () => {
  Object.values(libraries).forEach((lib) => lib.unload());
  await shutdown();
});
type Variant = keyof typeof libraries;
const variants = Object.keys(libraries) as Variant[];

/** [pred, target] tensors of n x b W1-style boxes. */
function boxes(seed: number, n: number, b: number): [Tensor, Tensor] {
  const [pred, target] = w1Boxes(seed, n, b);
  return [tensor(pred, [n, b, 4]), tensor(target, [n, b, 4])];
}

// [N, B]: a single pair; B not a multiple of 4; rows (N) below 8 and not divisible by 8;
// rows of more than 256 boxes (several TCM pieces per row); empty tensors.
const shapes = [[1, 1], [1, 3], [2, 5], [3, 7], [7, 4], [9, 13], [1, 300], [5, 513], [17, 256], [0, 4], [4, 0]];

describe("giou reference", () => {
  it("gives the hand-computed GIOU of identical, disjoint, overlapping, nested and touching boxes", () => {
    const pred = [[0, 0, 2, 2], [0, 0, 1, 1], [0, 0, 2, 2], [0, 0, 4, 4], [0, 0, 1, 1]];
    const target = [[0, 0, 2, 2], [2, 2, 3, 3], [1, 1, 3, 3], [1, 1, 3, 3], [1, 0, 2, 1]];
    // identical: 1; disjoint: inter 0, union 2, enclosure 9: 0 - 7/9; overlap: inter 1, union 7, enclosure 9:
    // 1/7 - 2/9 = -5/63; nested: inter 4, union 16, enclosure 16: 1/4; touching: inter 0, union 2, enclosure 2: 0.
    const expected = Float32Array.from([1, -7 / 9, -5 / 63, 1 / 4, 0]);
    expect(giou(Float32Array.from(pred.flat()), Float32Array.from(target.flat()), 1, 5)).toEqual(expected);
    for (const lib of variants) {
      const got = floats(ops[lib].giou(tensor(pred.flat(), [1, 5, 4]), tensor(target.flat(), [1, 5, 4])));
      expect(giouDifference(got, expected), lib).toBeNull();
    }
  });
});

describe.each(variants)("%s", (lib) => {
  it("agrees with the reference on W1-style boxes of every kind of size", () => {
    shapes.forEach(([n, b], k) => {
      const [pred, target] = boxes(500 + k, n, b);
      const y = ops[lib].giou(pred, target);
      expect(y.sizes()).toEqual([n, b]);
      expect(giouDifference(floats(y), giou(floats(pred), floats(target), n, b))).toBeNull();
    });
  });

  it("rejects boxes that are not [N, B, 4] or not the same sizes, naming the shapes", () => {
    const [pred] = boxes(1, 2, 3);
    expect(() => ops[lib].giou(pred, tensor(new Float32Array(24), [2, 4, 3]))).toThrow(/float32\[2, 3, 4\].*float32\[2, 4, 3\]/);
    expect(() => ops[lib].giou(tensor(new Float32Array(6), [2, 3]), pred)).toThrow(/\[N, B, 4\].*float32\[2, 3\]/);
  });
});

describe("W1 (1024 x 256 pairs)", () => {
  const [pred, target] = boxes(0, W1_BATCH, W1_BOXES);
  const tcm = floats(ops.giou_tcm.giou(pred, target));

  it("giou_tcm agrees with the reference", () => {
    expect(giouDifference(tcm, giou(floats(pred), floats(target), W1_BATCH, W1_BOXES))).toBeNull();
  });

  it("giou_multicore and giou_elementwise equal giou_tcm bitwise (same float32 operations in the same order)", () => {
    expect(bitDifference(floats(ops.giou_multicore.giou(pred, target)), tcm)).toBeNull();
    expect(bitDifference(floats(ops.giou_elementwise.giou(pred, target)), tcm)).toBeNull();
  });

  it("also across the odd shapes", () => {
    shapes.forEach(([n, b], k) => {
      const [p, t] = boxes(700 + k, n, b);
      const single = floats(ops.giou_tcm.giou(p, t));
      expect(bitDifference(floats(ops.giou_multicore.giou(p, t)), single)).toBeNull();
      expect(bitDifference(floats(ops.giou_elementwise.giou(p, t)), single)).toBeNull();
    });
  });
});
