// Calibration of the cost model (host/profiling/cost-model.ts) on the seeds' published
// numbers: what each seed kernel does, counted from its C++ source, and the
// fit of the four fitted constants. docs/cost-model.md walks through it.
import { GPSIMD_COST_MODEL, estimateLaunch, zeroCounters, type CostModel, type LaunchCounts } from "./cost-model.js";
import type { CoreCounters } from "./trace.js";

/** A published figure and the launches behind it. */
export interface CalibrationPoint {
  name: string;
  /** The figure as the seed states it. */
  published: string;
  /** The same, as ns per iteration (W3) or per call (W1). */
  publishedNs: number;
  /** The GpSimd launches of one iteration or call, counted from the seed kernel's source. */
  launches: LaunchCounts[];
  /** W3 figures time a whole MLP inference iteration: the rest of it (matmuls, log-softmax, runtime) is a fitted nuisance, not a GpSimd cost. */
  mlpIteration: boolean;
}

const F32 = 4;
const CHUNK = 1024; // the seeds' TCM buffer, in floats

/** W3 (custom-cpp-ops-perf-optimization): ReLU after the two hidden layers, batch 32: [32, 4096] and [32, 2048]. */
export const W3_RELU_SIZES = [32 * 4096, 32 * 2048];
/** Share of the element-wise ReLU's inputs that are positive: the seed's relu.cpp reads those twice (compare, then copy). */
export const W3_POSITIVE_SHARE = 0.5;

function counters(partial: Partial<CoreCounters>): CoreCounters {
  return { ...zeroCounters(), ...partial };
}

/** relu.cpp (element-wise): zeros(...) output, acc[i][j] read once or twice, written once, returned (copied into the output). */
export function seedReluElementwise(n: number, positiveShare = W3_POSITIVE_SHARE): LaunchCounts {
  return { cores: [counters({ fillBytes: n * F32, elemReads: n * (1 + positiveShare), elemWrites: n })], returnedBytes: n * F32 };
}

/** relu.cpp's relu_backward (element-wise): zeros(...) output, t_in read once, t_grad read where t_in > 0, written once, returned. */
export function seedReluBackwardElementwise(n: number, positiveShare = W3_POSITIVE_SHARE): LaunchCounts {
  return seedReluElementwise(n, positiveShare);
}

/** neuron-tcm/relu.cpp: zeros(...) output, 1024-float chunks in and out of TCM, returned. */
export function seedReluTcm(n: number): LaunchCounts {
  const chunks = Math.ceil(n / CHUNK);
  return {
    cores: [counters({ fillBytes: n * F32, tcmInCalls: chunks, tcmInBytes: n * F32, tcmOutCalls: chunks, tcmOutBytes: n * F32 })],
    returnedBytes: n * F32,
  };
}

/** neuron-multicore/relu.cpp on 8 cores (n divisible by 8, as in W3): each core its n/8 in 1024-float chunks, into get_dst_tensor(). */
export function seedReluMulticore(n: number, cores = 8): LaunchCounts {
  const part = n / cores;
  const chunks = Math.ceil(part / CHUNK);
  const core = counters({ tcmInCalls: chunks, tcmInBytes: part * F32, tcmOutCalls: chunks, tcmOutBytes: part * F32 });
  return { cores: Array.from({ length: cores }, () => ({ ...core })), returnedBytes: 0 };
}

/** The blog's multicore giou.cpp at W1 (1024 x 256 boxes, 8 cores): per row of 256 boxes, two 4 KB copies in and one 1 KB copy out. */
export function seedGiouMulticore(samples = 1024, boxes = 256, cores = 8): LaunchCounts {
  const rows = Math.floor(samples / cores);
  const core = counters({ tcmInCalls: 2 * rows, tcmInBytes: 2 * rows * boxes * 4 * F32, tcmOutCalls: rows, tcmOutBytes: rows * boxes * F32 });
  return { cores: Array.from({ length: cores }, () => ({ ...core })), returnedBytes: 0 };
}

