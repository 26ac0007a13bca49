// A C++ kernel's statics live once per library in device memory and keep their values across calls, whichever
// thread runs them, and across failing calls (after which the instance is rebuilt): lld's start function used to
// zero the zero-initialised ones at every instantiation, so a worker starting or an instance rebuilt reset them
// (build/cpp/static-image.ts). A static's address folded into a 64-bit constant is relocated like a 32-bit one.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, setOutput, KernelTrapError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/statics", name);
const restore = setOutput({ printf: () => undefined });
const lib = custom_op.load({ name: "cpp_statics", compute_srcs: [file("statics.cpp")], shape_srcs: [file("register.ts")], build_directory: TEST_BUILD_DIR });
afterAll(async () => {
  lib.unload();
  restore();
  await shutdown();
});

const x = tensor([1]);

describe("C++ statics", () => {
  it("count calls on the calling thread, on core threads and through failing calls; a table filled once stays filled", async () => {
    const seen: number[][] = [];
    seen.push(ops.cpp_statics.count(x, 0n).tolist() as number[]);                  // 1: calling thread
    seen.push((await ops.cpp_statics.count.async(x, 0n)).tolist() as number[]);     // 2: a core thread's instance
    expect(thrown(() => ops.cpp_statics.count(x, 1n))).toBeInstanceOf(KernelTrapError); // 3: counts, then traps
    await expect(ops.cpp_statics.count.async(x, 1n)).rejects.toBeInstanceOf(KernelTrapError); // 4
    seen.push(ops.cpp_statics.count(x, 0n).tolist() as number[]);                  // 5: a rebuilt instance
    seen.push((await ops.cpp_statics.count.async(x, 0n)).tolist() as number[]);     // 6: a rebuilt core thread's
    expect(seen).toEqual([[1, 126, 2], [2, 126, 2], [5, 126, 2], [6, 126, 2]]);
  });
});
