// A C++ kernel that runs away is stopped too: its own loops are not polled yet
// (stop polls are inserted into AssemblyScript builds and the device runtime),
// so its synchronous calls run on the core threads, never on the calling
// thread, and the deadline ends them by replacing the thread. The next call works.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, KernelTimeoutError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/runaway", name);
const lib = custom_op.load({ name: "cpp_runaway", compute_srcs: [file("loop.cpp")], shape_srcs: [file("register.ts")], build_directory: TEST_BUILD_DIR, timeout_ms: 300 });
afterAll(async () => {
  lib.unload();
  await shutdown();
});

describe("a runaway C++ kernel", () => {
  it("a synchronous call ends with KernelTimeoutError and the next call works", () => {
    const x = tensor(Float32Array.from([1, -2, 3]), [3]);
    const start = performance.now();
    const e = thrown(() => ops.cpp_runaway.spin(x));
    expect(e, String(e)).toBeInstanceOf(KernelTimeoutError);
    expect(performance.now() - start).toBeLessThan(30_000); // bounded: the deadline, then the thread is replaced
    expect(ops.cpp_runaway.copy(x).tolist()).toEqual([1, -2, 3]);
  }, 60_000);

  it("an .async call too", async () => {
    const x = tensor(Float32Array.from([4, 5]), [2]);
    const e = await ops.cpp_runaway.spin.async(x).catch((err: unknown) => err);
    expect(e, String(e)).toBeInstanceOf(KernelTimeoutError);
    expect((await ops.cpp_runaway.copy.async(x)).tolist()).toEqual([4, 5]);
  }, 60_000);
});