/** The seeds' GpSimd figures. */
export const CALIBRATION_POINTS: CalibrationPoint[] = [
  { name: "W3 MLP inference, element-wise ReLU", published: "8.1 iter/s (8.098649744235592)", publishedNs: 1e9 / 8.098649744235592, launches: W3_RELU_SIZES.map((n) => seedReluElementwise(n)), mlpIteration: true },
  { name: "W3 MLP inference, TCM ReLU", published: "220.7 iter/s (220.73800131604054)", publishedNs: 1e9 / 220.73800131604054, launches: W3_RELU_SIZES.map(seedReluTcm), mlpIteration: true },
  { name: "W3 MLP inference, TCM + multicore ReLU", published: "269.9 iter/s (269.936119707143)", publishedNs: 1e9 / 269.936119707143, launches: W3_RELU_SIZES.map((n) => seedReluMulticore(n)), mlpIteration: true },
  { name: "W1 GIOU 1024 x 256, multicore C++ kernel", published: "0.061 ms", publishedNs: 61_000, launches: [seedGiouMulticore()], mlpIteration: false },
];

/** The model's time for a point (ns): its launches, plus the rest of the iteration for W3. */
export function pointEstimateNs(point: CalibrationPoint, model: CostModel, restNs: number): number {
  return point.launches.reduce((sum, l) => sum + estimateLaunch(l, model).totalNs, 0) + (point.mlpIteration ? restNs : 0);
}

/** The fitted unknowns, in the form in which the model is linear in them. */
interface Unknowns { restNs: number; elementAccessNs: number; tcmCopyNsPerByte: number; hbmStoreNsPerByte: number; }

function apply(assumed: CostModel, u: Unknowns): CostModel {
  return { ...assumed, elementAccessNs: u.elementAccessNs, tcmCopyBytesPerNs: 1 / u.tcmCopyNsPerByte, hbmStoreBytesPerNs: 1 / u.hbmStoreNsPerByte };
}

/** Solves a small dense linear system a x = b (Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r][col] / m[col][col];
      for (let c = col; c <= n; c++) m[r][c] -= f * m[col][c];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** The result of a fit: the model, the W3 nuisance, and each point's relative residual (estimate / published - 1). */
export interface Fit { model: CostModel; restNs: number; residuals: { name: string; publishedNs: number; estimateNs: number; relative: number }[]; }

/**
 * Fits elementAccessNs, tcmCopyBytesPerNs, hbmStoreBytesPerNs and the W3 rest so that the model meets the four
 * published figures, the other constants held at their assumed values. The model is linear in the unknowns
 * (as parametrised) while the same core stays the slowest, so Newton's method lands in a step or two.
 */
export function fitCostModel(assumed: CostModel = GPSIMD_COST_MODEL, points: CalibrationPoint[] = CALIBRATION_POINTS): Fit {
  let u: Unknowns = { restNs: 1e6, elementAccessNs: 100, tcmCopyNsPerByte: 0.05, hbmStoreNsPerByte: 0.5 };
  const keys = Object.keys(u) as (keyof Unknowns)[];
  const residual = (x: Unknowns) => points.map((p) => pointEstimateNs(p, apply(assumed, x), x.restNs) - p.publishedNs);
  for (let step = 0; step < 20; step++) {
    const r = residual(u);
    if (r.every((v, i) => Math.abs(v) < 1e-9 * points[i].publishedNs)) break;
    const jacobian = points.map(() => keys.map(() => 0));
    keys.forEach((k, j) => {
      const h = Math.abs(u[k]) * 1e-6 || 1e-9;
      const moved = residual({ ...u, [k]: u[k] + h });
      moved.forEach((v, i) => { jacobian[i][j] = (v - r[i]) / h; });
    });
    const delta = solve(jacobian, r.map((v) => -v));
    u = Object.fromEntries(keys.map((k, j) => [k, u[k] + delta[j]])) as unknown as Unknowns;
  }
  return { model: apply(assumed, u), restNs: u.restNs, residuals: residualsOf(apply(assumed, u), u.restNs, points) };
}

/** How far a model is from each published figure. */
export function residualsOf(model: CostModel, restNs: number, points: CalibrationPoint[] = CALIBRATION_POINTS): Fit["residuals"] {
  return points.map((p) => {
    const estimateNs = pointEstimateNs(p, model, restNs);
    return { name: p.name, publishedNs: p.publishedNs, estimateNs, relative: estimateNs / p.publishedNs - 1 };
  });
}

/** The rest of one W3 inference iteration on trn1 (fitted, rounded): not GpSimd time, needed to turn ReLU estimates into iter/s. */
export const W3_REST_NS = 3_686_500;
