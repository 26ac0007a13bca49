// Nothing hangs, nothing untyped: the C++ source scanner is linear (blank and comment lines by the million), a
// C++ syntax error is the compiler's diagnostic at its line (not a registry error about a kernel it hid), a process
// started with flags a worker thread refuses (--expose-gc, --max-old-space-size) runs a multicore library, and a
// compute source that is a folder is an OptionError.
import { describe, it, expect, afterAll } from "vitest";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { custom_op, shutdown, BuildError, OptionError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, REPO, thrown } from "../helpers.js";
import { cppKernels } from "../../dist/build/cpp/kernel-decls.js";

const file = (name: string) => fixturePath("cpp-hangs", name);
afterAll(async () => { await shutdown(); });

const KERNEL = "torch::Tensor relu(const torch::Tensor& x) {\n  return x;\n}\n";

describe("the C++ kernel scan is linear in the source's length", () => {
  it.each([
    ["64 KB of blank lines", "\n".repeat(65536), 65537],            // took 25 s
    ["1 MB of comment lines", "// c\n".repeat(200_000), 200_001],    // took 76 s
    ["a block comment of 200,000 lines and string literals", `/*${"\n".repeat(200_000)}*/ const char* s = "torch::Tensor f() {";\n`, 200_002],
  ])("%s before a kernel", (_what, before, line) => {
    const start = performance.now();
    const { kernels } = cppKernels("/k.cpp", before + KERNEL);
    expect(performance.now() - start).toBeLessThan(2000);
    expect(kernels.map((k) => [k.name, k.line])).toEqual([["relu", line]]);
  });
});

describe("a C++ syntax error is the compiler's, at its line", () => {
  it("a helper missing its closing brace hides the kernel from the scan: the build reports clang's error, not an unknown kernel", () => {
    const e = thrown(() => custom_op.load({
      name: "cpp_hangs_syntax", compute_srcs: [file("syntax.cpp")], shape_srcs: [file("syntax-shape.ts")], build_directory: TEST_BUILD_DIR,
    }));
    expect(e).toBeInstanceOf(BuildError);
    expect((e as BuildError).message).toMatch(new RegExp(`${file("syntax.cpp").replace(/[.]/g, "\\.")}:7:\\d+: error: function definition is not allowed here`));
  });
});

describe("untyped errors", () => {
  it("a compute or shape source that is a folder is an OptionError naming it", () => {
    const e = thrown(() => custom_op.load({ name: "cpp_hangs_folder", compute_srcs: [fixturePath("cpp-hangs", "")], shape_srcs: [file("syntax-shape.ts")], build_directory: TEST_BUILD_DIR }));
    expect(e).toBeInstanceOf(OptionError);
    expect((e as OptionError).message).toContain("is a folder, not a file; list its files in compute_srcs");
  });

  it("a process started with --expose-gc --max-old-space-size=4096 runs a multicore library (core threads get only the flags workers accept)", () => {
    const out = execFileSync(process.execPath, [
      "--expose-gc", "--max-old-space-size=4096", file("flags-child.mjs"), path.join(REPO, "dist", "host", "index.js"), TEST_BUILD_DIR,
    ], { encoding: "utf8", timeout: 110_000 });
    const { gc, values } = JSON.parse(out) as { gc: string; values: number[] };
    expect(gc).toBe("function"); // the main thread kept its flags
    // core_ids over 8 elements on 8 cores: element i is written by core i as i * 1000 + 8 + i / 2.
    expect(values).toEqual(Array.from({ length: 8 }, (_, i) => i * 1000 + 8 + i / 2));
  });
});
