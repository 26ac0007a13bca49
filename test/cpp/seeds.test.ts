// The seeds' C++ files, byte for byte (examples/seeds-cpp/), built with
// custom_op.load and diagnosed: the blog's giou.cpp makes the cores overlap,
// leaves rows unwritten and leaks a TCM block; the tutorial's multicore ReLU
// runs core 7 out of range when the size is not a multiple of 8; the
// corrected giou.cpp matches the plain-TypeScript reference. One test builds
// the blog's files from a folder outside the project, as its build.py does.
import { describe, it, expect, afterAll, afterEach } from "vitest";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  custom_op, ops, randn, tensor, shutdown, setOutput, TensorRangeError, CrossCoreWriteError, AccessorRankError, KernelAbortError, type Library, type LoadOptions, type Tensor,
} from "gpsimd";
import { tensor_negate } from "../../ops/negate/reference.js";
import { tensor_add } from "../../ops/add/reference.js";
import { SEEDS_CPP, seedCpp, reluSource, kernelSource } from "../../examples/seeds-cpp.js";
import { giouOf as giou } from "../../ops/giou/reference.js";
import { w1Boxes } from "../../ops/giou/boxes.js";
import { TEST_BUILD_DIR, values, floats, expectGpsimdError } from "../helpers.js";

const loaded: Library[] = [];
afterEach(() => { loaded.splice(0).forEach((l) => l.unload()); });
afterAll(async () => { await shutdown(); });

function load(options: LoadOptions): Library {
  const lib = custom_op.load({ build_directory: TEST_BUILD_DIR, multicore: true, ...options });
  loaded.push(lib);
  return lib;
}

/** The seeds' kernels ported literally to AssemblyScript (test/seeds.test.ts). */
const SEEDS_AS = path.join(SEEDS_CPP, "..", "seeds");

/** n x b pairs of boxes with coordinates that make every GIOU term matter (as test/seeds.test.ts). */
function boxes(n: number, b: number) {
  return tensor(Float32Array.from({ length: n * b * 4 }, (_, i) => [0, 0, 4, 4][i % 4] + (i % 7)), [n, b, 4]);
}

/** The 1-based line of the first line of a file that contains `text`. */
function lineOf(file: string, text: string): number {
  const at = readFileSync(file, "utf8").split("\n").findIndex((l) => l.includes(text));
  expect(at, `${file}: ${text}`).toBeGreaterThanOrEqual(0);
  return at + 1;
}

describe("the seed files", () => {
  it("are the published text, byte for byte (SHA-256 as recorded in SOURCES.md)", () => {
    const sources = readFileSync(path.join(SEEDS_CPP, "SOURCES.md"), "utf8");
    for (const file of ["giou.cpp", "shape.cpp", "relu-tcm.cpp", "relu-multicore.cpp", "negate-elementwise.cpp", "negate-shape.cpp", "negate-tcm.cpp", "add-accessor.cpp", "add-stream.cpp"]) {
      const sha = createHash("sha256").update(readFileSync(seedCpp(file))).digest("hex");
      expect(sources, file).toContain(`\`${file}\` | ${sha}`);
    }
  });
});

describe("the blog's giou.cpp, unmodified", () => {
  it("overlaps between cores, leaves rows unwritten and leaks tcm_output: what its literal AssemblyScript port gets", () => {
    const run = (namespace: string) => {
      const warnings: string[] = [];
      const restore = setOutput({ warn: (w) => warnings.push(w) });
      try { ops[namespace].giou(boxes(16, 8), boxes(16, 8)); } catch (e) { return { error: e as Error, warnings }; } finally { restore(); }
      return { error: null, warnings };
    };
    load({ name: "seed_cpp_giou", compute_srcs: [seedCpp("giou.cpp")], shape_srcs: [seedCpp("shape.cpp")] });
    const cpp = run("my_ops");
    expect(cpp.error).toBeInstanceOf(CrossCoreWriteError);
    // partition = 16 / 8 = 2 rows; core k writes 8 elements at 2k + 8i for i = 0, 1: core 0 [0, 16), core 1 [2, 18), ...
    expect(cpp.error!.message).toMatch(/^my_ops::giou: cores 0 and 1 both wrote output elements \[2, 16\) of float32\[16, 8\]/);
    expect(cpp.error!.message).toContain("also: 98 output elements were written by no core: [30, 128)");
    // tcm_output (tcm_in_size floats: 8 boxes x 4 x 4 bytes) is never freed: one warning for all eight cores.
    expect(cpp.warnings).toEqual([expect.stringMatching(/^my_ops::giou \(cores 0-7\): 1 TCM block \(128 bytes\) still allocated when the kernel returned/)]);
    // ... naming the statement that allocated it: `float *tcm_output = (float*)torch::neuron::tcm_malloc(`.
    expect(cpp.warnings[0]).toMatch(new RegExp(`allocated by tcm_malloc at giou \\(.*/giou\\.cpp:${lineOf(seedCpp("giou.cpp"), "*tcm_output = ")}:\\d+\\)$`));

    load({ name: "seed_giou", compute_srcs: [path.join(SEEDS_AS, "giou-multicore.ts")], shape_srcs: [path.join(SEEDS_AS, "giou-multicore-register.ts")] });
    const port = run("seed_giou");
    // The same diagnosis; each names its own source's write statement for both cores (the last line of the message).
    const unplacedWrites = (m: string) => m.replace(/ at giou \([^)]*\)/g, "");
    expect(unplacedWrites(cpp.error!.message)).toBe(unplacedWrites(port.error!.message.replaceAll("seed_giou::", "my_ops::")));
    expect(cpp.error!.message).toMatch(new RegExp(`\ncore 0 wrote \\[0, 8\\) at giou \\(.*/giou\\.cpp:${lineOf(seedCpp("giou.cpp"), "t_out_tcm_acc.tcm_to_tensor<float>(")}:\\d+\\); core 1 wrote`));
    // The same warning; each names its own source's line.
    expect(port.warnings[0]).toMatch(new RegExp(`allocated by tcm_malloc at giou \\(.*/giou-multicore\\.ts:${lineOf(path.join(SEEDS_AS, "giou-multicore.ts"), "const tcm_output = ")}:\\d+\\)$`));
    const unplaced = (w: string) => w.replace(/ at giou \([^)]*\)$/, "");
    expect(cpp.warnings.map(unplaced)).toEqual(port.warnings.map((w) => unplaced(w).replaceAll("seed_giou::", "my_ops::")));
  });
});

