// C++ shape sources (shape.cpp with NEURON_LIBRARY) run on the host with meta
// tensors exactly like TypeScript ones: the same outputs for relu and giou,
// scalars passed as given, reading data is the same typed error, and
// registration mistakes are the same RegistryError.
import { describe, it, expect, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  custom_op, ops, randn, tensor, zeros, kInt, kFloat, shutdown, Tensor,
  ShapeFunctionError, RegistryError, BuildError, type Library,
} from "gpsimd";
import { fixturePath, expectGpsimdError, TEST_BUILD_DIR, FIXTURES_DIR, values } from "../helpers.js";
import { withShapeContext } from "../../dist/host/device/shape-context.js";
import { relu_forward_shape } from "../../ops/relu/shape.js";
import { giou_shape } from "../../ops/giou/shape.js";
import { giouOf as giou } from "../../ops/giou/reference.js";

const opsDir = path.join(FIXTURES_DIR, "..", "..", "ops");
const loaded: Library[] = [];
afterAll(async () => { loaded.forEach((l) => l.unload()); await shutdown(); });

/** Loads AssemblyScript kernels of ops/ with C++ shape sources of test/fixtures/cpp-shape. */
function load(name: string, compute: string[], shape: string[], multicore = false): Library {
  const lib = custom_op.load({
    name, build_directory: TEST_BUILD_DIR, multicore,
    compute_srcs: compute.map((c) => path.join(opsDir, c)), shape_srcs: shape.map((s) => fixturePath("cpp-shape", s)),
  });
  loaded.push(lib);
  return lib;
}

/** What the shape function registered for lib's operator op says, called as the library calls it (meta tensors). */
function shapeOf(lib: Library, op: string, ...args: unknown[]): string {
  return withShapeContext(() => lib.ops.get(op)!.definition.shape(...args.map(meta)).describe());
}
/** What a TypeScript shape function says. */
function shapeOfTs(fn: (...args: never[]) => Tensor, ...args: Tensor[]): string {
  return withShapeContext(() => fn(...(args.map(meta) as never[])).describe());
}
function meta(a: unknown): unknown { return a instanceof Tensor ? new Tensor(a.sizes(), a.dtype, true) : a; }

describe("C++ shape functions", () => {
  it("relu: the same output as the TypeScript shape function, and the kernel runs on it", () => {
    const lib = load("cpp_shape_relu", ["relu/tcm.ts"], ["relu-shape.cpp"]);
    for (const sizes of [[1], [7], [3, 5], [2, 3, 4], [1, 1, 1, 1, 1, 1, 1, 9]]) {
      const x = randn(sizes, { seed: sizes.length });
      expect(shapeOf(lib, "relu_forward", x)).toBe(shapeOfTs(relu_forward_shape, x));
      expect(values(ops.cpp_shape_relu.relu_forward(x))).toEqual(values(x).map((v) => Math.max(v, 0)));
    }
  });

  it("giou: the blog's shape.cpp gives the TypeScript shape function's output, and the kernel's result is the reference's", () => {
    const lib = load("cpp_shape_giou", ["giou/multicore.ts"], ["giou-shape.cpp"], true);
    const n = 9, b = 5;
    const boxes = (seed: number) => Float32Array.from({ length: n * b * 4 }, (_, i) => (i % 4 < 2 ? 0 : 4) + ((i * seed) % 11) / 3);
    const pred = tensor(boxes(3), [n, b, 4]), target = tensor(boxes(7), [n, b, 4]);
    expect(shapeOf(lib, "giou", pred, target)).toBe(shapeOfTs(giou_shape, pred, target));
    const got = ops.cpp_shape_giou.giou(pred, target);
    expect(got.sizes()).toEqual([n, b]);
    const want = giou(boxes(3), boxes(7), n, b);
    values(got).forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want[i]))));
  });

  let scalarsLib: Library | null = null;
  const scalars = () => (scalarsLib ??= load("cpp_shape_scalars", ["../test/fixtures/errors/args.ts"], ["scalars-shape.cpp"]));

  it("double and int64_t parameters arrive as given, and the tensor's dim and dtype are read", () => {
    const lib = scalars();
    const x = zeros([2, 3], kInt);
    // full({int64_t(x * 2), n, t_in.dim()}, x, t_in.scalar_type())
    expect(shapeOf(lib, "scale", x, 2.5, 7n)).toBe("int32[5, 7, 2]");
    expect(shapeOf(lib, "scale", x, 0.5, 3)).toBe("int32[1, 3, 2]");
    expect(shapeOf(lib, "scale", randn([4]), 1.99, 2 ** 40)).toMatch(/^float32\[3, 1099511627776, 1\]/);
    expect(shapeOf(lib, "scale_filled", x, 2.5, 1)).toBe("float32[2, 3]");
    // The dtypes C++ gives (t_in.scalar_type(), torch::kFloat) come back as the host's dtype objects.
    const dtypeOf = (op: string) => withShapeContext(() => lib.ops.get(op)!.definition.shape(meta(x), 2.5, 1)).dtype;
    expect(dtypeOf("scale")).toBe(kInt);
    expect(dtypeOf("scale_filled")).toBe(kFloat);
  });

  it("reading input data is the typed error TypeScript shape functions give, naming the operator", () => {
    scalars();
    const x = tensor([1, 2, 3]);
    const e = expectGpsimdError(() => ops.cpp_shape_scalars.scale_data_shape(x, 2, 1), ShapeFunctionError, "E_SHAPE_FN", [
      "shape function of cpp_shape_scalars::scale_data_shape failed", "a shape function may only look at sizes and dtypes; this tensor has no data",
    ]);
    expect((e.cause as ShapeFunctionError).code).toBe("E_SHAPE_FN_DATA");
    expect(values(x)).toEqual([1, 2, 3]);
  });
});

