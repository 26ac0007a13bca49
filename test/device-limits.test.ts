// The device's limits on tensors passed to or returned from an operator
// (Neuron SDK 2.18 and later): at most 8 dimensions of at most 65535, or at
// most 4 dimensions of at most 4294967295. Each side of each limit.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, DEVICE_SHAPE_LIMITS, TensorShapeError } from "gpsimd";
import { checkShapeLimits } from "../dist/host/device/tensor.js";
import { loadOp } from "../ops/index.js";
import { floats, STRICT, bitDifference, expectGpsimdError } from "./helpers.js";
import { negate } from "../ops/negate/reference.js";

const BOTH_RULES = "tensors passed to or returned from an operator have at most 8 dimensions of at most 65535, or at most 4 dimensions of at most 4294967295 (Neuron SDK 2.18 and later)";
const fits = (sizes: number[]) => () => checkShapeLimits(sizes, "t");

describe("checkShapeLimits", () => {
  it("states the two documented rules", () => {
    expect(DEVICE_SHAPE_LIMITS).toEqual([{ maxDims: 8, maxSize: 65535 }, { maxDims: 4, maxSize: 4294967295 }]);
  });

  it("8 dimensions of 65535 fit; a 9th dimension does not, even of size 1", () => {
    expect(fits(Array(8).fill(65535))).not.toThrow();
    const e = expectGpsimdError(fits(Array(9).fill(1)), TensorShapeError, "E_TOO_MANY_DIMS", [`t has 9 dimensions; ${BOTH_RULES}`]);
    expect(e.details).toEqual({ sizes: Array(9).fill(1) });
  });

  it("beyond 4 dimensions a size may be 65535, not 65536", () => {
    expect(fits([2, 3, 4, 5, 65535])).not.toThrow();
    const e = expectGpsimdError(fits([2, 3, 4, 5, 65536]), TensorShapeError, "E_DIM_TOO_LARGE", [
      `t: dimension 4 has size 65536; ${BOTH_RULES} (a size of 65536 needs at most 4 dimensions; this tensor has 5)`,
    ]);
    expect(e.details).toEqual({ sizes: [2, 3, 4, 5, 65536], dim: 4 });
  });

  it("in at most 4 dimensions a size may be 4294967295, not 4294967296", () => {
    expect(fits([4294967295, 1, 1, 1])).not.toThrow();
    expect(fits([65536, 65536, 65536, 65536])).not.toThrow();
    expect(fits([1_000_003])).not.toThrow();
    expect(fits([])).not.toThrow();
    expectGpsimdError(fits([1, 4294967296, 1, 1]), TensorShapeError, "E_DIM_TOO_LARGE", [`t: dimension 1 has size 4294967296; ${BOTH_RULES}`]);
    expectGpsimdError(fits([4294967296]), TensorShapeError, "E_DIM_TOO_LARGE", ["dimension 0 has size 4294967296"]);
  });
});

describe("a 1-d tensor of 1,000,003 elements (beyond 65535, within the 4-dimension rule)", () => {
  const lib = loadOp("negate_tcm", STRICT);
  afterAll(() => lib.unload());

  it("runs through an operator end to end", () => {
    const x = randn([1_000_003], { seed: 3 });
    const y = ops.negate_tcm.tensor_negate(x);
    expect(y.sizes()).toEqual([1_000_003]);
    expect(bitDifference(floats(y), negate(floats(x)))).toBeNull();
  });
});
