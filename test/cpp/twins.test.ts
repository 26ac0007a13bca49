// One implementation of the device API: the same bugs written in C++ and in
// AssemblyScript (test/fixtures/cpp/twins/bugs.cpp and bugs.ts) give the same error
// class, code and message; C++ kernels compute right (scalars, 2-d accessors,
// printf) and their traps name the .cpp line.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, GpsimdError, KernelTrapError, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown, captureOutput, floats, STRICT } from "../helpers.js";

const twin = (file: string) => fixturePath("cpp/twins", file);
const load = (name: string, compute: string, register: string): Library => custom_op.load({
  name, compute_srcs: [twin(compute)], shape_srcs: [twin("shape.ts"), twin(register)], build_directory: TEST_BUILD_DIR, ...STRICT,
});
const cpp = load("twin_cpp", "bugs.cpp", "register-cpp.ts");
const as = load("twin_as", "bugs.ts", "register-as.ts");
afterAll(async () => {
  cpp.unload();
  as.unload();
  await shutdown();
});

/** The error an operator throws, its library's name taken out of the message. */
function failure(lib: "twin_cpp" | "twin_as", op: string, ...args: unknown[]): { name: string; code: string; message: string } {
  const e = thrown(() => (ops[lib] as Record<string, (...a: unknown[]) => unknown>)[op](...args));
  expect(e, String(e)).toBeInstanceOf(GpsimdError);
  const err = e as GpsimdError;
  return { name: err.constructor.name, code: err.code, message: err.message.replaceAll(lib, "LIB") };
}

describe("the same bug in C++ and in AssemblyScript", () => {
  const input = () => tensor(Float32Array.from({ length: 12 }, (_, i) => i - 5), [12]);
  it.each([
    ["accessor_past_end", "E_ACCESSOR_INDEX"],
    ["tcm_copy_past_block", "E_TCM_RANGE"],
    ["free_foreign", "E_TCM_FREE_FOREIGN"],
    ["leak", "E_TCM_LEAK"],
    ["stream_past_end", "E_STREAM_END"],
    ["guard_overrun", "E_TCM_GUARD"],
  ])("%s: the same error, code and message", (op, code) => {
    const fromCpp = failure("twin_cpp", op, input());
    const fromAs = failure("twin_as", op, input());
    expect(fromCpp.code).toBe(code);
    expect(fromCpp).toEqual(fromAs);
  });
});

describe("C++ kernels", () => {
  it("take double and int64_t parameters, index 2-d accessors acc[i][j] and print with printf", () => {
    const x = tensor(Float32Array.from({ length: 6 }, (_, i) => i * 0.5), [2, 3]);
    const { result, printf } = captureOutput(() => ops.twin_cpp.scale(x, 3, 2n));
    expect(Array.from(floats(result as never))).toEqual(Array.from(floats(x), (v) => Math.fround(v * 3) + 2));
    expect(printf.join("")).toContain("scaled 2 x 3 by 3.00\n");
  });

  it("a trap names the .cpp line and column where it happened (inside an inlined function: divide's a / b)", () => {
    const e = thrown(() => ops.twin_cpp.trap(tensor(new Float32Array(4), [4]), 0n));
    expect(e).toBeInstanceOf(KernelTrapError);
    expect((e as Error).message).toMatch(/divide by zero/);
    expect((e as Error).message).toMatch(/\(\/.*\/twins\/bugs\.cpp:56:49\)$/);
  });
});
