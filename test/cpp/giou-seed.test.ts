// The GIOU blog's giou.cpp, byte for byte (test/fixtures/cpp/giou.cpp), as a multicore
// C++ library: its offsets make the cores overwrite each other's output and
// leave most of it unwritten, and it leaks its output TCM buffer.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, randn, shutdown, CrossCoreWriteError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, expectGpsimdError, captureOutput } from "../helpers.js";

const file = (name: string) => fixturePath("cpp", name);
const lib = custom_op.load({ name: "giou_seed_cpp", compute_srcs: [file("giou.cpp")], shape_srcs: [file("giou-shape.ts")], build_directory: TEST_BUILD_DIR, multicore: true });
afterAll(async () => {
  lib.unload();
  await shutdown();
});

describe("the seed's giou.cpp on 8 cores", () => {
  it("cores overwrite each other's rows, most of the output is unwritten, and the output buffer leaks", () => {
    // 16 x 8 boxes: partition = 2 entries per core, but core c starts at element 2c (not 2c x 8 boxes) and copies 32 floats.
    const pred = randn([16, 8, 4], { seed: 1 }), target = randn([16, 8, 4], { seed: 2 });
    const { warnings } = captureOutput(() => {
      expectGpsimdError(() => ops.my_ops.giou(pred, target), CrossCoreWriteError, "E_CROSS_CORE_OVERLAP", [
        "cores 0 and 1 both wrote output elements [2, 16) of float32[16, 8]",
        "98 output elements were written by no core: [30, 128)",
      ]);
    });
    expect(warnings.join("\n")).toMatch(/1 TCM block \(128 bytes\) still allocated when the kernel returned/);
  });
});
