// Nothing hangs, nothing untyped: C++ shape code (a shape function called sync or .async, `new` in an endless loop,
// a NEURON_LIBRARY body) is stopped at the library's timeout_ms with a ShapeFunctionError naming its line, and a trap
// in it names its line too; the C++ source scanner is linear (blank and comment lines by the million), a
// C++ syntax error is the compiler's diagnostic at its line (not a registry error about a kernel it hid), a process
// started with flags a worker thread refuses (--expose-gc, --max-old-space-size) runs a multicore library, and a
// compute source that is a folder is an OptionError.
import { describe, it, expect, afterAll } from "vitest";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { custom_op, ops, tensor, shutdown, BuildError, OptionError, ShapeFunctionError, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, REPO, thrown, expectGpsimdError } from "../helpers.js";
import { cppKernels } from "../../dist/build/cpp/kernel-decls.js";

const file = (name: string) => fixturePath("cpp-hangs", name);
const relu = path.join(REPO, "ops", "relu", "tcm.ts");
// AssemblyScript kernels with C++ shape sources: only the shape module needs clang.
const spin: Library = custom_op.load({ name: "cpp_hangs_spin", compute_srcs: [relu], shape_srcs: [file("spin-shape.cpp")], build_directory: TEST_BUILD_DIR, timeout_ms: 400 });
afterAll(async () => { spin.unload(); await shutdown(); });

describe("C++ shape code runs under the watchdog", () => {
  const stoppedAt = (line: number) => [`ran past timeout_ms (400 ms) and was stopped at`, `spin-shape.cpp:${line}:`];

  it("an endless loop in a shape function, called synchronously, is a ShapeFunctionError at its line; the next call works", () => {
    const start = performance.now();
    const e = expectGpsimdError(() => ops.cpp_hangs_spin.spin(tensor([1])), ShapeFunctionError, "E_SHAPE_FN_TIMEOUT", ["cpp_hangs_spin::spin", ...stoppedAt(7)]);
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(e.details).toMatchObject({ line: 7, timeout_ms: 400 });
    expect(ops.cpp_hangs_spin.quick(tensor([-1, 2, -3, 4])).tolist()).toEqual([0, 2, 0, 4]);
  });

  it("and called with .async", async () => {
    const e = await ops.cpp_hangs_spin.spin.async(tensor([1])).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(ShapeFunctionError);
    expect((e as ShapeFunctionError).message).toContain(stoppedAt(7)[1]);
  });

  it("`new` in an endless loop is stopped at its line (not a heap grown until the process dies)", () => {
    // The stop lands in the loop (line 13) or on the store into `newest` the loop repeats, which the
    // optimised code attributes to its declaration (line 12): which one depends on when the watchdog fires.
    expectGpsimdError(() => ops.cpp_hangs_spin.grow(tensor([1])), ShapeFunctionError, "E_SHAPE_FN_TIMEOUT", [stoppedAt(13)[0], /spin-shape\.cpp:1[23]:/]);
  });

  it("a trap in a shape function is a ShapeFunctionError at its line", () => {
    expectGpsimdError(() => ops.cpp_hangs_spin.trap(tensor([1])), ShapeFunctionError, "E_SHAPE_FN_TRAP", ["trapped: unreachable", "spin-shape.cpp:24:"]);
  });

  it("an endless loop in the NEURON_LIBRARY body stops the load at its line", () => {
    const e = thrown(() => custom_op.load({ name: "cpp_hangs_body", compute_srcs: [relu], shape_srcs: [file("body-shape.cpp")], build_directory: TEST_BUILD_DIR, timeout_ms: 400 }));
    expect(e).toBeInstanceOf(ShapeFunctionError);
    expect((e as ShapeFunctionError).code).toBe("E_SHAPE_FN_TIMEOUT");
    expect((e as ShapeFunctionError).message).toContain("the NEURON_LIBRARY(cpp_hangs_body, m) body ran past timeout_ms (400 ms)");
    expect((e as ShapeFunctionError).message).toContain("body-shape.cpp:10:");
  });
});

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
