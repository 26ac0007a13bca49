// Executed-instruction counting (build/count-pass.ts, host/profiling/counting.ts): kernels whose instructions can be
// counted by hand give exactly those counts; a library's own module never counts; cores that do different work get
// different counts; a counting copy still names a trap's source line; the profile shows the breakdown, and a row
// softmax comes out compute-bound once its instructions are counted.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import {
  custom_op, countingLibrary, profile, chromeTrace, randn, shutdown, setOutput, KernelTrapError, INSTRUCTION_CLASSES, CYCLES_PER_INSTRUCTION,
  type Library, type InstructionCounts,
} from "gpsimd";
import { profileSummary } from "../dist/cli/profile.js";
import { loadOp } from "../ops/index.js";
import { fixturePath, TEST_BUILD_DIR } from "./helpers.js";
import { seedCpp, reluSource } from "../examples/seeds-cpp.js";
import path from "node:path";

let lib: Library;
let multicore: Library;
let restore: () => void;
beforeAll(() => {
  restore = setOutput({ printf: () => undefined, warn: () => undefined });
  const load = (name: string, compute: string, shape: string, isMulticore: boolean) => custom_op.load({
    name, compute_srcs: [fixturePath("count", compute)], shape_srcs: [fixturePath("count", shape)], build_directory: TEST_BUILD_DIR, multicore: isMulticore,
  });
  lib = load("count_fixtures", "kernels.ts", "register.ts", false);
  multicore = load("count_fixtures_multicore", "multicore.ts", "register-multicore.ts", true);
}, 180_000);
afterAll(async () => { lib.unload(); multicore.unload(); restore(); await shutdown(); });

/** Each core's executed instructions of one traced call of the counting copy. */
function counted(library: Library, op: string, args: unknown[]): InstructionCounts[] {
  const copy = countingLibrary(library).configure({ trace: true });
  copy.call(op, args).dispose();
  return copy.lastTrace!.cores.map((c) => c.instructions!);
}

const run = (op: string, n: number) => counted(lib, op, [randn([1]), BigInt(n)])[0];
const none = Object.fromEntries(INSTRUCTION_CLASSES.map((c) => [c, 0])) as InstructionCounts;

describe("counts by hand", () => {
  // asc compiles `for (i = 0; i < n; i++) body` as loop { if (i < n) { body; i++; br loop } }: per iteration the
  // body, one i64.add and one i64.lt_s (scalar), the if and the br (branches); the last test is one compare and one if.
  // The stop poll at the loop head is the emulator's and counts nothing. Writing one element through an accessor is
  // the same three entries into the kernel library's inlined code every time.
  it("a loop of n iterations of 4 f32 adds: 6n + 4 scalar (adds, counter, compare; the epilogue's 3 adds and the last compare), 2n + 1 branches", () => {
    for (const n of [0, 1, 10, 1000]) {
      expect(run("adds", n), `n = ${n}`).toEqual({ ...none, scalar: 6 * n + 4, branch: 2 * n + 1, libraryCall: 3 });
    }
  });

  it("v128 work counts as v128: 3 f32x4.add per iteration (3n + the epilogue's 3 extract_lane), the loop's own ops scalar", () => {
    for (const n of [0, 7, 100]) {
      expect(run("vector_adds", n), `n = ${n}`).toEqual({ ...none, vector: 3 * n + 3, scalar: 2 * n + 3, branch: 2 * n + 1, libraryCall: 3 });
    }
  });

  it("a divide and a square root count as two divides per iteration, not as scalar arithmetic", () => {
    for (const n of [0, 5, 50]) {
      // Epilogue: the last compare, x + y and the f64 -> f32 demotion.
      expect(run("divides", n), `n = ${n}`).toEqual({ ...none, divide: 2 * n, scalar: 2 * n + 3, branch: 2 * n + 1, libraryCall: 3 });
    }
  });

  it("memory.copy and memory.fill count their length at run time: a load and a store (copy), a store (fill), per 64 bytes", () => {
    const base = run("copies", 0);
    for (const n of [1, 64, 65, 4096]) {
      const blocks = Math.ceil(n / 64);
      expect(run("copies", n), `n = ${n}`).toEqual({ ...base, memory: base.memory + 2 * blocks + blocks });
    }
  });

  it("each core counts its own work: core k runs 10k iterations of 2 f32 multiplies", () => {
    const cores = counted(multicore, "uneven", [randn([1]), 10n]);
    expect(cores).toHaveLength(8);
    cores.forEach((c, k) => {
      // Per iteration: 2 f32.mul, the counter's add, the compare; core k's 10k iterations, plus its own prologue and epilogue.
      expect(c.scalar - cores[0].scalar, `core ${k}`).toBe(4 * 10 * k);
      expect(c.branch - cores[0].branch, `core ${k}`).toBe(2 * 10 * k);
      expect(c.libraryCall).toBe(cores[0].libraryCall);
    });
  });
});

