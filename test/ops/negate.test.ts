// The shipped tensor_negate libraries (element-wise accessor, stream, TCM)
// against the plain-TypeScript reference. Negation is exact: bitwise equal.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn } from "gpsimd";
import { loadOp } from "../../ops/index.js";
import { floats, STRICT, bitDifference } from "../helpers.js";
import { negate } from "../../ops/negate/reference.js";


const libraries = { negate_elementwise: loadOp("negate_elementwise", STRICT), negate_stream: loadOp("negate_stream", STRICT), negate_tcm: loadOp("negate_tcm", STRICT) };
afterAll(() => Object.values(libraries).forEach((lib) => lib.unload()));

// Odd sizes, stream-cache (1024 floats) and TCM-chunk edges, several ranks, and empty tensors.
const shapes = [[0], [1], [7], [1023], [1024], [1025], [2, 0, 3], [3, 5], [4, 3, 2, 171], [333, 301]];

describe.each(Object.keys(libraries) as (keyof typeof libraries)[])("%s", (lib) => {
  it("equals -x with the input's sizes, on every rank and size, empty included", () => {
    shapes.forEach((sizes, k) => {
      const x = randn(sizes, { seed: 20 + k });
      const y = ops[lib].tensor_negate(x);
      expect(y.sizes()).toEqual(sizes);
      expect(bitDifference(floats(y), negate(floats(x)))).toBeNull();
    });
  });
});
