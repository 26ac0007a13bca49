// Sanitize mode instruments every load and store of a C++ kernel too (the
// Binaryen pass runs on the merged module): a raw pointer into another tensor
// is reported as for AssemblyScript, naming the .cpp line.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, SanitizerError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/sanitize", name);
const lib = custom_op.load({ name: "cpp_sanitize", compute_srcs: [file("peek.cpp")], shape_srcs: [file("register.ts")], build_directory: TEST_BUILD_DIR, sanitize: true });
afterAll(async () => {
  lib.unload();
  await shutdown();
});

describe("C++ kernels under sanitize", () => {
  it("reading another tensor through a raw pointer fails with E_SANITIZE", () => {
    const x = tensor(Float32Array.from([1, -2, 3, -4]), [4]);
    const other = tensor(Float32Array.from([42, 43]), [2]);
    const e = thrown(() => ops.cpp_sanitize.peek(x, BigInt(other.address)));
    expect(e).toBeInstanceOf(SanitizerError);
    expect((e as SanitizerError).code).toBe("E_SANITIZE");
    expect((e as SanitizerError).details).toMatchObject({ access: "load", address: other.address, bytes: 4 });
  });

  it("a pointer inside the call's own input reads it", () => {
    const x = tensor(Float32Array.from([1, -2, 3, -4]), [4]);
    expect(ops.cpp_sanitize.peek(x, BigInt(x.address + 8)).tolist()).toEqual([3]);
  });
});
