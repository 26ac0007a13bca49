// Calibration of the cost model (cost-model.ts) on the seeds' published
// numbers: what each seed kernel does, counted from its C++ source; the fit of
// the two costs no document gives on the two single-core inference figures;
// and the predictions for the figures held out of the fit. docs/cost-model.md
// walks through it; test/cost-model.test.ts pins the hold-out errors.
import { GPSIMD_COST_MODEL, estimateLaunch, zeroCounters, type CostModel, type LaunchCounts } from "./cost-model.js";
import type { CoreCounters } from "./trace.js";
import { INSTRUCTION_CLASSES, type InstructionCounts } from "../../build/count-names.js";

/** A published end-to-end figure and the GpSimd launches of one step of it. */
export interface CalibrationPoint {
  name: string;
  /** The figure as the seed states it. */
  published: string;
  /** ns per step (W3, training) or per call (W1). */
  publishedNs: number;
  /** The GpSimd launches of one step, counted from the seed kernels' sources. */
  launches: LaunchCounts[];
  /** An end-to-end torch-xla step: the host floor (framework, matmuls, transfers) is part of the figure. */
  endToEnd: boolean;
  /** "fit": used to fit; "hold-out": predicted; "shown": predicted, known not to be comparable (see why). */
  role: "fit" | "hold-out" | "shown";
  /** For "shown": why the figure cannot be compared with a device-time estimate. */
  why?: string;
}

const F32 = 4;
const CHUNK = 1024; // the seeds' TCM buffer, in floats

/** W3 (custom-cpp-ops-perf-optimization): ReLU after the two hidden layers, batch 32: [32, 4096] and [32, 2048]. */
export const W3_RELU_SIZES = [32 * 4096, 32 * 2048];
/** The training tutorial's MLP (784-120-84-10, batch 32): ReLU after the two hidden layers, forward and backward. */
export const TRAINING_RELU_SIZES = [32 * 120, 32 * 84];
/** Share of the element-wise ReLU's inputs that are positive: the seed's relu.cpp reads those twice (compare, then copy). */
export const POSITIVE_SHARE = 0.5;

function counters(partial: Partial<CoreCounters>): CoreCounters {
  return { ...zeroCounters(), ...partial };
}

/**
 * Executed instructions of the seeds' kernels, counted by build/count-pass.ts (test/cost-model.test.ts counts them
 * again and fails if they change): per 1024-float chunk of relu-tcm.cpp and relu-multicore.cpp as clang compiles
 * them (a v128 loop: per 4 elements one load, one store, a compare and a select; the two copies are library calls);
 * per element of the element-wise relu.cpp, through its line-by-line port ops/relu/elementwise.ts (the accessor
 * accesses themselves are library calls, elemReads + elemWrites); per row of 256 boxes of the blog's giou.cpp as
 * clang compiles it (v128 code: two f32x4.div per 4 boxes).
 */
export const SEED_INSTRUCTIONS = {
  reluTcmPerChunk: { scalar: 527, vector: 512, memory: 512, branch: 259, divide: 0, libraryCall: 2 },
  reluMulticorePerChunk: { scalar: 528, vector: 512, memory: 512, branch: 259, divide: 0, libraryCall: 2 },
  // One memory instruction of the kernel's loop is the inlined accessor's own (the kernel library's: not counted as the
  // kernel's), and the default mode's raw-store test adds a branch: the same 15 cycles per element as before it.
  reluElementwisePerElement: { scalar: 8, vector: 0, memory: 1, branch: 6, divide: 0, libraryCall: 0 },
  giouPerRow: { scalar: 269, vector: 3712, memory: 576, branch: 67, divide: 128, libraryCall: 3 },
} as const satisfies Record<string, InstructionCounts>;

/** counts x units, with `calls` more library calls. */
function times(counts: InstructionCounts, units: number, calls = 0): InstructionCounts {
  const out = Object.fromEntries(INSTRUCTION_CLASSES.map((c) => [c, counts[c] * units])) as InstructionCounts;
  out.libraryCall += calls;
  return out;
}

