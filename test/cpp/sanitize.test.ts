// Sanitize mode instruments every load and store of a C++ kernel too (the
// kernel alone, with its source map, before it is merged with the device
// runtime): a raw pointer into another tensor is reported as for
// AssemblyScript, naming the .cpp line of the load or store; and the other
// errors and traps of a sanitize build (accessor index, TCM range, streams,
// a division by zero) keep naming their .cpp lines, as in a normal build
// (test/cpp/twins.test.ts). The same bug in AssemblyScript gives the same
// SanitizerError, each naming its own source.
import { describe, it, expect, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { custom_op, ops, tensor, shutdown, SanitizerError, GpsimdError, KernelAbortError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown, STRICT, captureOutput } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/sanitize", name);
const twin = (name: string) => fixturePath("cpp/twins", name);
const lib = custom_op.load({ name: "cpp_sanitize", compute_srcs: [file("peek.cpp")], shape_srcs: [file("register.ts")], build_directory: TEST_BUILD_DIR, sanitize: true });
// The twins' bugs (test/cpp/twins.test.ts), built in sanitize mode.
const twinCpp = custom_op.load({
  name: "twin_cpp_sanitize", compute_srcs: [twin("bugs.cpp")], shape_srcs: [twin("shape.ts"), twin("register-cpp.ts")], build_directory: TEST_BUILD_DIR, ...STRICT, sanitize: true,
});
const twinAs = custom_op.load({
  name: "twin_as_sanitize", compute_srcs: [twin("bugs.ts")], shape_srcs: [twin("shape.ts"), twin("register-as.ts")], build_directory: TEST_BUILD_DIR, ...STRICT, sanitize: true,
});
afterAll(async () => {
  lib.unload();
  twinCpp.unload();
  twinAs.unload();
  await shutdown();
});

/** `text` as a regular expression that matches it literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Where `text` first occurs in `path` after the line that starts with `fn` (the function's first line): 1-based line
 * and column.
 */
function placeOf(path: string, fn: string, text: string): { line: number; column: number } {
  const lines = readFileSync(path, "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith(fn));
  const at = lines.findIndex((l, i) => i >= start && l.includes(text));
  expect(start >= 0 && at >= start, `${path}: ${fn} ... ${text}`).toBe(true);
  return { line: at + 1, column: lines[at].indexOf(text) + 1 };
}

describe("C++ kernels under sanitize", () => {
  const peekLoad = () => placeOf(file("peek.cpp"), "torch::Tensor peek(", "*(const float*)(uintptr_t)address");

  it("reading another tensor through a raw pointer fails with E_SANITIZE, naming the .cpp line and column of the load", () => {
    const x = tensor(Float32Array.from([1, -2, 3, -4]), [4]);
    const other = tensor(Float32Array.from([42, 43]), [2]);
    const e = thrown(() => ops.cpp_sanitize.peek(x, BigInt(other.address)));
    expect(e).toBeInstanceOf(SanitizerError);
    const err = e as SanitizerError;
    expect(err.code).toBe("E_SANITIZE");
    const { line, column } = peekLoad();
    expect(err.details).toMatchObject({ access: "load", address: other.address, bytes: 4, function: "peek", file: file("peek.cpp"), line, column });
    expect(err.message).toContain(`load of 4 bytes at 0x${other.address.toString(16)} is inside no tensor of this call (another tensor, another library's data or free device memory) at peek (${file("peek.cpp")}:${line}:${column}); this kernel may reach only`);
  });

  it("on the core threads (.async) too", async () => {
    const x = tensor(Float32Array.from([1, -2, 3, -4]), [4]);
    const other = tensor(Float32Array.from([42, 43]), [2]);
    const { line, column } = peekLoad();
    await expect(ops.cpp_sanitize.peek.async(x, BigInt(other.address))).rejects.toThrow(`at peek (${file("peek.cpp")}:${line}:${column})`);
  });

  it("a pointer inside the call's own input reads it", () => {
    const x = tensor(Float32Array.from([1, -2, 3, -4]), [4]);
    expect(ops.cpp_sanitize.peek(x, BigInt(x.address + 8)).tolist()).toEqual([3]);
  });
});

describe("every error of a C++ sanitize build names the kernel and the .cpp line, as in a normal build", () => {
  const input = () => tensor(Float32Array.from({ length: 12 }, (_, i) => i - 5), [12]);
  it.each([
    ["accessor_past_end", "E_ACCESSOR_INDEX", "out[i] = in[i]"],
    ["tcm_copy_past_block", "E_TCM_RANGE", "tensor_to_tcm<float>(buf, 0, 8)"],
    ["free_foreign", "E_TCM_FREE_FOREIGN", "tcm_free(buf + 4)"],
    ["stream_past_end", "E_STREAM_END", "out.write(in.read())"],
    ["incoherent", "E_INCOHERENT", "t_out.accessor<float, 1>()"],
    ["leak", "E_TCM_LEAK", "tcm_malloc(100)"], // the block left at return: the statement that allocated it
    ["guard_overrun", "E_SANITIZE", "buf[i] = 1.0f"], // sanitize stops the store past the block itself
    ["print_bad_string", "E_SANITIZE", "printf(\"name: %s\\n\""], // the runtime's read of the string, from the printf line
  ])("%s: %s", (op, code, statement) => {
    const e = thrown(() => (ops.twin_cpp as Record<string, (...a: unknown[]) => unknown>)[op](input()));
    expect(e, String(e)).toBeInstanceOf(GpsimdError);
    expect((e as GpsimdError).code).toBe(code);
    const { line } = placeOf(twin("bugs.cpp"), `torch::Tensor ${op}(`, statement);
    expect((e as Error).message).toMatch(new RegExp(` at ${op} \\(${literal(twin("bugs.cpp"))}:${line}:\\d+\\)(;|$)`));
  });

  it("a trap names the .cpp line and column where it happened (divide's a / b, inlined)", () => {
    const e = thrown(() => ops.twin_cpp.trap(tensor(new Float32Array(4), [4]), 0n));
    expect(e).toBeInstanceOf(GpsimdError);
    expect((e as GpsimdError).code).toBe("E_TRAP");
    const { line, column } = placeOf(twin("bugs.cpp"), "int64_t divide(", "/ b");
    expect((e as Error).message).toMatch(new RegExp(`divide by zero at trap \\(${literal(twin("bugs.cpp"))}:${line}:${column}\\)$`));
  });

  it("a store past a TCM block: the same SanitizerError as the AssemblyScript twin's, each naming its own line", () => {
    const cpp = thrown(() => ops.twin_cpp.guard_overrun(input())) as SanitizerError;
    const as = thrown(() => ops.twin_as.guard_overrun(input())) as SanitizerError;
    expect(cpp).toBeInstanceOf(SanitizerError);
    expect(as).toBeInstanceOf(SanitizerError);
    const cppAt = placeOf(twin("bugs.cpp"), "torch::Tensor guard_overrun(", "buf[i] = 1.0f");
    const asAt = placeOf(twin("bugs.ts"), "export function guard_overrun(", "store<f32>(buf + <usize>(i << 2), 1)");
    expect(cpp.details).toMatchObject({ function: "guard_overrun", file: twin("bugs.cpp"), line: cppAt.line });
    expect(as.details).toMatchObject({ function: "guard_overrun", file: twin("bugs.ts"), line: asAt.line });
    // Up to the place, the same message (but the library's name): the same store, block and bytes.
    const before = (err: SanitizerError, lib: string) => err.message.slice(0, err.message.indexOf(" at guard_overrun (")).replaceAll(lib, "LIB");
    expect(before(cpp, "twin_cpp")).toEqual(before(as, "twin_as"));
    expect(cpp.message).toContain(`the first past its end is byte 16 at guard_overrun (${twin("bugs.cpp")}:${cppAt.line}:`);
    expect(as.message).toContain(`the first past its end is byte 16 at guard_overrun (${twin("bugs.ts")}:${asAt.line}:`);
  });

  it("C's printf records its arguments through the runtime: the runtime's own memory is never the kernel's error", () => {
    const { printf } = captureOutput(() => ops.cpp_sanitize.c_printf(tensor([1]), 0n));
    expect(printf.join("")).toContain("c printf 42 ok 2.5\n");
  });

  it("printf with a conversion and no argument is a KernelAbortError at its line, not a store into the runtime's bookkeeping", () => {
    const e = thrown(() => ops.cpp_sanitize.c_printf(tensor([1]), 1n));
    expect(e).toBeInstanceOf(KernelAbortError);
    const { line } = placeOf(file("peek.cpp"), "torch::Tensor c_printf(", "printf(\"value %d\\n\")");
    expect((e as KernelAbortError).message).toContain("printf: the format has a conversion (%...) but no argument follows it");
    expect((e as KernelAbortError).message).toContain(`peek.cpp:${line}:`);
  });
});