describe("counting is off unless asked for", () => {
  it("a library's own module has no counters; its counting copy exports one i64 global per class", () => {
    const exports = (m: WebAssembly.Module) => WebAssembly.Module.exports(m).filter((e) => e.name.startsWith("__gpsimd_count_"));
    expect(exports(lib.placed.module)).toEqual([]);
    expect(exports(countingLibrary(lib).placed.module).map((e) => [e.name, e.kind])).toEqual(INSTRUCTION_CLASSES.map((c) => [`__gpsimd_count_${c}`, "global"]));
    expect(countingLibrary(lib)).toBe(countingLibrary(lib)); // made once per library
  });

  it("a traced call of the library itself carries no instruction counts, and its estimate says where compute came from", () => {
    lib.configure({ trace: true });
    try {
      lib.call("adds", [randn([1]), 10n]).dispose();
      expect(lib.lastTrace!.cores[0].instructions).toBeNull();
    } finally {
      lib.configure({ trace: false });
    }
    const off = profile(lib, "adds", [randn([1]), 10n], { runs: 1, traceRuns: 1, warmup: 0, count: false });
    expect([off.counted, off.estimate.computeFrom]).toEqual([false, "TCM bytes (counting off)"]);
    const on = profile(lib, "adds", [randn([1]), 10n], { runs: 1, traceRuns: 1, warmup: 0 });
    expect([on.counted, on.estimate.computeFrom]).toEqual([true, "counted instructions"]);
    // The compute term is the counted instructions at the documented cycles each, at 1.4 GHz.
    const c = on.trace.cores[0].instructions!;
    const cycles = INSTRUCTION_CLASSES.reduce((s, k) => s + c[k] * CYCLES_PER_INSTRUCTION[k], 0);
    expect(on.estimate.cores[0].computeNs).toBeCloseTo(cycles / 1.4, 9);
  });

  it("the copy goes with its library: unloaded together, and none for an unloaded library", () => {
    const relu = loadOp("relu_tcm");
    const copy = countingLibrary(relu);
    relu.unload();
    expect(copy.isUnloaded).toBe(true);
    expect(() => countingLibrary(relu)).toThrow(expect.objectContaining({ code: "E_UNLOADED", message: expect.stringMatching(/^library relu_tcm \(.*\) was unloaded: it has no counting copy$/) }));
  });

  it("a trap in the counting copy names the same kernel line as in the library", () => {
    const message = (l: Library) => {
      try { l.call("divide_by", [randn([1]), 0n]); } catch (e) { expect(e).toBeInstanceOf(KernelTrapError); return (e as Error).message; }
      throw new Error("no trap");
    };
    const plain = message(lib);
    expect(plain).toMatch(/divide by zero at divide_by \(.*kernels\.ts:\d+:\d+\)/);
    expect(message(countingLibrary(lib))).toBe(plain);
  });
});