/** relu.cpp (element-wise): zeros(...) output, t_in_acc[i][j] read once or twice, written once, returned (copied into the output). */
export function seedReluElementwise(n: number, positiveShare = POSITIVE_SHARE): LaunchCounts {
  const core = counters({ fillBytes: n * F32, elemReads: n * (1 + positiveShare), elemWrites: n });
  return { cores: [core], returnedBytes: n * F32, instructions: [times(SEED_INSTRUCTIONS.reluElementwisePerElement, n, core.elemReads + core.elemWrites)] };
}

/** relu.cpp's relu_backward (element-wise): zeros(...) output, t_in read once, t_grad read where t_in > 0, written once, returned. */
export function seedReluBackwardElementwise(n: number, positiveShare = POSITIVE_SHARE): LaunchCounts {
  return seedReluElementwise(n, positiveShare);
}

/** neuron-tcm/relu.cpp: zeros(...) output, 1024-float chunks in and out of TCM, returned. */
export function seedReluTcm(n: number): LaunchCounts {
  const chunks = Math.ceil(n / CHUNK);
  return {
    cores: [counters({ fillBytes: n * F32, tcmInCalls: chunks, tcmInBytes: n * F32, tcmOutCalls: chunks, tcmOutBytes: n * F32 })],
    returnedBytes: n * F32, instructions: [times(SEED_INSTRUCTIONS.reluTcmPerChunk, chunks)],
  };
}

/** neuron-multicore/relu.cpp on 8 cores (n divisible by 8, as in W3): each core its n/8 in 1024-float chunks, into get_dst_tensor(). */
export function seedReluMulticore(n: number, cores = 8): LaunchCounts {
  const part = n / cores;
  const chunks = Math.ceil(part / CHUNK);
  const core = counters({ tcmInCalls: chunks, tcmInBytes: part * F32, tcmOutCalls: chunks, tcmOutBytes: part * F32 });
  return {
    cores: Array.from({ length: cores }, () => ({ ...core })), returnedBytes: 0,
    instructions: Array.from({ length: cores }, () => times(SEED_INSTRUCTIONS.reluMulticorePerChunk, chunks)),
  };
}

/** The blog's multicore giou.cpp at W1 (1024 x 256 boxes, 8 cores): per row of 256 boxes, two 4 KB copies in and one 1 KB copy out. */
export function seedGiouMulticore(samples = 1024, boxes = 256, cores = 8): LaunchCounts {
  const rows = Math.floor(samples / cores);
  const core = counters({ tcmInCalls: 2 * rows, tcmInBytes: 2 * rows * boxes * 4 * F32, tcmOutCalls: rows, tcmOutBytes: rows * boxes * F32 });
  return {
    cores: Array.from({ length: cores }, () => ({ ...core })), returnedBytes: 0,
    instructions: Array.from({ length: cores }, () => times(SEED_INSTRUCTIONS.giouPerRow, (rows * boxes) / 256)),
  };
}

/** The seeds' GpSimd figures: two to fit, two held out, one shown. */
export const CALIBRATION_POINTS: CalibrationPoint[] = [
  { name: "W3 MLP inference, element-wise ReLU (trn1)", published: "8.1 iter/s (8.098649744235592)", publishedNs: 1e9 / 8.098649744235592, launches: W3_RELU_SIZES.map((n) => seedReluElementwise(n)), endToEnd: true, role: "fit" },
  { name: "W3 MLP inference, TCM ReLU (trn1)", published: "220.7 iter/s (220.73800131604054)", publishedNs: 1e9 / 220.73800131604054, launches: W3_RELU_SIZES.map(seedReluTcm), endToEnd: true, role: "fit" },
  { name: "W3 MLP inference, TCM + multicore ReLU (trn1)", published: "269.9 iter/s (269.936119707143)", publishedNs: 1e9 / 269.936119707143, launches: W3_RELU_SIZES.map((n) => seedReluMulticore(n)), endToEnd: true, role: "hold-out" },
  {
    name: "MLP training, element-wise ReLU forward and backward (trn1)", published: "117.47 iter/s", publishedNs: 1e9 / 117.47,
    launches: TRAINING_RELU_SIZES.flatMap((n) => [seedReluElementwise(n), seedReluBackwardElementwise(n)]), endToEnd: true, role: "hold-out",
  },
  {
    name: "W1 GIOU 1024 x 256, multicore C++ kernel (blog)", published: "0.061 ms", publishedNs: 61_000, launches: [seedGiouMulticore()], endToEnd: false, role: "shown",
    why: "timed without device synchronisation on lazy torch-xla tensors: 9.4 MB moved in 0.061 ms is 155 GB/s with no DMA fixed cost and no compute, more than 8 cores' DMA allows",
  },
];