describe("giou-fixed.cpp (the seed with its offsets, remainder rows and free corrected)", () => {
  it("matches the TypeScript reference on W1-style boxes, rows not divisible by 8 included", () => {
    load({ name: "seed_cpp_giou_fixed", compute_srcs: [seedCpp("giou-fixed.cpp")], shape_srcs: [seedCpp("shape.cpp")] });
    for (const [n, b] of [[8, 256], [13, 256], [3, 100], [64, 31]]) {
      const [pred, target] = w1Boxes(n + b, n, b);
      const got = floats(ops.my_ops.giou(tensor(pred, [n, b, 4]), tensor(target, [n, b, 4])));
      const want = giou(pred, target, n, b);
      expect(got.length).toBe(n * b);
      got.forEach((v, i) => expect(Math.abs(v - want[i]), `[${n}, ${b}] pair ${i}`).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want[i]))));
    }
  });
});

describe("the tutorial's relu.cpp", () => {
  const dir = path.join(TEST_BUILD_DIR, "seeds-cpp");

  it("TCM: right on any size, one core", () => {
    load({ name: "seed_cpp_relu_tcm", compute_srcs: [reluSource("relu-tcm.cpp", dir)], shape_srcs: [seedCpp("relu-shape.cpp")], multicore: false, extra_cflags: ["-Dmy_ops=seed_relu_tcm"] });
    for (const sizes of [[1], [1023], [999, 1001]]) {
      const x = randn(sizes, { seed: sizes.length });
      expect(values(ops.seed_relu_tcm.relu_forward(x))).toEqual(values(x).map((v) => Math.max(v, 0)));
    }
  });

  it("multicore: right when the size is a multiple of 8; core 7 out of range when it is not", () => {
    load({ name: "seed_cpp_relu_multicore", compute_srcs: [reluSource("relu-multicore.cpp", dir)], shape_srcs: [seedCpp("relu-shape.cpp")], extra_cflags: ["-Dmy_ops=seed_relu_multicore"] });
    const x = randn([64, 1000], { seed: 3 });
    expect(values(ops.seed_relu_multicore.relu_forward(x))).toEqual(values(x).map((v) => Math.max(v, 0)));
    // 999,999 = 8 * 124,999 + 7: core 7 takes 125,006 elements but starts at 125,006 * 7 = 875,042.
    let error: unknown;
    try { ops.seed_relu_multicore.relu_forward(randn([999, 1001])); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(TensorRangeError);
    const e = error as TensorRangeError;
    expect(e.core).toBe(7);
    expect(e.message).toMatch(/^seed_relu_multicore::relu_forward \(core 7\): TCM copy of 78 elements at offset 999970 reaches outside argument 0 't_in' \(float32\[999, 1001\]\): elements \[999970, 1000048\) requested, the tensor has 999999/);
    expect(e.message).toContain("output elements were written by no core: [874993, 875042), [999970, 999999)");

    load({ name: "seed_relu", compute_srcs: [path.join(SEEDS_AS, "relu-multicore.ts")], shape_srcs: [path.join(SEEDS_AS, "relu-multicore-register.ts")] });
    let port: unknown;
    try { ops.seed_relu.relu_forward(randn([999, 1001])); } catch (err) { port = err; }
    // The same diagnosis as the literal AssemblyScript port; each names its own kernel source, where it can.
    const place = / at \S+ \([^)]*\)/g;
    expect(e.message.replace(place, "")).toBe((port as Error).message.replaceAll("seed_relu::", "seed_relu_multicore::").replace(place, ""));
  });
});

