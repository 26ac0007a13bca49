// C++ kernels written as an author outside the project writes them, from the README's "Bring your C++
// kernel" and the API reference alone (test/cpp/outsider/*.cpp): <cmath>, <vector>, <algorithm>,
// <numeric>, <array>, <cstring>, malloc/free, new/delete, lambdas, templates, structs, static tables,
// recursion, 2-d and 3-d accessors, streams, TCM, int32/int64/uint8/bfloat16 tensors, double and
// int64_t scalars, tensor operations, printf, multicore splits. Each result is checked against a plain
// TypeScript reference (test/cpp/outsider/reference.ts). The C library's heap is the core's kernel heap
// (full: KernelHeapError), assert is a KernelAbortError naming the line, and what needs a host (files,
// clocks, the environment, objects built before the kernel runs) is a BuildError naming the kernel's line.
import { describe, it, expect, afterAll } from "vitest";
import path from "node:path";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { custom_op, ops, tensor, randn, shutdown, BuildError, KernelHeapError, KernelAbortError, type Library } from "gpsimd";
import { TEST_BUILD_DIR, captureOutput, expectGpsimdError, floats, STRICT } from "../helpers.js";
import * as ref from "./outsider/reference.js";

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "outsider");
const src = (name: string) => path.join(DIR, name);
/** The 1-based line of a source's first line containing `text`. */
const lineOf = (name: string, text: string) => readFileSync(src(name), "utf8").split("\n").findIndex((l) => l.includes(text)) + 1;

// One single-core library of ten kernels from three sources, and one multicore library: C++ builds cost seconds each.
const single = custom_op.load({
  name: "outsider", compute_srcs: ["math.cpp", "containers.cpp", "ints.cpp"].map(src), shape_srcs: [src("shape.cpp")],
  build_directory: TEST_BUILD_DIR, ...STRICT,
});
const multi = custom_op.load({
  name: "outsider_mc", compute_srcs: [src("multicore.cpp")], shape_srcs: [src("multicore-shape.cpp")],
  build_directory: TEST_BUILD_DIR, multicore: true, ...STRICT,
});
const libs: Library[] = [multi];
afterAll(async () => {
  if (!sanitized) single.unload();
  libs.forEach((l) => l.unload());
  await shutdown();
});

let sanitized = false;
const o = ops.outsider as Record<string, (...a: unknown[]) => import("gpsimd").Tensor>;
const mc = ops.outsider_mc as Record<string, (...a: unknown[]) => import("gpsimd").Tensor>;

