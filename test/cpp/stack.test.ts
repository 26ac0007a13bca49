// A C++ kernel's stack lives on its core's kernel heap; a kernel that needs
// more than it has (deep recursion, a large local array in a leaf function)
// stops with the trap an AssemblyScript kernel's overflow is (E_TRAP, "stack
// overflow"), giving the stack's size and naming the function and its .cpp
// line, instead of writing over the heap; the next call works.
// -DSTACK_SIZE raises the stack up to the device's 400 KB and the rest of it
// is heap: the stack never takes the heap's place.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, KernelTrapError, type Library } from "gpsimd";
import { readFileSync } from "node:fs";
import { fixturePath, TEST_BUILD_DIR, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/stack", name);
const load = (name: string, register: string, extra_cflags: string[]): Library => custom_op.load({
  name, compute_srcs: [file("stack.cpp")], shape_srcs: [file(register)], build_directory: TEST_BUILD_DIR, extra_cflags,
});
const small = load("cpp_stack", "register.ts", []); // the default stack, 64 KB
const big = load("cpp_stack_big", "register-big.ts", ["-DSTACK_SIZE=8388608"]); // an 8 MB heap, the stack capped at 400 KB
afterAll(async () => {
  small.unload();
  big.unload();
  await shutdown();
});

type Op = (t: unknown, n: bigint) => { tolist(): unknown };
const op = (lib: "cpp_stack" | "cpp_stack_big", name: string) => (ops[lib] as unknown as Record<string, Op>)[name];
const x = () => tensor(new Float32Array(4), [4]);
/** The line where C++ function `fn` starts in stack.cpp (1-based). */
const lineOf = (fn: string) => readFileSync(file("stack.cpp"), "utf8").split("\n").findIndex((l) => l.includes(` ${fn}(int64_t`)) + 1;
/** nest(levels), levels < 128: the sum of 1..levels (each level adds its own number, as a char). */
const nested = (levels: number) => (levels * (levels + 1)) / 2;

function expectOverflow(e: unknown, fn: string, kernel: string): void {
  // The same class, code and words as an AssemblyScript kernel's overflow (test/errors/traps.test.ts).
  expect(e, String(e)).toBeInstanceOf(KernelTrapError);
  const err = e as KernelTrapError;
  expect(err.code).toBe("E_TRAP");
  expect(err.message).toContain(`cpp_stack::${kernel} (core 0): trap: stack overflow: the C++ stack (65536 bytes) is full`);
  expect(err.message).toContain("-DSTACK_SIZE=<bytes>");
  expect(err.message).toMatch(new RegExp(` at \\w+ \\(/.*/stack\\.cpp:${lineOf(fn)}:\\d+\\)$`));
}

describe("a C++ stack overflow", () => {
  it("deep recursion: a named error naming the recursing function's line; the next call works", () => {
    expect(op("cpp_stack", "recurse")(x(), 10n).tolist()).toEqual(Array(4).fill(nested(10)));
    expectOverflow(thrown(() => op("cpp_stack", "recurse")(x(), 200n)), "nest", "recurse"); // 200 frames of 1 KB
    expect(op("cpp_stack", "recurse")(x(), 20n).tolist()).toEqual(Array(4).fill(nested(20)));
  });

  it("a leaf function's local array larger than the stack: the same error, naming its line", () => {
    expectOverflow(thrown(() => op("cpp_stack", "big_frame")(x(), 100n)), "leaf", "big_frame"); // a 200 KB frame
  });

  it("-DSTACK_SIZE raises the stack (the 200 KB frame fits) and leaves the heap to the kernel's tensors", () => {
    expect(op("cpp_stack_big", "big_frame")(x(), 100n).tolist()).toEqual([7, 7, 7, 7]);
    expect(op("cpp_stack_big", "recurse")(x(), 120n).tolist()).toEqual(Array(4).fill(nested(120))); // 120 KB: beyond the default 64 KB
    const n = 1_500_000; // 6 MB of floats in the 8 MB heap, beside the 400 KB stack
    expect(op("cpp_stack_big", "heap_tensor")(x(), BigInt(n)).tolist()).toEqual([n, n, n, n]);
  });
});
