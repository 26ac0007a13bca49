// Estimated device time: a cost model of the GpSimd engine that turns what a
// launch did (the counters each core kept, the bytes of a returned tensor)
// into the time the same launch would take on a NeuronCore-v2. It is an
// estimate, not a measurement: it depends only on counted events, never on
// this machine's wall time, so it is the same on every run and every machine.
// docs/cost-model.md derives the constants and states how well they
// reproduce the seeds' published numbers (host/profiling/cost-calibration.ts).
import type { CoreCounters } from "./trace.js";

/** The constants of the model. Times in ns, bandwidths in bytes per ns (= GB/s). */
export interface CostModel {
  /** Fixed cost of one operator launch on the engine; the cores of a multicore launch start together. */
  launchNs: number;
  /** One element-wise accessor read or write: a round trip from the core to HBM. Fitted (W3 element-wise vs TCM). */
  elementAccessNs: number;
  /** One stream accessor read() or write(): a load or store in the 4 KB TCM cache, its refills amortised. Assumed. */
  streamAccessNs: number;
  /** Fixed cost of one tensor_to_tcm or tcm_to_tensor call (setting up the transfer). Assumed. */
  tcmCopyCallNs: number;
  /** Bytes one core moves per ns with TCM copies. Fitted (W1). */
  tcmCopyBytesPerNs: number;
  /** Bytes per ns of plain stores from a core to HBM: fills of kernel-made tensors (zeros, full, ...) and the copy of a returned tensor. Fitted (W3 TCM vs multicore). */
  hbmStoreBytesPerNs: number;
  /** HBM bytes per ns shared by all cores: a floor under a launch's kernel time, whatever the number of cores. Assumed. */
  hbmBytesPerNs: number;
  /** Compute per 4-byte word a core brings into TCM (the kernel works on what it copies in). Assumed. */
  computeNsPerWord: number;
  /** One printf call (formatted into the ring). Assumed. */
  printfNs: number;
}

/**
 * The GpSimd engine, calibrated on the seeds' numbers (docs/cost-model.md): the fitted constants are
 * rounded results of host/profiling/cost-calibration.ts, the assumed ones are stated there with their reasons.
 */
export const GPSIMD_COST_MODEL: Readonly<CostModel> = Object.freeze({
  launchNs: 5_000,
  elementAccessNs: 242,
  streamAccessNs: 2,
  tcmCopyCallNs: 20,
  tcmCopyBytesPerNs: 33.5,
  hbmStoreBytesPerNs: 3.07,
  hbmBytesPerNs: 400,
  computeNsPerWord: 0.05,
  printfNs: 2_000,
});

/** What one launch did, as the cost model reads it. */
export interface LaunchCounts {
  /** One entry per core that ran the kernel. */
  cores: CoreCounters[];
  /** Bytes the runtime copied from a tensor the kernel returned into the output (0 with get_dst_tensor()). */
  returnedBytes: number;
}

/** One core's estimated time, by cause (ns). */
export interface CoreEstimate {
  core: number;
  totalNs: number;
  elementwiseNs: number;
  streamNs: number;
  tcmCopyNs: number;
  computeNs: number;
  fillNs: number;
  printfNs: number;
}

/** The estimated device time of one launch (ns). */
export interface DeviceEstimate {
  /** launch + kernel + returned-tensor copy. */
  totalNs: number;
  launchNs: number;
  /** The slowest core, or the HBM floor if that is higher. */
  kernelNs: number;
  /** Copying a returned tensor into the output (single-core kernels that do not write get_dst_tensor()). */
  returnCopyNs: number;
  /** Every core's HBM bytes over the shared bandwidth. */
  hbmFloorNs: number;
  /** What decides kernelNs: "core <k>" or "HBM bandwidth". */
  bound: string;
  /** Slowest core over the mean of the cores (1 = balanced). */
  imbalance: number;
  cores: CoreEstimate[];
}

/** Estimated time of one core's work. */
export function estimateCore(core: number, c: CoreCounters, m: CostModel = GPSIMD_COST_MODEL): CoreEstimate {
  const elementwiseNs = (c.elemReads + c.elemWrites) * m.elementAccessNs;
  const streamNs = (c.streamReads + c.streamWrites) * m.streamAccessNs;
  const tcmCopyNs = (c.tcmInCalls + c.tcmOutCalls) * m.tcmCopyCallNs + (c.tcmInBytes + c.tcmOutBytes) / m.tcmCopyBytesPerNs;
  const computeNs = (c.tcmInBytes / 4) * m.computeNsPerWord;
  const fillNs = c.fillBytes / m.hbmStoreBytesPerNs;
  const printfNs = c.printfCalls * m.printfNs;
  return { core, totalNs: elementwiseNs + streamNs + tcmCopyNs + computeNs + fillNs + printfNs, elementwiseNs, streamNs, tcmCopyNs, computeNs, fillNs, printfNs };
}

/** Estimated device time of one launch. */
export function estimateLaunch(counts: LaunchCounts, m: CostModel = GPSIMD_COST_MODEL): DeviceEstimate {
  const cores = counts.cores.map((c, k) => estimateCore(k, c, m));
  const slowest = cores.reduce((a, b) => (b.totalNs > a.totalNs ? b : a), cores[0] ?? estimateCore(0, zeroCounters(), m));
  const hbmBytes = counts.cores.reduce((sum, c) => sum + c.tcmInBytes + c.tcmOutBytes + c.fillBytes, 0);
  const hbmFloorNs = hbmBytes / m.hbmBytesPerNs;
  const kernelNs = Math.max(slowest.totalNs, hbmFloorNs);
  const returnCopyNs = (2 * counts.returnedBytes) / m.hbmStoreBytesPerNs; // each byte loaded and stored
  const mean = cores.reduce((sum, c) => sum + c.totalNs, 0) / Math.max(1, cores.length);
  return {
    totalNs: m.launchNs + kernelNs + returnCopyNs, launchNs: m.launchNs, kernelNs, returnCopyNs, hbmFloorNs,
    bound: hbmFloorNs > slowest.totalNs ? "HBM bandwidth" : `core ${slowest.core}`,
    imbalance: mean > 0 ? slowest.totalNs / mean : 1, cores,
  };
}

/** Counters of a core that did nothing. */
export function zeroCounters(): CoreCounters {
  return { tcmInBytes: 0, tcmOutBytes: 0, tcmInCalls: 0, tcmOutCalls: 0, elemReads: 0, elemWrites: 0, streamReads: 0, streamWrites: 0, printfCalls: 0, fillBytes: 0 };
}
