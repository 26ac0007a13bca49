// Estimated device time: what a launch did (the counters each core kept, the
// bytes of a returned tensor) turned into the time the same launch would take
// on a NeuronCore's GpSimd engine. The hardware constants are the documented
// figures of host/profiling/device.ts; two costs have no public figure and are
// fitted to the seeds' single-core inference numbers (cost-calibration.ts):
// an element-wise accessor access, and the fixed cost of an end-to-end step.
// The estimate depends only on counted events, never on this machine's clock.
// docs/cost-model.md derives it and shows the hold-out predictions.
import { TRN1, type DeviceProfile } from "./device.js";
import type { CoreCounters } from "./trace.js";
import { computeCycles, cyclesByClass } from "./compute-cycles.js";
import type { InstructionCounts } from "../../build/count-names.js";

/** The model: a device and the costs no document gives. */
export interface CostModel {
  device: DeviceProfile;
  /** One element-wise accessor read or write: a round trip from the core to HBM over the low-bandwidth interface. Fitted. */
  elementAccessNs: number;
  /** Fixed cost of one operator launch on the engine (its cores start together). No public figure; not separable from the host floor in the published end-to-end times: assumed (docs/cost-model.md). */
  launchNs: number;
  /** Cycles of one stream accessor read() or write() beyond its 4 KB refills and flushes (a TCM load or store). */
  streamAccessCycles: number;
  /** Cycles of one printf (formatting into the ring). Assumed. */
  printfCycles: number;
}

/** The GpSimd engine of trn1/inf2 with the fitted element-wise access cost (rounded result of fitCostModel()). */
export const GPSIMD_COST_MODEL: Readonly<CostModel> = Object.freeze({
  device: TRN1,
  elementAccessNs: 236,
  launchNs: 10_000,
  streamAccessCycles: 1,
  printfCycles: 2_000,
});

/** The same model on another device (the fitted costs carried over). */
export function onDevice(device: DeviceProfile, m: CostModel = GPSIMD_COST_MODEL): CostModel {
  return { ...m, device };
}

/** What one launch did, as the cost model reads it. */
export interface LaunchCounts {
  /** One entry per core that ran the kernel. */
  cores: CoreCounters[];
  /** Bytes the runtime copied from a tensor the kernel returned into the output (0 with get_dst_tensor()). */
  returnedBytes: number;
  /** Executed instructions of each core (same order as cores) when counting was on; absent or null: compute from TCM bytes. */
  instructions?: (InstructionCounts | null)[];
}

/** Where a compute term comes from: the core's counted instructions, or (counting off) one vector operation per 16 words copied into TCM. */
export type ComputeSource = "counted instructions" | "TCM bytes (counting off)";

/** One core's estimated time, by where it goes (ns). */
export interface CoreEstimate {
  core: number;
  totalNs: number;
  /** Element-wise accessor round trips to HBM, and stream accessor element accesses. */
  accessorNs: number;
  /** DMA transfers: TCM copies, stream refills and flushes, fills of kernel-made tensors. */
  dmaNs: number;
  /** The core's own instructions (counted, or estimated from TCM bytes: computeFrom), and printf formatting. */
  computeNs: number;
  computeFrom: ComputeSource;
  /** With counted instructions: what was executed, and its ns by class (compute-cycles.ts). */
  instructions?: InstructionCounts;
  computeNsByClass?: InstructionCounts;
}

/** The estimated device time of one launch (ns). */
export interface DeviceEstimate {
  device: string;
  /** launch + kernel + returned-tensor copy. */
  totalNs: number;
  launchNs: number;
  /** The slowest core, or the HBM floor if that is higher. */
  kernelNs: number;
  /** Copying a returned tensor into the output (single-core kernels that do not write get_dst_tensor()). */
  returnCopyNs: number;
  /** Every core's HBM bytes over the NeuronCore's share of HBM bandwidth. */
  hbmFloorNs: number;
  /** What decides kernelNs: "core <k>" or "HBM bandwidth". */
  bound: string;
  /** What bounds the slowest core: "accessor", "DMA" or "compute". */
  limitedBy: "accessor" | "DMA" | "compute";
  /** Slowest core over the mean of the cores (1 = balanced). */
  imbalance: number;
  /** The slowest core's time over the mean core's (ns): how long it holds the others back. */
  heldBackNs: number;
  /** "counted instructions" when every core's were counted, else "TCM bytes (counting off)". */
  computeFrom: ComputeSource;
  cores: CoreEstimate[];
}

const STREAM_CACHE_BYTES = 4096;

