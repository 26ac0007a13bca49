// Kernels that trap, abort, overflow the stack or run out of kernel memory:
// typed errors with the kernel function, the source file and the line; the
// instance is rebuilt afterwards, so the library keeps working.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import { readFileSync } from "node:fs";
import {
  ops, tensor, zeros, kFloat,
  KernelTrapError, KernelAbortError, KernelHeapError, KernelShapeError, ShapeFunctionError, type Library,
} from "gpsimd";
import { loadFixture, fixturePath, expectFailureKeepsInputs, expectNegateWorks, values } from "../helpers.js";

const LIB = "errors_traps";
const at = (op: string) => `${LIB}::${op} (core 0)`;
const SOURCE = fixturePath("errors", "traps.ts");

/** Line (1-based) of the fixture marked `// @marker`. */
function lineOf(marker: string): number {
  const index = readFileSync(SOURCE, "utf8").split("\n").findIndex((l) => l.includes(`// @${marker}`));
  if (index < 0) throw new Error(`no // @${marker} in ${SOURCE}`);
  return index + 1;
}

describe("traps and aborts", () => {
  let lib: Library;
  const x = tensor([1, 2, 3, 4, 5]);
  const empty = zeros([0], kFloat);

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["traps.ts", "good.ts"], shape: ["register-traps.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[LIB].negate));

  it("the kernels succeed where they do not fail", () => {
    expect(values(ops[LIB].trap_unreachable(empty))).toEqual([]);
    expect(values(ops[LIB].divide(x, 7))).toEqual([14]);
    expect(values(ops[LIB].assert_empty(empty))).toEqual([]);
    expect(values(ops[LIB].throw_error(empty))).toEqual([]);
  });

  it("unreachable(): a KernelTrapError with the kernel function, file and line", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].trap_unreachable(x), KernelTrapError, "E_TRAP", [
      at("trap_unreachable"), "trap: unreachable", ` at trap_unreachable (${SOURCE}:${lineOf("unreachable")}:`,
    ]);
    expect(e.details).toMatchObject({ file: SOURCE, line: lineOf("unreachable") });
  });

  it("integer division by zero: a KernelTrapError at the division", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].divide(x, 0), KernelTrapError, "E_TRAP", [
      at("divide"), "trap: divide by zero", ` at divide (${SOURCE}:${lineOf("divide")}:`,
    ]);
  });

  it("the instance is rebuilt after a trap: the same kernel runs again", () => {
    expect(() => ops[LIB].divide(x, 0)).toThrow(KernelTrapError);
    expect(values(ops[LIB].divide(x, -3))).toEqual([Math.trunc(100 / -3)]);
  });

  it("assert(false, msg): a KernelAbortError with the message, file and line", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].assert_empty(x), KernelAbortError, "E_ABORT", [
      at("assert_empty"), "abort: t_in must be empty", `traps.ts:${lineOf("assert")}:`,
    ]);
    expect(e.details).toMatchObject({ message: "t_in must be empty", line: lineOf("assert") });
  });

  it("throw new Error(msg): a KernelAbortError with the message, file and line", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].throw_error(x), KernelAbortError, "E_ABORT", [
      at("throw_error"), "abort: refusing a non-empty tensor", `traps.ts:${lineOf("throw")}:`,
    ]);
  });

  it("unbounded recursion: a KernelTrapError that says stack overflow and names the function", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].recurse(x, 0), KernelTrapError, "E_TRAP", [
      at("recurse"), "stack overflow", "at recurse",
    ]);
  });

  it("an array larger than the kernel heap: a KernelHeapError with the bytes asked and free", () => {
    expect(values(ops[LIB].allocate(x, 1000))).toEqual([1000]);
    const floats = 8 << 20; // 32 MB, the default heap is 4 MB
    const e = expectFailureKeepsInputs([x], () => ops[LIB].allocate(x, floats), KernelHeapError, "E_HEAP_EXHAUSTED", [
      at("allocate"), "the kernel heap is full", "-DSTACK_SIZE=",
    ]);
    const { asked, free, size } = e.details as { asked: number; free: number; size: number };
    expect(asked).toBeGreaterThanOrEqual(floats * 4);
    expect(free).toBeLessThan(asked);
    expect(size).toBeLessThanOrEqual(4 << 20);
    expect(e.message).toContain(`${asked} bytes asked, ${free} bytes free`);
  });

  it("a tensor made inside the kernel beyond the device limits: a KernelShapeError", () => {
    expect(values(ops[LIB].make_tensor(x, 12))).toEqual([12]);
    expectFailureKeepsInputs([x], () => ops[LIB].make_tensor(x, 70000), KernelShapeError, "E_SHAPE", [
      at("make_tensor"), "a tensor the kernel made: dimension 4 has size 70000; a tensor has at most 8 dimensions of sizes in [0, 65535], or at most 4 dimensions of sizes in [0, 4294967295]",
    ]);
  });

  it("a tensor made inside the kernel within the 4-dimension rule: 1-d beyond 65535 elements; too large for the kernel heap", () => {
    expect(values(ops[LIB].make_long(x, 1_000_003))).toEqual([1_000_003]);
    expectFailureKeepsInputs([x], () => ops[LIB].make_long(x, 4294967295), KernelHeapError, "E_HEAP_EXHAUSTED", [
      at("make_long"), "the kernel heap is full: 4294967295 bytes asked",
    ]);
  });

  it("a returned tensor that disagrees with the shape function", () => {
    expect(values(ops[LIB].return_made(x, 5))).toEqual([0, 0, 0, 0, 0]);
    expectFailureKeepsInputs([x], () => ops[LIB].return_made(x, 3), ShapeFunctionError, "E_RETURN_MISMATCH", [
      `${LIB}::return_made`, "the kernel returned float32 with 3 elements, but the shape function declared float32[5]",
    ]);
  });
});