describe("the profile shows the breakdown", () => {
  it("uneven cores: the slowest (core 7, the most iterations) bounds the launch, and the summary says by how much it holds the others back", () => {
    const r = profile(multicore, "uneven", [randn([1]), 20_000n], { runs: 1, traceRuns: 1, warmup: 0 });
    const compute = r.estimate.cores.map((c) => c.computeNs);
    expect(compute.every((ns, k) => k === 0 || ns > compute[k - 1])).toBe(true);
    expect(r.estimate.bound).toBe("core 7");
    expect(r.estimate.limitedBy).toBe("compute");
    const mean = r.estimate.cores.reduce((s, c) => s + c.totalNs, 0) / 8;
    expect(r.estimate.heldBackNs).toBeCloseTo(r.estimate.cores[7].totalNs - mean, 6);
    const text = profileSummary(r, "uneven.trace.json");
    expect(text).toMatch(/compute-bound; it holds the others back by \S+ (µs|ms) \(\d+ % over the mean\)/);
    expect(text.split("\n").filter((l) => /^ +\d +host|^ +\d +\d/.test(l)).map((l) => l.trim().split(/ +/).at(-1))).toContain("compute");
  });


  it("a TCM softmax over rows (log_softmax of ops/nn) is compute-bound once its instructions are counted; without them it looked DMA-bound", () => {
    const nn = loadOp("nn_tcm");
    try {
      const x = randn([64, 1000], { seed: 2 });
      const r = profile(nn, "log_softmax", [x], { runs: 1, traceRuns: 1, warmup: 0 });
      expect(r.estimate.limitedBy).toBe("compute");
      // exp and log are kernel code (the standard library's), so each of the 64,000 elements costs many scalar instructions.
      expect(r.trace.cores[0].instructions!.scalar).toBeGreaterThan(64_000 * 10);
      expect(profile(nn, "log_softmax", [x], { runs: 1, traceRuns: 1, warmup: 0, count: false }).estimate.limitedBy).toBe("DMA");
      const text = profileSummary(r, "softmax.trace.json");
      expect(text).toContain("compute-bound");
      expect(text).toContain("compute from the kernel's executed instructions, counted per core");
      expect(text).toMatch(/executed kernel instructions per core:\ncore +scalar +v128 +load\/store +branch +div\/sqrt +library calls +est\. compute\n +0 /);
      const trace = chromeTrace(r);
      const byClass = trace.traceEvents.find((e) => e.name === "core 0 estimated compute µs by class")!;
      expect(Object.keys(byClass.args!)).toEqual([...INSTRUCTION_CLASSES]);
      expect(trace.otherData.estimated_device_time_us).toMatchObject({ compute_from: "counted instructions", limited_by: "compute" });
    } finally {
      nn.unload();
    }
  }, 120_000);

  it("the ReLU variants: element-wise accessor-bound, TCM and 8 cores DMA-bound, v128 work counted", () => {
    const x = randn([32, 4096], { seed: 1 });
    const bound = (name: "relu_elementwise" | "relu_tcm" | "relu_multicore") => {
      const l = loadOp(name);
      try {
        return profile(l, "relu_forward", [x], { runs: 1, traceRuns: 1, warmup: 0 });
      } finally {
        l.unload();
      }
    };
    expect(bound("relu_elementwise").estimate.limitedBy).toBe("accessor");
    const tcm = bound("relu_tcm");
    expect(tcm.estimate.limitedBy).toBe("DMA");
    // The kernel library's branch-free v128 ReLU (simd.ts, counted as kernel code): one f32x4.pmax per 4 elements.
    expect(tcm.trace.cores[0].instructions!.vector).toBe(x.numel() / 4);
    const eight = bound("relu_multicore");
    expect(eight.estimate.limitedBy).toBe("DMA");
    expect(eight.trace.cores.map((c) => c.instructions!.vector)).toEqual(Array(8).fill(x.numel() / 4 / 8));
  }, 120_000);
});

describe("C++ kernels count too", () => {
  it("the tutorial's relu-tcm.cpp (merged with the same runtime): clang's v128 loop counted per element, the runtime's code not", () => {
    const cpp = custom_op.load({
      name: "seed_cpp_relu_tcm", compute_srcs: [reluSource("relu-tcm.cpp", path.join(TEST_BUILD_DIR, "seeds-cpp"))], shape_srcs: [seedCpp("relu-shape.cpp")],
      multicore: false, extra_cflags: ["-Dmy_ops=seed_relu_tcm"], build_directory: TEST_BUILD_DIR,
    });
    try {
      const [small, large] = [32, 64].map((rows) => profile(cpp, "relu_forward", [randn([rows, 4096], { seed: rows })], { runs: 1, traceRuns: 1, warmup: 0 }));
      const [a, b] = [small, large].map((r) => r.trace.cores[0].instructions!);
      const more = 32 * 4096; // elements
      // Per 4 elements: one v128 load, one v128 store, and two v128 operations (compare, select) in the kernel's loop.
      expect(b.memory - a.memory).toBe(more / 2);
      expect(b.vector - a.vector).toBe(more / 2);
      // Per 1024-element chunk the kernel calls the library a fixed number of times (copies in and out): the copies' own loops are not counted.
      const chunks = more / 1024;
      expect((b.libraryCall - a.libraryCall) % chunks).toBe(0);
      expect((b.libraryCall - a.libraryCall) / chunks).toBeLessThan(4);
      expect(large.estimate.computeFrom).toBe("counted instructions");
    } finally {
      cpp.unload();
    }
  }, 300_000);
});
