// The output tensor is not initialised (as on the device): with checks on, a
// single-core kernel that leaves part of it unwritten fails, naming the ranges.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { custom_op, ops, randn, shutdown, UnwrittenOutputError, type Library } from "gpsimd";

const here = path.dirname(fileURLToPath(import.meta.url));
let lib: Library;

beforeAll(() => {
  const dir = path.join(here, "fixtures", "output");
  lib = custom_op.load({
    name: "output_fixtures", compute_srcs: [path.join(dir, "kernels.ts")], shape_srcs: [path.join(dir, "register.ts")],
    build_directory: path.join(here, "..", "build", "out"),
  });
});
afterAll(async () => { lib.unload(); await shutdown(); });

describe("output coverage (single core)", () => {
  it("passes when every element is written", () => {
    const x = randn([3000]);
    expect(ops.output_fixtures.copy_prefix(x, 3000).data()).toEqual(x.data());
  });

  it("names the elements a TCM kernel never wrote", () => {
    const e = catchError(() => ops.output_fixtures.copy_prefix(randn([3000]), 2500));
    expect(e).toBeInstanceOf(UnwrittenOutputError);
    expect(e.message).toBe("output_fixtures::copy_prefix: 500 output elements were never written: [2500, 3000) of float32[3000]; the output is not initialised (as on the device): the kernel must write every element of get_dst_tensor()");
  });

  it("names the gaps an element-wise kernel left", () => {
    const e = catchError(() => ops.output_fixtures.every_other(randn([6])));
    expect(e).toBeInstanceOf(UnwrittenOutputError);
    expect(e.message).toContain("3 output elements were never written: [1, 2), [3, 4), [5, 6)");
  });

  it("does not check with checks off", () => {
    lib.configure({ checks: false });
    try {
      expect(() => ops.output_fixtures.copy_prefix(randn([3000]), 2500)).not.toThrow();
    } finally {
      lib.configure({ checks: true });
    }
  });

  it("copies a tensor the kernel returned into the output, also when called asynchronously", async () => {
    const x = randn([5, 7]);
    const expected = Float32Array.from(x.data() as Float32Array, (v) => v + 1);
    expect(ops.output_fixtures.plus_one(x).data()).toEqual(expected);
    expect((await ops.output_fixtures.plus_one.async(x)).data()).toEqual(expected);
  });

  it("checks asynchronous calls the same way", async () => {
    const e = await ops.output_fixtures.copy_prefix.async(randn([3000]), 2500).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnwrittenOutputError);
  });
});

function catchError(fn: () => unknown): Error {
  try { fn(); } catch (e) { return e as Error; }
  throw new Error("expected an error");
}