describe("the API guide's examples (Neuron SDK docs), unchanged", () => {
  const dir = path.join(TEST_BUILD_DIR, "seeds-cpp");
  const single = (name: string, compute: string, shape: string) => load({ name, compute_srcs: [compute], shape_srcs: [seedCpp(shape)], multicore: false, extra_cflags: [`-Dmy_ops=${name}`] });
  const inputs = () => [1, 7, 1025, 3000].map((n, i) => randn([n], { seed: i }));
  const negate = (lib: string) => (x: Tensor) => values(ops[lib].tensor_negate(x) as Tensor);
  const add = (lib: string) => (a: Tensor, b: Tensor) => values(ops[lib].tensor_add(a, b) as Tensor);

  it("the developer guide's tensor_negate_compute (element-wise accessor) and its NEURON_LIBRARY file match ops/negate/reference.ts", () => {
    single("guide_negate_elementwise", seedCpp("negate-elementwise.cpp"), "negate-shape.cpp");
    for (const x of inputs()) expect(negate("guide_negate_elementwise")(x)).toEqual(Array.from(tensor_negate(floats(x))));
    // accessor<float, 1> is for 1-d tensors: a 2-d input is the accessor's rank error, naming the guide's line.
    expectGpsimdError(() => ops.guide_negate_elementwise.tensor_negate(randn([3, 4])), AccessorRankError, "E_ACCESSOR_RANK", [`${seedCpp("negate-elementwise.cpp")}:`]);
  });

  it("the API reference's tensor_negate_compute with the TCM accessor matches ops/negate/reference.ts", () => {
    single("guide_negate_tcm", kernelSource("negate-tcm.cpp", dir), "negate-shape.cpp");
    for (const x of inputs()) expect(negate("guide_negate_tcm")(x)).toEqual(Array.from(tensor_negate(floats(x))));
  });

  it("the API reference's tensor_add_compute with element-wise accessors matches ops/add/reference.ts; its assert names its line", () => {
    single("guide_add_accessor", kernelSource("add-accessor.cpp", dir), "add-shape.cpp");
    for (const x of inputs()) {
      const y = randn(x.sizes(), { seed: 9 });
      expect(add("guide_add_accessor")(x, y)).toEqual(Array.from(tensor_add(floats(x), floats(y))));
    }
    expectGpsimdError(() => ops.guide_add_accessor.tensor_add(randn([5]), randn([6])), KernelAbortError, "E_ABORT",
      ["guide_add_accessor::tensor_add (core 0): abort: assertion failed: t1.sizes() == t2.sizes()", `${seedCpp("add-accessor.cpp")}:3`]);
  });

  it("the API reference's tensor_add_compute with stream accessors (closed by going out of scope) matches ops/add/reference.ts", () => {
    single("guide_add_stream", kernelSource("add-stream.cpp", dir), "add-shape.cpp");
    for (const x of inputs()) {
      const y = randn(x.sizes(), { seed: 9 });
      expect(add("guide_add_stream")(x, y)).toEqual(Array.from(tensor_add(floats(x), floats(y))));
    }
  });
});

describe("the blog's build.py, in TypeScript, from a folder outside the project", () => {
  it("copies giou.cpp and shape.cpp there and builds them with custom_op.load as the blog does", () => {
    // A fixed folder, so that a second run finds libgiou.wasm up to date instead of compiling again.
    const folder = path.join(tmpdir(), "gpsimd-seeds-cpp-blog");
    const cwd = process.cwd();
    mkdirSync(folder, { recursive: true });
    for (const f of ["giou.cpp", "shape.cpp"]) copyFileSync(seedCpp(f), path.join(folder, f));
    const log: string[] = [];
    const restoreErr = process.stderr.write;
    process.chdir(folder);
    process.stderr.write = ((chunk: string | Uint8Array) => { log.push(String(chunk)); return true; }) as typeof process.stderr.write;
    try {
      loaded.push(custom_op.load({ name: "giou", compute_srcs: ["giou.cpp"], shape_srcs: ["shape.cpp"], build_directory: ".", multicore: true, verbose: true }));
    } finally {
      process.stderr.write = restoreErr;
      process.chdir(cwd);
    }
    const lib = loaded[loaded.length - 1];
    expect(lib.path).toBe(path.join(folder, "libgiou.wasm"));
    expect(log.join("")).toMatch(new RegExp(`gpsimd: (built ${escape(lib.path)} in \\d+ ms|${escape(lib.path)} is up to date)`));
    const restore = setOutput({ warn: () => {} });
    try { expect(() => ops.my_ops.giou(boxes(16, 8), boxes(16, 8))).toThrow(CrossCoreWriteError); } finally { restore(); }
  });
});

function escape(s: string): string { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
