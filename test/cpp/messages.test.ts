// Messages in the kernel's own language: a C++ kernel's signature, dtype hints and accessor names are C++ (double eps,
// int64_t k, c10::BFloat16, accessor<float, N>()), not AssemblyScript (eps: f64, "integer, 2 bytes", "u16 bits");
// the cores of a multicore kernel failing alike are one message listing them; a --ref reference module that fails
// to load is a user error (exit 2) naming the file.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, kBFloat16, ArgumentError, DTypeMismatchError, TensorRangeError, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, expectGpsimdError, captureOutput } from "../helpers.js";
import { loadReference } from "../../dist/cli/reference.js";
import { CommandError, EXIT } from "../../dist/cli/options.js";

const file = (name: string) => fixturePath("cpp-messages", name);
const lib: Library = custom_op.load({
  name: "cpp_messages", compute_srcs: [file("messages.cpp")], shape_srcs: [file("shape.ts")], build_directory: TEST_BUILD_DIR, multicore: true,
});
afterAll(async () => { lib.unload(); await shutdown(); });

describe("C++ words in C++ kernels' messages", () => {
  it("a wrong argument names the kernel's C++ signature", () => {
    expect(ops.cpp_messages.scale_eps(tensor([1, 2]), 2, 1n).tolist()).toEqual([3, 5]);
    const e = expectGpsimdError(() => ops.cpp_messages.scale_eps(tensor([1, 2]), "2", 1n), ArgumentError, "E_ARG_KIND", [
      "(kernel scale_eps(torch::Tensor x, double eps, int64_t k))",
    ]);
    expect(e.message).not.toMatch(/f64|i64/);
    expectGpsimdError(() => ops.cpp_messages.scale_eps(tensor([1, 2])), ArgumentError, "E_ARG_COUNT", ["scale_eps(torch::Tensor x, double eps, int64_t k)"]);
  });

  it("a float accessor on a bfloat16 tensor names the C++ types, once for all eight cores", () => {
    const e = expectGpsimdError(() => ops.cpp_messages.float_of_bf16(tensor([1, 2], undefined, kBFloat16)), DTypeMismatchError, "E_DTYPE_MISMATCH", [
      "(cores 0-7, alike; the details are core 0's)", "accessor element type float does not match", "whose dtype is bfloat16",
      "write c10::BFloat16 (accessor<c10::BFloat16, N>(), tensor_to_tcm<c10::BFloat16>)", "messages.cpp:19",
    ]);
    expect(e.message).not.toMatch(/u16|integer, 2 bytes/);
    expect(e.message).not.toContain("also:");
    expect(e.details.failedCores).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("the same mistake at the same line on every core, with a different index on each, is one message with core 0's index", () => {
    const e = expectGpsimdError(() => ops.cpp_messages.past_the_end(tensor([1, 2, 3])), TensorRangeError, "E_TENSOR_RANGE", [
      "(cores 0-7, alike; the details are core 0's)", "TCM copy of 1 elements at offset 3 reaches outside", "messages.cpp:27",
    ]);
    expect(e.details).toMatchObject({ offset: 3, failedCores: [0, 1, 2, 3, 4, 5, 6, 7] });
    expect(e.message).not.toContain("also:");
  });
});

describe("C++ printf is the device's ring", () => {
  it("131,072 printf calls with a string argument print (the ring keeps the last lines), never filling the kernel heap", () => {
    const n = 131_072;
    const { result, printf } = captureOutput(() => ops.cpp_messages.print_many(tensor([1, 2]), n, 0));
    expect(result.tolist()).toEqual([1, 2]);
    const text = printf.join("");
    expect(text).toContain(`core 0: line ${n - 1} of print_many\n`);
    expect(text).not.toContain("core 0: line 0 of print_many\n"); // overwritten: the ring keeps the newest
  });

  it("a width of 3e8 prints what the ring can show, in no time", () => {
    const start = performance.now();
    const { printf } = captureOutput(() => ops.cpp_messages.print_many(tensor([1]), 0, 300_000_000));
    expect(performance.now() - start).toBeLessThan(5000);
    const text = printf.join("");
    expect(text).toMatch(/ {1000}7\|\n/);
    expect(text.length).toBeLessThan(300_000);
  });
});

describe("a reference module that fails to load", () => {
  it.each([["bad-reference.mjs", "no-such-module.mjs"], ["throwing-reference.ts", "the reference's own mistake"]])("%s is a user error naming the file (exit 2)", async (name, why) => {
    const e = await loadReference(file(name), "scale_eps").then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(CommandError);
    expect((e as CommandError).exitCode).toBe(EXIT.USAGE);
    expect((e as CommandError).message).toContain(`reference module ${file(name)} failed to load`);
    expect((e as CommandError).message).toContain(why);
  });
});
