// What callers and shape functions do wrong, found before any kernel runs:
// broken shape functions, outputs or inputs beyond the device limits, and
// arguments of the wrong number, kind or state.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import {
  ops, tensor, zeros, kFloat,
  ShapeFunctionError, TensorShapeError, ArgumentError, RegistryError, type Library,
} from "gpsimd";
import { loadFixture, expectFailureKeepsInputs, expectGpsimdError, expectNegateWorks, values } from "../helpers.js";

const LIB = "errors_args";
const SIGNATURE = "scale(t_in: Tensor, x: f64, n: i64)";

describe("shape functions and arguments", () => {
  let lib: Library;
  const x = tensor([1, 2, 3]);

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["args.ts", "good.ts"], shape: ["register-args.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[LIB].negate));

  it("a correct call: out = t_in * x + n, with n a number or a bigint", () => {
    expect(values(ops[LIB].scale(x, 2, 1))).toEqual([3, 5, 7]);
    expect(values(ops[LIB].scale(x, 0.5, -4n))).toEqual([-3.5, -3, -2.5]);
  });

  describe("shape functions", () => {
    it("one that throws: ShapeFunctionError naming the operator, with the cause's message", () => {
      const e = expectFailureKeepsInputs([x], () => ops[LIB].scale_throwing_shape(x, 2, 1), ShapeFunctionError, "E_SHAPE_FN", [
        `shape function of ${LIB}::scale_throwing_shape failed: no output shape for 1 dimensions`,
      ]);
      expect(e.op).toBe(`${LIB}::scale_throwing_shape`);
      expect((e.cause as Error).message).toBe("no output shape for 1 dimensions");
    });

    it("one that returns something other than a tensor", () => {
      expectFailureKeepsInputs([x], () => ops[LIB].scale_sizes_shape(x, 2, 1), ShapeFunctionError, "E_SHAPE_FN_RESULT", [
        `shape function of ${LIB}::scale_sizes_shape returned object; it must return a tensor of the output's shape and dtype`,
      ]);
    });

    it("one that reads input data (meta tensors have none)", () => {
      expectFailureKeepsInputs([x], () => ops[LIB].scale_data_shape(x, 2, 1), ShapeFunctionError, "E_SHAPE_FN", [
        `shape function of ${LIB}::scale_data_shape failed`, "a shape function may only look at sizes and dtypes; this tensor has no data",
      ]);
    });

    it("one whose output exceeds the device limits: TensorShapeError", () => {
      const e = expectFailureKeepsInputs([x], () => ops[LIB].scale_oversized_shape(x, 2, 1), TensorShapeError, "E_DIM_TOO_LARGE", [
        `${LIB}::scale_oversized_shape: the output from the shape function float32[1, 1, 1, 1, 70000]: dimension 4 has size 70000`,
        "at most 8 dimensions of at most 65535, or at most 4 dimensions of at most 4294967295",
      ]);
      expect(e.op).toBe(`${LIB}::scale_oversized_shape`);
    });
  });

  describe("arguments", () => {
    it("too few or too many", () => {
      for (const args of [[x], [x, 1, 2, 3]]) {
        const e = expectFailureKeepsInputs([x], () => ops[LIB].scale(...args), ArgumentError, "E_ARG_COUNT", [
          `${LIB}::scale expects 3 arguments, ${SIGNATURE}, but got ${args.length}`,
        ]);
        expect(e.details).toMatchObject({ expected: 3, got: args.length });
      }
    });

    it("a number where a Tensor is expected", () => {
      expectGpsimdError(() => ops[LIB].scale(3, 2, 1), ArgumentError, "E_ARG_KIND", [
        `${LIB}::scale: argument 0 't_in' must be a Tensor, got number 3`, SIGNATURE,
      ]);
    });

    it("a string where a double is expected", () => {
      expectFailureKeepsInputs([x], () => ops[LIB].scale(x, "2", 1), ArgumentError, "E_ARG_KIND", [
        "argument 1 'x' must be a number, got string 2",
      ]);
    });

    it("a non-integer, or an integer beyond int64_t, for an i64 parameter", () => {
      expectFailureKeepsInputs([x], () => ops[LIB].scale(x, 2, 1.5), ArgumentError, "E_ARG_KIND", [
        `${LIB}::scale: argument 2 'n' must be an integer`, "for int64_t, got number 1.5",
      ]);
      expectFailureKeepsInputs([x], () => ops[LIB].scale(x, 2, 2n ** 64n + 5n), ArgumentError, "E_ARG_KIND", [
        "argument 2 'n' must be an integer in the int64_t range", `got bigint ${2n ** 64n + 5n}`,
      ]);
    });

    it("a disposed tensor", () => {
      const gone = tensor([1, 2]);
      gone.dispose();
      expectGpsimdError(() => ops[LIB].scale(gone, 2, 1), ArgumentError, "E_ARG_DISPOSED", [
        `${LIB}::scale: argument 0 't_in' (float32[2]) was disposed`,
      ]);
    });

    it("an input beyond the device limits: 70000 in a dimension of a 5-d tensor, or 9 dimensions", () => {
      const long = zeros([1, 1, 1, 1, 70000], kFloat);
      expectFailureKeepsInputs([long], () => ops[LIB].scale(long, 2, 1), TensorShapeError, "E_DIM_TOO_LARGE", [
        `${LIB}::scale: argument 0 't_in' float32[1, 1, 1, 1, 70000]: dimension 4 has size 70000`,
        "at most 8 dimensions of at most 65535, or at most 4 dimensions of at most 4294967295",
        "(a size of 70000 needs at most 4 dimensions; this tensor has 5)",
      ]);
      const deep = zeros([1, 1, 1, 1, 1, 1, 1, 1, 2], kFloat);
      expectFailureKeepsInputs([deep], () => ops[LIB].scale(deep, 2, 1), TensorShapeError, "E_TOO_MANY_DIMS", [
        `${LIB}::scale: argument 0 't_in' float32[1, 1, 1, 1, 1, 1, 1, 1, 2] has 9 dimensions`, "at most 8 dimensions of at most 65535, or at most 4",
      ]);
    });

    it("an operator or library that does not exist", () => {
      expectGpsimdError(() => ops[LIB].scale_twice, RegistryError, "E_UNKNOWN_OP", [
        `ops.${LIB}.scale_twice: library ${LIB} has no operator scale_twice; it has scale, `,
      ]);
      expectGpsimdError(() => ops.errors_nowhere, RegistryError, "E_UNKNOWN_LIBRARY", ["ops.errors_nowhere: no library errors_nowhere is loaded"]);
    });
  });
});