describe("NEURON_LIBRARY in C++", () => {
  it("m.def with a kernel the sources do not export: the same RegistryError as TypeScript", () => {
    const where = (name: string) => `lib${name} (${path.join(TEST_BUILD_DIR, `lib${name}.wasm`)})`;
    const fromTs = expectGpsimdError(() => custom_op.load({
      name: "errors_unknown_kernel", build_directory: TEST_BUILD_DIR, compute_srcs: [fixturePath("errors", "good.ts")],
      shape_srcs: [fixturePath("errors", "register-unknown-kernel.ts"), fixturePath("errors", "shape.ts")],
    }), RegistryError, "E_UNKNOWN_KERNEL");
    const fromCpp = expectGpsimdError(() => custom_op.load({
      name: "errors_unknown_kernel_cpp", build_directory: TEST_BUILD_DIR, compute_srcs: [fixturePath("errors", "good.ts")],
      shape_srcs: [fixturePath("cpp-shape", "unknown-kernel.cpp")],
    }), RegistryError, "E_UNKNOWN_KERNEL", ['errors_unknown_kernel::negate_twice: no exported kernel function named "negate_twice"']);
    expect(fromCpp.message.replace(where("errors_unknown_kernel_cpp"), "")).toBe(fromTs.message.replace(where("errors_unknown_kernel"), ""));
    expect(() => ops.errors_unknown_kernel).toThrow(RegistryError);
  });

  it("shape sources without NEURON_LIBRARY: the same RegistryError as TypeScript", () => {
    const name = "cpp_shape_no_library";
    expectGpsimdError(() => custom_op.load({
      name, build_directory: TEST_BUILD_DIR, compute_srcs: [fixturePath("errors", "good.ts")], shape_srcs: [fixturePath("cpp-shape", "no-library.cpp")],
    }), RegistryError, "E_NO_LIBRARY_DECLARED", [`lib${name} (${path.join(TEST_BUILD_DIR, `lib${name}.wasm`)}): the shape sources never call NEURON_LIBRARY`]);
  });

  it("a shape source that does not compile: BuildError with clang's file:line:column and message", () => {
    const file = fixturePath("cpp-shape", "broken.cpp");
    const line = readFileSync(file, "utf8").split("\n").findIndex((l) => l.includes("@compile-error")) + 1;
    expectGpsimdError(() => custom_op.load({
      name: "cpp_shape_broken", build_directory: TEST_BUILD_DIR, compute_srcs: [fixturePath("errors", "good.ts")], shape_srcs: [file],
    }), BuildError, "E_BUILD", [new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:${line}:\\d+: error: expected ';'`)]);
  });

  it("loads again from the library file alone (load_library), with its shape functions", () => {
    const lib = loaded.find((l) => l.namespace === "cpp_shape_relu")!;
    lib.unload();
    loaded.splice(loaded.indexOf(lib), 1);
    const again = custom_op.load_library(lib.path);
    loaded.push(again);
    const x = randn([4, 4], { seed: 1 });
    expect(shapeOf(again, "relu_forward", x)).toBe("float32[4, 4]");
    expect(values(ops.cpp_shape_relu.relu_forward(x))).toEqual(values(x).map((v) => Math.max(v, 0)));
  });
});

