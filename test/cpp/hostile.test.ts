// Hostile C++ kernels (issue 24): what a kernel's source chooses (its symbols, its stack sizes) never buys it
// gpsimd's trust or another tensor's memory.
// - A function whose symbol takes the device runtime's naming (__asm__("~lib/gpsimd/...")) was instrumented as
//   runtime code in sanitize mode and could forge the context block's output write log: now the build refuses the
//   name, and the kernel's functions are all checked as the kernel's (a plain-named forger is a SanitizerError).
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, BuildError, SanitizerError, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("hostile", name);
const loadForge = (sanitize: boolean, extra_cflags: string[] = []): Library => custom_op.load({
  name: "hostile_forge", compute_srcs: [file("forge.cpp")], shape_srcs: [file("forge-register.ts")], build_directory: TEST_BUILD_DIR, sanitize, extra_cflags,
});

afterAll(async () => {
  await shutdown();
});

describe("a C++ kernel that names a function as the device runtime's", () => {
  it("is refused at build time, naming the symbol (in sanitize mode it forged the output's write log)", () => {
    // The refusal does not depend on the mode (build-cpp.ts refuses before either mode's instrumentation); one build here.
    const e = thrown(() => loadForge(true, ["-DRUNTIME_LABEL"]));
    expect(e, String(e)).toBeInstanceOf(BuildError);
    expect((e as BuildError).message).toContain('the kernel defines function "~lib/gpsimd/tcm/evil_store32"');
    expect((e as BuildError).message).toContain("rename it");
  }, 120_000);

  it("in sanitize mode, every function of the kernel is checked as the kernel's: its store into the context block is refused", () => {
    const lib = loadForge(true);
    try {
      const e = thrown(() => ops.hostile_forge.forge(tensor(new Float32Array(4), [4])));
      expect(e, String(e)).toBeInstanceOf(SanitizerError);
      expect((e as SanitizerError).message).toContain("context block (the kernel library's bookkeeping), which the kernel may not write");
      expect((e as SanitizerError).details).toMatchObject({ access: "store", file: file("forge.cpp") });
    } finally {
      lib.unload();
    }
  }, 120_000);
});
