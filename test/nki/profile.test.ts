// The NKI estimate: instruction costs against the architecture guide's formulas computed by hand, the
// timeline of small kernels against a hand-made schedule, engines overlapping, the critical path, the
// Chrome trace's shape, SPMD instances, the CLI helper, and the NKI docs' own figure for fused Mamba.
import { describe, expect, test } from "vitest";
import { readFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel } from "../../nki/language/run.js";
import { profileKernel, formatProfile, instructionCost, COSTS, type KernelProfile } from "../../nki/profile/index.js";
import { estimateKernelFile } from "../../nki/profile/cli-estimate.js";
import { tensor } from "../../host/device/factories.js";

registerNkiModules();

const HEADER = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\nimport numpy as np\n";
let counter = 0;
const T = (shape: number[], f: (i: number) => number = (i) => (i % 7) - 3) =>
  tensor(Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => f(i)), shape, "float32");

function profile(body: string, name: string, args: unknown[], grid?: number[]): KernelProfile {
  const file = `profile_${++counter}.py`;
  const program = loadProgram(file, { source: HEADER + body });
  return profileKernel(program, findKernel(program, name), args, {}, grid ? { grid } : {}).profile;
}

/** DMA bandwidth of the 16 engines in bytes per µs. */
const DMA_BPUS = (27 * 16 * 2 ** 30) / 1e6;

describe("instruction costs (trainium_inferentia2_arch.rst rules of thumb)", () => {
  const shape = { name: "x", free: 512, inputs: 1, fp32Matmul: false, dmaBytes: 0, dmaBuffers: 0 };
  test("TensorE: max(N, 64) cycles at 2.8 GHz, four times that for fp32 inputs", () => {
    expect(instructionCost({ ...shape, engine: "Tensor" }, false).busyUs).toBeCloseTo(512 / 2800, 9);
    expect(instructionCost({ ...shape, engine: "Tensor", fp32Matmul: true }, false).cycles).toBe(2048);
    expect(instructionCost({ ...shape, engine: "Tensor", free: 32 }, false).cycles).toBe(64);
  });
  test("VectorE: N cycles for one input, 2N for two, +100 when tiny (N < 128) or dependent, at 1.12 GHz", () => {
    expect(instructionCost({ ...shape, engine: "Vector" }, false).cycles).toBe(512);
    expect(instructionCost({ ...shape, engine: "Vector", inputs: 2 }, false).busyUs).toBeCloseTo(1024 / 1120, 9);
    expect(instructionCost({ ...shape, engine: "Vector", inputs: 2 }, true).cycles).toBe(1124);
    expect(instructionCost({ ...shape, engine: "Vector", free: 64 }, false).cycles).toBe(164);
  });
  test("DMA: bytes over 16 engines at 27 GiB/s, at least 512 bytes per contiguous buffer, plus the assumed 2 µs latency", () => {
    const c = instructionCost({ ...shape, engine: "DMA", dmaBytes: 262144, dmaBuffers: 128 }, false);
    expect(c.busyUs).toBeCloseTo(262144 / DMA_BPUS, 9);
    expect(c.latencyUs).toBeCloseTo(262144 / DMA_BPUS + 2, 9);
    // 128 rows of 64 bytes are charged as 128 buffers of 512 bytes.
    expect(instructionCost({ ...shape, engine: "DMA", dmaBytes: 8192, dmaBuffers: 128 }, false).busyUs).toBeCloseTo(65536 / DMA_BPUS, 9);
    expect(COSTS.dmaLatencyUs.source).toMatch(/^assumed/);
    expect(COSTS.matmulMinCycles.source).toContain("trainium_inferentia2_arch.rst");
  });
});