/** ns of n DMA transfers moving `bytes` in all, on one core. */
function dma(d: DeviceProfile, transfers: number, bytes: number): number {
  return transfers * d.dmaFixedNs + bytes / d.dmaBytesPerNs;
}

/** Estimated time of one core's work; its compute from `instructions` when given (counted), else from the bytes it copied into TCM. */
export function estimateCore(core: number, c: CoreCounters, m: CostModel = GPSIMD_COST_MODEL, instructions: InstructionCounts | null = null): CoreEstimate {
  const d = m.device;
  const streamAccesses = c.streamReads + c.streamWrites;
  // A stream moves its elements through a 4 KB TCM cache: one DMA per 4 KB (elements counted as 4 bytes).
  const streamBytes = streamAccesses * 4;
  const accessorNs = (c.elemReads + c.elemWrites) * m.elementAccessNs + (streamAccesses * m.streamAccessCycles) / d.clockGHz;
  const dmaNs = dma(d, c.tcmInCalls + c.tcmOutCalls, c.tcmInBytes + c.tcmOutBytes)
    + dma(d, Math.ceil(streamBytes / STREAM_CACHE_BYTES), streamBytes)
    + (c.fillBytes > 0 ? dma(d, 1, c.fillBytes) : 0);
  const printfNs = (c.printfCalls * m.printfCycles) / d.clockGHz;
  if (instructions) {
    const computeNsByClass = cyclesByClass(instructions);
    for (const k of Object.keys(computeNsByClass) as (keyof InstructionCounts)[]) computeNsByClass[k] /= d.clockGHz;
    const computeNs = computeCycles(instructions) / d.clockGHz + printfNs;
    return { core, totalNs: accessorNs + dmaNs + computeNs, accessorNs, dmaNs, computeNs, computeFrom: "counted instructions", instructions, computeNsByClass };
  }
  // Counting off: each word copied into TCM is worked on once by the vector unit (16 fp32 lanes a cycle): see docs/cost-model.md.
  const computeNs = (c.tcmInBytes / 4 / d.lanesF32) / d.clockGHz + printfNs;
  return { core, totalNs: accessorNs + dmaNs + computeNs, accessorNs, dmaNs, computeNs, computeFrom: "TCM bytes (counting off)" };
}

/** Estimated device time of one launch. */
export function estimateLaunch(counts: LaunchCounts, m: CostModel = GPSIMD_COST_MODEL): DeviceEstimate {
  const cores = counts.cores.map((c, k) => estimateCore(k, c, m, counts.instructions?.[k] ?? null));
  const slowest = cores.reduce((a, b) => (b.totalNs > a.totalNs ? b : a), cores[0] ?? estimateCore(0, zeroCounters(), m));
  const hbmBytes = counts.cores.reduce((sum, c) => sum + c.tcmInBytes + c.tcmOutBytes + c.fillBytes + 4 * (c.streamReads + c.streamWrites), 0);
  const hbmFloorNs = hbmBytes / m.device.hbmBytesPerNs;
  const kernelNs = Math.max(slowest.totalNs, hbmFloorNs);
  const returnCopyNs = counts.returnedBytes > 0 ? dma(m.device, 1, counts.returnedBytes) : 0;
  const mean = cores.reduce((sum, c) => sum + c.totalNs, 0) / Math.max(1, cores.length);
  const parts = { accessor: slowest.accessorNs, DMA: slowest.dmaNs, compute: slowest.computeNs };
  const limitedBy = (Object.keys(parts) as (keyof typeof parts)[]).reduce((a, b) => (parts[b] > parts[a] ? b : a));
  return {
    device: m.device.name, totalNs: m.launchNs + kernelNs + returnCopyNs, launchNs: m.launchNs, kernelNs, returnCopyNs, hbmFloorNs,
    bound: hbmFloorNs > slowest.totalNs ? "HBM bandwidth" : `core ${slowest.core}`, limitedBy,
    imbalance: mean > 0 ? slowest.totalNs / mean : 1, heldBackNs: slowest.totalNs - mean, cores,
    computeFrom: cores.length > 0 && cores.every((c) => c.computeFrom === "counted instructions") ? "counted instructions" : "TCM bytes (counting off)",
  };
}

/** Counters of a core that did nothing. */
export function zeroCounters(): CoreCounters {
  return { tcmInBytes: 0, tcmOutBytes: 0, tcmInCalls: 0, tcmOutCalls: 0, elemReads: 0, elemWrites: 0, streamReads: 0, streamWrites: 0, printfCalls: 0, fillBytes: 0 };
}