/** Elementwise closeness with a relative tolerance (libm and V8's Math differ in the last bits). */
function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, rel = 1e-5): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    expect(Math.abs(got[i] - want[i]), `element ${i}: got ${got[i]}, expected ${want[i]}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(want[i])));
  }
}

const f32 = Math.fround;

/** Deterministic integers in [0, mod). */
const ints = (n: number, mod: number, seed: number) => Array.from({ length: n }, (_, i) => ((i * 2654435761 + seed * 40503) >>> 7) % mod);

describe("C++ kernels written from the README alone", () => {
  it("softmax over rows: a 2-d accessor, std::vector, std::max, std::exp", () => {
    const x = randn([5, 37], { seed: 1 });
    expectClose(floats(o.softmax_rows(x)), ref.softmaxRows(floats(x), 5, 37));
  });

  it("alpha * GELU: stream accessors (the writer flushed by its destructor), std::tanh, std::pow, M_PI, a double scalar", () => {
    const x = randn([3, 1500], { seed: 2 });
    expectClose(floats(o.gelu_scaled(x, 1.75)), ref.geluScaled(floats(x), 1.75));
  });

  it("layer norm: TCM rows, malloc/memset/memcpy/free, std::sqrt, a double eps", () => {
    const x = randn([6, 300], { seed: 3 });
    expectClose(floats(o.layernorm_tcm(x, 1e-5)), ref.layernorm(floats(x), 6, 300, 1e-5), 1e-4);
  });

  it("floor, fabs, log, a static table by recursion, a template, std::array of structs", () => {
    const x = tensor([-3.7, -2.5, -0.5, 0, 0.25, 0.5, 1.5, 2.75, 9]);
    expectClose(floats(o.special(x)), ref.special(floats(x)));
  });

  it("int32 rows sorted by a template kernel body with std::sort and a lambda into new[]; printf shows the last row's maximum", () => {
    const data = ints(4 * 33, 1000, 4).map((v) => v - 500);
    const { result, printf } = captureOutput(() => o.sort_rows(tensor(Int32Array.from(data), [4, 33])));
    expect(Array.from(result.data() as Int32Array)).toEqual(ref.sortRowsDescending(data, 4, 33));
    // printf("done\n") is compiled as puts("done"): the device's printf still shows it.
    expect(printf.join("\n")).toContain(`sorted 4 rows, first max ${Math.max(...data.slice(99))}\ndone`);
  });

  it("the top-k sum: a read stream closed by its destructor, a std::vector grown by push_back, std::nth_element, std::accumulate, an int64_t scalar", () => {
    const data = ints(300, 97, 5);
    expect(Array.from(floats(o.topk_sum(tensor(Float32Array.from(data)), 10)))).toEqual([ref.topkSum(data, 10)]);
    expect(Array.from(floats(o.topk_sum(tensor(Float32Array.from(data)), 1000)))).toEqual([ref.topkSum(data, 1000)]);
  });

  it("a 3-d accessor acc[i][j][k] reduced with a templated struct, size(-1), a range-for over sizes()", () => {
    const x = randn([3, 4, 7], { seed: 6 });
    expectClose(floats(o.reduce3d(x)), ref.reduce3d(floats(x), 3, 4, 7));
  });

  it("a uint8 histogram into int64 counts through TCM, printf with %ld, %lu and %lld", () => {
    const data = ints(1300, 256, 7);
    const { result, printf } = captureOutput(() => o.histogram(tensor(Uint8Array.from(data), [1300], "uint8"), 16));
    expect(Array.from(result.data() as BigInt64Array, Number)).toEqual(ref.histogram(data, 16));
    // %ld and %lu as kernels for the device write them (int64_t and size_t are long there, 32-bit long here).
    expect(printf.join("\n")).toContain("histogram: 1300 values in 16 bins, 1300 bytes, -1");
  });

  it("tensor operations inside a kernel: assert(a.sizes() == b.sizes()), torch::zeros, add_out with alpha, clamp, exp, mul", () => {
    const a = randn([2, 50], { seed: 8 }), b = randn([2, 50], { seed: 9 });
    expectClose(floats(o.tensor_ops(a, b)), ref.tensorOps(floats(a), floats(b)));
  });

  it("bfloat16 as uint16_t bits through TCM, scaled by a double: the host's round-to-nearest-even", () => {
    const x = tensor(floats(randn([700], { seed: 10 })), [700], "bfloat16");
    const got = o.bf16_scale(x, 3.3);
    const want = tensor(Float32Array.from(ref.scaledFloat32(x.data() as ArrayLike<number>, 3.3)), [700], "bfloat16");
    expect(Array.from(got.storageView() as Uint16Array)).toEqual(Array.from(want.storageView() as Uint16Array));
  });
});

describe("multicore C++ kernels written from the README alone", () => {
  it("x * scale + shift split over 8 cores with the remainder on the last, std::vector and std::transform per core", () => {
    const x = randn([1001], { seed: 11 });
    const { result, printf } = captureOutput(() => mc.scale_shift(x, 0.5, 3));
    expectClose(floats(result), ref.scaleShift(floats(x), 0.5, 3));
    expect(printf.join("\n")).toContain("core 0 of 8 did [0, 125)");
  });

  it("row maxima dealt to the cores in turn: std::max_element, new/delete on every core", () => {
    const x = randn([29, 40], { seed: 12 });
    expect(Array.from(floats(mc.row_max(x)))).toEqual(ref.rowMax(floats(x), 29, 40));
  });

  it("a std::vector larger than the kernel heap is a KernelHeapError naming the line; the next call works", () => {
    const x = tensor(new Float32Array(8));
    expectGpsimdError(() => mc.heap_hog(x, 1 << 20), KernelHeapError, "E_HEAP_EXHAUSTED", [
      "the kernel heap is full: 8388624 bytes asked", `multicore.cpp:${lineOf("multicore.cpp", "std::vector<double> v(n, 0.5);")}:`,
    ]);
    expect(Array.from(floats(mc.heap_hog(x, 10)))).toEqual(new Array(8).fill(5));
  });

  it("free() of a tcm_malloc block is a KernelAbortError naming the address; malloc/free and tcm_malloc/tcm_free paired are right", () => {
    const x = tensor([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Array.from(floats(mc.free_mixup(x, 0)))).toEqual([3, 6, 9, 12, 15, 18, 21, 24]);
    expectGpsimdError(() => mc.free_mixup(x, 1), KernelAbortError, "E_ABORT", [
      /abort: free\(\) or delete of 0x[0-9a-f]+, which malloc or new did not return \(a tcm_malloc block is freed with tcm_free\)/,
      `multicore.cpp:${lineOf("multicore.cpp", "if (wrong) free(buf);")}:`,
    ]);
  });

  it("a failed assert is a KernelAbortError with the condition and the assert's line", () => {
    expectGpsimdError(() => mc.heap_hog(tensor(new Float32Array(8)), -1), KernelAbortError, "E_ABORT", [
      `abort: assertion failed: n > 0 (${src("multicore.cpp")}:${lineOf("multicore.cpp", "assert(n > 0);")})`,
    ]);
  });
});

describe("static data of C++ kernels", () => {
  it("a zero-initialised static array (no data segment) gets device memory of its own", () => {
    const neighbour = tensor(new Float32Array(1 << 16).fill(3));
    const x = randn([4096], { seed: 15 });
    expectClose(floats(mc.static_scratch(x)), Array.from(floats(x), (v) => f32(2 * v) + 1));
    expect(floats(neighbour).every((v) => v === 3)).toBe(true);
  });
});

describe("the C library inside kernels", () => {
  it("snprintf and strtof round-trip every core's share", () => {
    const x = randn([203], { seed: 13 });
    expect(Array.from(floats(mc.format_round(x, 2)))).toEqual(ref.formatRound(floats(x), 2));
  });

  it("a host call left inside the C library (printf's long double report on stderr) stops the kernel with a named error", () => {
    expectGpsimdError(() => mc.format_round(randn([16], { seed: 14 }), -1), KernelAbortError, "E_ABORT", [
      // every core fails alike at the same line: one message listing them
      "outsider_mc::format_round (cores 0-7, alike; the details are core 0's): abort: the kernel's C library asked the host for files and the console (print with printf) (a WASI call), which a GpSimd core does not have",
      /at format_round \(.*multicore\.cpp:\d+:\d+\)/,
    ]);
  });
});

describe("the same kernels in sanitize mode", () => {
  it("streams, tensor operations and printf: the runtime's own stores are not taken for the kernel's", () => {
    single.unload(); // the sanitize build registers the same NEURON_LIBRARY name
    sanitized = true;
    libs.push(custom_op.load({
      name: "outsider_sanitize", compute_srcs: ["math.cpp", "containers.cpp", "ints.cpp"].map(src), shape_srcs: [src("shape.cpp")],
      build_directory: TEST_BUILD_DIR, sanitize: true, ...STRICT,
    }));
    const s = ops.outsider as Record<string, (...a: unknown[]) => import("gpsimd").Tensor>;
    const x = randn([3, 500], { seed: 16 });
    expectClose(floats(s.gelu_scaled(x, 1.75)), ref.geluScaled(floats(x), 1.75));
    const a = randn([2, 50], { seed: 8 }), b = randn([2, 50], { seed: 9 });
    expectClose(floats(s.tensor_ops(a, b)), ref.tensorOps(floats(a), floats(b)));
    const data = ints(1300, 256, 7);
    const { result, printf } = captureOutput(() => s.histogram(tensor(Uint8Array.from(data), [1300], "uint8"), 16));
    expect(Array.from(result.data() as BigInt64Array, Number)).toEqual(ref.histogram(data, 16));
    expect(printf.join("\n")).toContain("histogram: 1300 values in 16 bins, 1300 bytes, -1");
  });
});

describe("what a GpSimd core cannot give a C++ kernel", () => {
  it("files, the environment, clocks and objects built before the kernel runs are BuildErrors naming the kernel's lines", () => {
    const file = src("unavailable.cpp");
    const at = (text: string) => `${file}:${lineOf("unavailable.cpp", text)}: error: `;
    expectGpsimdError(() => custom_op.load({
      name: "outsider_unavailable", compute_srcs: [file], shape_srcs: [src("unavailable-shape.cpp")], build_directory: TEST_BUILD_DIR,
    }), BuildError, "E_BUILD", [
      `${at("fprintf(")}fprintf is not available in a GpSimd kernel: it needs files and the console`,
      `${at("getenv(")}getenv is not available in a GpSimd kernel: it needs the process environment`,
      `${at("time(nullptr)")}time is not available in a GpSimd kernel: it needs a clock`,
      `${at("static std::vector")}a static local object with a destructor is not available in a GpSimd kernel`,
      "error: std::cout and the other C++ streams are not available in a GpSimd kernel: it needs files and the console",
      `${at("exit(1)")}exit is not available in a GpSimd kernel: it needs to end the process`,
      `${at("std::vector<float> weights(16, 1.0f);")}a global object with a constructor is not available in a GpSimd kernel`,
    ]);
  });
});