describe("timeline", () => {
  test("load, load, add, store: the hand-made schedule (DMA bandwidth shared in order, the add waits for both loads)", () => {
    const p = profile(`
@nki.jit
def k(a, b):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  y = nl.load(b)
  z = nl.add(x, y)
  nl.store(out, z)
  return out
`, "k", [T([128, 512]), T([128, 512])]);
    const load = 262144 / DMA_BPUS; // busy time of one 256 KiB transfer
    const add = 1024 / 1120; // two inputs, N = 512, at 1.12 GHz
    const expectedTotal = load + (load + 2) + add + (load + 2);
    expect(p.totalUs).toBeCloseTo(expectedTotal, 6);
    expect(p.counts).toMatchObject({ DMA: 3, Vector: 1, Tensor: 0 });
    expect(p.busyUs.Vector).toBeCloseTo(add, 9);
    expect(p.criticalPath.map((s) => [s.instruction, s.line])).toEqual([["nl.load", 9], ["nl.load", 10], ["nl.add", 11], ["nl.store", 12]]);
    const [, loadB, addStep] = p.criticalPath;
    expect(loadB.startUs).toBeCloseTo(load, 9);
    expect(addStep.startUs).toBeCloseTo(2 * load + 2, 9);
  });

  test("independent work overlaps across engines; dependent work waits", () => {
    const p = profile(`
@nki.jit
def k(a, b):
  out = nl.ndarray((2, 128, 2048), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  y = nl.load(b)
  e = nl.exp(nl.exp(nl.exp(x)))
  s = nl.multiply(y, y)
  nl.store(out[0], e)
  nl.store(out[1], s)
  return out
`, "k", [T([128, 2048]), T([128, 2048])]);
    const placed = p.instances[0].timeline.placed;
    const exps = placed.filter((q) => q.engine === "Scalar");
    const [mul] = placed.filter((q) => q.engine === "Vector");
    expect(exps).toHaveLength(3);
    // The exps (ScalarE, on x) and the multiply (VectorE, on y, loaded second) run at the same time.
    expect(mul.startUs).toBeLessThan(exps[2].endUs);
    expect(exps[0].startUs).toBeLessThan(mul.endUs);
    // Each exp waits for the one before it (and pays VectorE's 100-cycle dependent overhead, at 1.4 GHz).
    expect(exps[1].startUs).toBeCloseTo(exps[0].endUs, 9);
    expect(exps[1].durUs).toBeCloseTo((2048 + 100) / 1400, 9);
    expect(p.totalUs).toBeLessThan(p.busyUs.DMA + p.busyUs.Scalar + p.busyUs.Vector + 4 * COSTS.dmaLatencyUs.value);
    // Each store starts after the instruction whose tile it stores.
    const stores = placed.filter((q) => q.instruction.name === "nl.store");
    expect(stores[0].startUs).toBeGreaterThanOrEqual(exps[2].endUs - 1e-9);
    expect(stores[1].startUs).toBeGreaterThanOrEqual(mul.endUs - 1e-9);
  });

  test("a matmul accumulation chain: fp32 matmuls back to back on TensorE, N = 512", () => {
    const p = profile(`
@nki.jit
def k(a, b):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  ps = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
  for kk in nl.affine_range(4):
    x = nl.load(a[kk])
    y = nl.load(b[kk])
    ps += nl.matmul(x, y, transpose_x=True)
  nl.store(out, nl.copy(ps))
  return out
`, "k", [T([4, 128, 128]), T([4, 128, 512])]);
    expect(p.counts.Tensor).toBe(4);
    expect(p.busyUs.Tensor).toBeCloseTo((4 * 512 * 4) / 2800, 9);
  });

  test("SPMD: one timeline per instance; the launch's estimate is the slowest instance", () => {
    const p = profile(`
@nki.jit
def k(a):
  out = nl.ndarray((256, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  i = nl.program_id(0)
  t = nl.load(a[nl.ds(i * 128, 128), :])
  nl.store(out[nl.ds(i * 128, 128), :], nl.exp(t))
  return out
`, "k", [T([256, 512])], [2]);
    expect(p.instances.map((x) => x.ids)).toEqual([[0], [1]]);
    expect(p.totalUs).toBeCloseTo(Math.max(...p.instances.map((x) => x.totalUs)), 9);
    const pids = new Set(p.trace.traceEvents.filter((e) => e.ph === "X").map((e) => e.pid));
    expect([...pids].sort()).toEqual([1, 2]);
  });
});