/** The model's time for a point (ns): its launches, plus the host floor for end-to-end figures. */
export function pointEstimateNs(point: CalibrationPoint, model: CostModel, hostFloorNs: number): number {
  return point.launches.reduce((sum, l) => sum + estimateLaunch(l, model).totalNs, 0) + (point.endToEnd ? hostFloorNs : 0);
}

/** A fit and what it predicts for every point. */
export interface Fit {
  model: CostModel;
  /** The host floor of one end-to-end step (torch-xla, the model's matmuls, transfers): not GpSimd time. */
  hostFloorNs: number;
  points: { name: string; role: CalibrationPoint["role"]; publishedNs: number; estimateNs: number; relative: number; why?: string }[];
}

/**
 * Fits elementAccessNs and the host floor so that the model meets the two "fit" points exactly; every other
 * constant stays as documented or assumed. Both unknowns enter the model linearly, so the fit is a 2 x 2 solve.
 */
export function fitCostModel(assumed: CostModel = GPSIMD_COST_MODEL, points: CalibrationPoint[] = CALIBRATION_POINTS): Fit {
  const fit = points.filter((p) => p.role === "fit");
  if (fit.length !== 2) throw new Error(`fitCostModel: expected 2 fit points, got ${fit.length}`);
  // estimate(e, h) = base + e * accesses + h (end-to-end): linear in e and h.
  const rows = fit.map((p) => {
    const base = pointEstimateNs(p, { ...assumed, elementAccessNs: 0 }, 0);
    const accesses = p.launches.reduce((s, l) => s + l.cores.reduce((c, k) => c + k.elemReads + k.elemWrites, 0), 0);
    return { base, accesses, host: p.endToEnd ? 1 : 0, target: p.publishedNs };
  });
  const [a, b] = rows;
  const det = a.accesses * b.host - b.accesses * a.host;
  const e = ((a.target - a.base) * b.host - (b.target - b.base) * a.host) / det;
  const h = (a.accesses * (b.target - b.base) - b.accesses * (a.target - a.base)) / det;
  const model = { ...assumed, elementAccessNs: e };
  return { model, hostFloorNs: h, points: predictions(model, h, points) };
}

/** The model's prediction for each point, with its relative error (estimate / published - 1). */
export function predictions(model: CostModel, hostFloorNs: number, points: CalibrationPoint[] = CALIBRATION_POINTS): Fit["points"] {
  return points.map((p) => {
    const estimateNs = pointEstimateNs(p, model, hostFloorNs);
    return { name: p.name, role: p.role, publishedNs: p.publishedNs, estimateNs, relative: estimateNs / p.publishedNs - 1, ...(p.why ? { why: p.why } : {}) };
  });
}

/** The host floor of one end-to-end trn1 step (fitted, rounded): not GpSimd time, needed to turn estimates into iter/s. */
export const HOST_FLOOR_NS = 3_701_000;

/** The estimated iter/s of the training tutorial's step on trn1 (a hold-out: not used in the fit). */
export function trainingEstimateIterPerSecond(model: CostModel = GPSIMD_COST_MODEL, hostFloorNs = HOST_FLOOR_NS): number {
  return 1e9 / pointEstimateNs(CALIBRATION_POINTS.find((p) => p.name.startsWith("MLP training"))!, model, hostFloorNs);
}
