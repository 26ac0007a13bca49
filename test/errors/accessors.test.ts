// Element-wise accessor misuse in single-core kernels: every error names the
// operator, the core, the tensor and the offending index with what was
// allowed; the inputs stay unchanged and the library keeps working.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import {
  ops, tensor, zeros, kFloat,
  AccessorIndexError, AccessorRankError, ReadOnlyTensorError, DTypeMismatchError,
  type Library,
} from "gpsimd";
import { loadFixture, expectFailureKeepsInputs, expectNegateWorks, values } from "../helpers.js";

const LIB = "errors_accessors";
const at = (op: string) => `${LIB}::${op} (core 0)`;

describe("element-wise accessor errors", () => {
  let lib: Library;
  const x = tensor([[1, 2, 3], [4, 5, 6]]); // float32[2, 3]
  const T_IN = "argument 0 't_in' (float32[2, 3])";

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["accessors.ts", "good.ts"], shape: ["register-accessors.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[LIB].negate));

  it("reads in range through flat and 2-d accessors", () => {
    expect(values(ops[LIB].read_flat(x, 5))).toEqual([6]);
    expect(values(ops[LIB].read_2d(x, 1, 2))).toEqual([6]);
    expect(values(ops[LIB].write_2d(x, 0, 1))).toEqual([1, -1, 3, 4, 5, 6]);
  });

  it("flat index past the end or negative: names the index and the element count", () => {
    for (const index of [6, 1000, -1]) {
      const e = expectFailureKeepsInputs([x], () => ops[LIB].read_flat(x, index), AccessorIndexError, "E_ACCESSOR_INDEX", [
        at("read_flat"), `index ${index} is out of range for ${T_IN}`, "which has 6 elements", "expected 0 <= index < 6",
      ]);
      expect(e).toMatchObject({ op: `${LIB}::read_flat`, core: 0 });
      expect(e.details).toMatchObject({ index, numel: 6 });
    }
  });

  it("2-d index out of range: names the dimension and its size", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].read_2d(x, 1, 3), AccessorIndexError, "E_ACCESSOR_INDEX", [
      at("read_2d"), `index 3 in dimension 1 is out of range for ${T_IN}`, "size 3 in that dimension", "expected 0 <= index < 3",
    ]);
    expectFailureKeepsInputs([x], () => ops[LIB].read_2d(x, 2, 0), AccessorIndexError, "E_ACCESSOR_INDEX", [
      at("read_2d"), "index 2 in dimension 0", "size 2 in that dimension", "expected 0 <= index < 2",
    ]);
  });

  it("2-d write out of range into the output names the output", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].write_2d(x, 0, 7), AccessorIndexError, "E_ACCESSOR_INDEX", [
      at("write_2d"), "index 7 in dimension 1 is out of range for the output (float32[2, 3])", "expected 0 <= index < 3",
    ]);
  });

  it("size(d) of a dimension the tensor lacks", () => {
    expect(values(ops[LIB].size_of(x, -1))).toEqual([3]);
    expectFailureKeepsInputs([x], () => ops[LIB].size_of(x, 5), AccessorIndexError, "E_ACCESSOR_INDEX", [
      at("size_of"), `dimension 5 does not exist in ${T_IN}, which has 2 dimensions`,
    ]);
  });

  it("accessor2 on a 3-d tensor is the wrong rank", () => {
    const x3 = zeros([2, 3, 4], kFloat);
    expectFailureKeepsInputs([x3], () => ops[LIB].open_2d(x3), AccessorRankError, "E_ACCESSOR_RANK", [
      at("open_2d"), "accessor for 2 dimensions opened on argument 0 't_in' (float32[2, 3, 4]), which has 3 dimensions",
    ]);
  });

  it("a partial index kept while 1100 newer ones are made still reads its own row", () => {
    // Partial indexes into tensors below 2^25 elements carry their offset in the handle: nothing to go stale.
    // The kernel sums x[1][0] = 4 1100 times in float32 and adds x[0][0] = 1 through the kept acc[0].
    let sum = Math.fround(0);
    for (let k = 0; k < 1100; k++) sum = Math.fround(sum + 4);
    expect(values(ops[LIB].stale_row(x))).toEqual([Math.fround(1 + sum)]);
  });

  it("writing through an accessor of an input: inputs are read-only", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].write_input(x), ReadOnlyTensorError, "E_READ_ONLY", [
      at("write_input"), `write through an element-wise accessor into ${T_IN}, which is an operator input and read-only (at element 1)`,
      "get_dst_tensor()",
    ]);
    expect(e.details).toMatchObject({ index: 1 });
  });

  it("fill_(get_dst_tensor(), v) counts as writing the whole output", () => {
    expect(values(ops[LIB].fill_output(x, 2.5))).toEqual([2.5, 2.5, 2.5, 2.5, 2.5, 2.5]);
  });

  it("accessor<i32> on a float32 tensor", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].int_accessor(x), DTypeMismatchError, "E_DTYPE_MISMATCH", [
      at("int_accessor"), `accessor element type (integer, 4 bytes) does not match ${T_IN}, whose dtype is float32`,
    ]);
  });
});