describe("Chrome trace", () => {
  test("X events on one lane per engine with names carrying the source line, thread names as metadata", () => {
    const p = profile(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  nl.store(out, nl.exp(nl.add(x, 1.0)))
  return out
`, "k", [T([128, 512])]);
    const json = JSON.parse(JSON.stringify(p.trace)) as typeof p.trace;
    const xs = json.traceEvents.filter((e) => e.ph === "X");
    expect(xs).toHaveLength(4);
    for (const e of xs) {
      expect(e.name).toMatch(/\(profile_\d+\.py:\d+\)$/);
      expect(typeof e.ts).toBe("number");
      expect(e.dur!).toBeGreaterThan(0);
    }
    const lanes = new Map(json.traceEvents.filter((e) => e.name === "thread_name").map((e) => [e.tid, (e.args as { name: string }).name]));
    // The store reuses DMA queue 0: the load on it finished long before.
    expect(xs.map((e) => lanes.get(e.tid))).toEqual(["DMA q0", "Vector", "Scalar", "DMA q0"]);
    expect(xs.find((e) => e.name.startsWith("nl.exp"))!.cat).toBe("Scalar");
  });

  test("the CLI helper writes the trace file and prints the summary", () => {
    const dir = mkdtempSync(join(tmpdir(), "nki-trace-"));
    const trace = join(dir, "t.json");
    const file = join(dir, "add.py");
    writeFileSync(file, `${HEADER}
@nki.jit
def k(a, b):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  nl.store(out, nl.add(nl.load(a), nl.load(b)))
  return out
`);
    const { text } = estimateKernelFile(file, "k", null, [T([128, 512]), T([128, 512])], trace);
    expect(text).toMatch(/^estimated time on a NeuronCore-v2 \(trn1\): \d+\.\d+ µs/);
    expect(text).toContain("critical path (4 instructions)");
    expect(JSON.parse(readFileSync(trace, "utf8")).traceEvents.length).toBeGreaterThan(4);
  });
});

describe("what the compiler makes of the instruction stream", () => {
  test("a partition broadcast is a TensorE instruction landing in PSUM; a two-input VectorE instruction with one input there streams both in N cycles", () => {
    const p = profile(`
@nki.jit
def k(a, b):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  row = nl.load(b)
  bc = nl.broadcast_to(row, (128, 512))
  y = nisa.tensor_tensor(x, bc, op=nl.multiply)
  z = nisa.tensor_tensor(x, y, op=nl.add)
  nl.store(out, z)
  return out
`, "k", [T([128, 512]), T([1, 512])]);
    const placed = p.instances[0].timeline.placed;
    const [bc] = placed.filter((q) => q.instruction.name === "nl.broadcast_to");
    expect(bc.engine).toBe("Tensor");
    expect(bc.durUs).toBeCloseTo((4 * 512) / 2800, 9); // a float32 matmul of the [1, 512] row: 4 x max(N, 64)
    const [mul, add] = placed.filter((q) => q.engine === "Vector");
    expect(mul.durUs).toBeCloseTo(512 / 1120, 9); // x from SBUF, the broadcast from PSUM: N
    expect(add.durUs).toBeCloseTo((1024 + 100) / 1120, 9); // both in SBUF: 2N, +100 reading the previous result
  });

  test("a per-partition scalar operand is not a second input tile (tensor_scalar: N cycles); an in-place update reads two (2N)", () => {
    const p = profile(`
@nki.jit
def k(a, s):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  sc = nl.load(s)
  acc = nl.zeros((128, 512), dtype=nl.float32)
  y = nisa.tensor_scalar(x, nl.multiply, sc)
  acc += x
  nl.store(out, nl.add(acc, y))
  return out
`, "k", [T([128, 512]), T([128, 1])]);
    const vector = p.instances[0].timeline.placed.filter((q) => q.engine === "Vector");
    expect(vector.map((q) => [q.instruction.name, q.instruction.inputs])).toEqual([["nisa.tensor_scalar", 1], ["operator += (nl.add)", 2], ["nl.add", 2]]);
    expect(vector[0].durUs).toBeCloseTo(512 / 1120, 9);
  });

  const LOADS = (indent: string) => `${indent}x = nl.load(a)\n${indent}y = nl.load(b)\n`;
  test("work an unrolled loop repeats on unchanged inputs is computed once; reloaded inputs make it new work", () => {
    const body = (hoisted: boolean) => `
@nki.jit
def k(a, b):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  acc = nl.zeros((128, 512), dtype=nl.float32)
${hoisted ? LOADS("  ") : ""}  for i in nl.affine_range(4):
${hoisted ? "" : LOADS("    ")}    xy = nisa.tensor_tensor(x, y, op=nl.multiply)
    acc += xy
  nl.store(out, acc)
  return out
`;
    const hoisted = profile(body(true), "k", [T([128, 512]), T([128, 512])]);
    const reloaded = profile(body(false), "k", [T([128, 512]), T([128, 512])]);
    expect(hoisted.instances[0].timeline.repeats).toBe(3);
    expect(reloaded.instances[0].timeline.repeats).toBe(0);
    const twoInputs = 1024 / 1120;
    expect(hoisted.busyUs.Vector).toBeCloseTo(5 * twoInputs + 4 * 100 / 1120, 9); // one multiply, four accumulations (each reads the one before)
    expect(reloaded.busyUs.Vector - hoisted.busyUs.Vector).toBeCloseTo(3 * twoInputs, 1);
    // The accumulation of a repeat waits for the multiply it repeats, not for an engine.
    const placed = hoisted.instances[0].timeline.placed;
    const repeat = placed.find((q) => q.repeatOf >= 0)!;
    expect(repeat.durUs).toBe(0);
    expect(placed[repeat.repeatOf].instruction.site?.line).toBe(repeat.instruction.site?.line);
    expect(hoisted.trace.traceEvents.filter((e) => e.ph === "X" && e.cat === "Vector")).toHaveLength(5);
    expect(formatProfile(hoisted)).toContain("(3 instructions repeat an earlier one on unchanged inputs: computed once, not charged)");
    expect(formatProfile(reloaded)).not.toContain("repeat");
  });
});

/** The fused Mamba kernels of the tutorial (fused_mamba.rst) at batch 1, seq_len 512, state 16. */
function mamba(kernel: string, channels: number): KernelProfile {
  const path = "test/nki/corpus/aws-neuron-sdk/nki/examples/fused_mamba/mamba_nki_kernels.py";
  const program = loadProgram(path, { source: readFileSync(path, "utf8") });
  const R = (shape: number[]) => T(shape, (i) => ((i * 2654435761) % 1000) / 1000 - 0.5);
  return profileKernel(program, findKernel(program, kernel), [R([1, channels, 512]), R([1, channels, 512]), R([channels, 16]), R([1, 16, 512]), R([1, 16, 512])], {}, { checks: false }).profile;
}

const within = (ratio: number, lo: number, hi: number) => { expect(ratio).toBeGreaterThan(lo); expect(ratio).toBeLessThan(hi); };

describe("the NKI docs' own figures (docs/cost-model.md, 'Against the NKI docs' own figures'): each within 1.5x", () => {
  const shape = { name: "nc_matmul", free: 512, inputs: 2, fp32Matmul: false, dmaBytes: 0, dmaBuffers: 0, engine: "Tensor" as const };
  const tflops = (fp32: boolean) => (128 * 128 * 512 * 2) / instructionCost({ ...shape, fp32Matmul: fp32 }, false).busyUs / 1e6;

  test("TensorE peaks (trainium_inferentia2_arch.rst: 92 TFLOPS bf16, 23 TFLOPS fp32) and the bf16 roofline threshold (matrix_multiplication.rst: 222 flops/byte)", () => {
    within(tflops(false) / 92, 0.95, 1.05);
    within(tflops(true) / 23, 0.95, 1.05);
    const dmaBytesPerS = COSTS.dmaEngineGiBps.value * COSTS.dmaEngines.value * 2 ** 30;
    const threshold = (tflops(false) * 1e12) / dmaBytesPerS;
    expect(threshold).toBeCloseTo(198, 0);
    within(threshold / 222, 1 / 1.5, 1.5);
  });

  test("fused Mamba v1 at channels 256 (the toy shape): 172.93 µs on trn1, VectorE-bound (the tutorial: 98.71 % busy)", () => {
    const p = mamba("mamba_v1", 256);
    within(p.totalUs / 172.93, 1 / 1.5, 1.5);
    expect(p.busyUs.Vector / p.totalUs).toBeGreaterThan(0.85);
  }, 60000);

  test("fused Mamba at channels 4096: v1 2.34 ms, v2 1.61 ms; v2 faster by the VectorE work it hoists (the tutorial: 31 %)", () => {
    const v1 = mamba("mamba_v1", 4096), v2 = mamba("mamba_v2", 4096);
    within(v1.totalUs / 2340, 1 / 1.5, 1.5);
    within(v2.totalUs / 1610, 1 / 1.5, 1.5);
    // The same instructions on VectorE but one delta * u per state and channel tile: 15 of every 16 are repeats.
    expect(v2.instances[0].timeline.repeats).toBe(32 * 15);
    expect(v1.instances[0].timeline.repeats).toBe(0);
    within(v1.totalUs / v2.totalUs, 1.15, 1.6);
  }, 120000);
});
