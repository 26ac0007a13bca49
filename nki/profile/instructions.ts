// From the engine instructions a run issued to NKI instructions as a profile shows them: the engine
// instructions of one Python call are one NKI instruction (a scan issues one per column), placed on
// the engine NKI's compiler would use (an HBM operand: a DMA; matmul, transposes and partition
// broadcasts: TensorE; activations: ScalarE; iota, affine_select, memset: GpSimdE unless PSUM is
// involved; the rest: VectorE). An instruction given an allowed engine= (checks/engines.ts) is placed on
// that engine instead; a DMA stays a DMA (dma_copy's engine= only chooses who generates descriptors).
import type { SourceSite } from "../python/values.js";
import type { KernelRun } from "../machine/kernel-run.js";
import type { Access, InstructionEvent } from "../checks/recorder.js";
import type { EngineName, InstructionShape } from "./cost.js";
import { requestedEngine, type NkiEngine } from "../checks/engines.js";

export interface NkiInstruction extends InstructionShape {
  readonly site: SourceSite | undefined;
  readonly accesses: readonly Access[];
  readonly run: KernelRun;
  /** The on-chip tiles it reads as inputs (what `inputs` counts). */
  readonly inputTiles: readonly Access["storage"][];
  /** A partition broadcast (a [1, F] tile to [P, F]): a TensorE instruction whose result lands in PSUM. */
  readonly partitionBroadcast: boolean;
}

const TENSOR = /matmul|nc_transpose|^nl\.transpose|^nisa\.transpose/;
const SCALAR = /activation|^nl\.(exp|log|tanh|sigmoid|gelu\w*|silu\w*|sqrt|rsqrt|sin|cos|tan|arctan|erf\w*|softplus|mish|relu|square|softmax)\b|^operator - \(nl\.negative\)/;
const GPSIMD = /iota|affine_select|memset|^nl\.(zeros|ones|full)\b|shared_identity|local_gather/;

/** The profile's lane of each engine= choice that names a compute engine. */
const LANE_OF: Partial<Record<NkiEngine, EngineName>> = { tensor: "Tensor", vector: "Vector", scalar: "Scalar", gpsimd: "GpSimd" };

export function engineOf(name: string, accesses: readonly Access[], requested?: NkiEngine): EngineName {
  if (accesses.some((a) => a.storage.isHbm)) return "DMA";
  const lane = requested && LANE_OF[requested];
  if (lane) return lane;
  if (TENSOR.test(name) || isPartitionBroadcast(name, accesses)) return "Tensor";
  if (SCALAR.test(name)) return "Scalar";
  if (GPSIMD.test(name)) return accesses.some((a) => a.storage.kind === "psum") ? "Vector" : "GpSimd";
  return "Vector";
}

/**
 * A partition-axis broadcast (nl.broadcast_to of a one-partition tile): fused_mamba.rst, "partition-dim
 * broadcast often requires a separate instruction on TensorE" (free-axis broadcasts fold into the
 * instruction that uses them at no cost: those are operands read with a zero free stride, not this).
 */
function isPartitionBroadcast(name: string, accesses: readonly Access[]): boolean {
  return /broadcast_to/.test(name) && accesses.some((a) => a.kind === "read" && !a.storage.isHbm && a.strides[0] === 0 && (a.shape[0] ?? 1) > 1);
}

/** Groups a run's engine instructions by the Python call that issued them, in order. */
export function nkiInstructions(events: readonly InstructionEvent[]): NkiInstruction[] {
  const out: NkiInstruction[] = [];
  let group: InstructionEvent[] = [];
  const flush = () => { if (group.length) out.push(summarise(group)); group = []; };
  for (const e of events) {
    if (e.name === "nl.device_print") continue; // the simulator's print, not a device instruction
    if (group.length && (group[0].call !== e.call || group[0].run !== e.run)) flush();
    group.push(e);
  }
  flush();
  return withPsumInputs(out);
}

/**
 * Counts each instruction's inputs that sit in PSUM: PSUM tiles, and the results of partition broadcasts
 * (TensorE writes only to PSUM: trainium_inferentia2_arch.rst, "Near-memory accumulation in PSUM") until
 * something else overwrites them. VectorE's two-input cost depends on it (cost.ts).
 */
function withPsumInputs(list: NkiInstruction[]): NkiInstruction[] {
  const broadcastResults = new Set<Access["storage"]>();
  return list.map((ins) => {
    const psumInputs = ins.inputTiles.filter((s) => s.kind === "psum" || broadcastResults.has(s)).length;
    for (const a of ins.accesses) {
      if (a.kind === "read") continue;
      if (ins.partitionBroadcast) broadcastResults.add(a.storage); else broadcastResults.delete(a.storage);
    }
    return psumInputs ? { ...ins, psumInputs } : ins;
  });
}

function summarise(group: readonly InstructionEvent[]): NkiInstruction {
  const first = group[0];
  const accesses = group.flatMap((e) => e.accesses);
  const engine = engineOf(first.name, accesses, requestedEngine(first.call));
  const written = new Map<Access["storage"], { lo: number[]; hi: number[]; partitions: number }>();
  const read = new Set<Access["storage"]>();
  const overwritten = new Set<Access["storage"]>();
  let dmaBytes = 0, dmaBuffers = 0;
  for (const a of accesses) {
    if (a.kind !== "read") {
      // The union of the boxes one storage is written in (a scan's columns make one [P, F] box).
      const w = written.get(a.storage);
      const partitions = a.shape[0] ?? 1;
      if (!w) written.set(a.storage, { lo: [...a.region.lo], hi: [...a.region.hi], partitions });
      else a.region.lo.forEach((l, d) => { w.lo[d] = Math.min(w.lo[d], l); w.hi[d] = Math.max(w.hi[d], a.region.hi[d]); });
    }
    // A tile input: read (or updated in place: acc = acc + x reads acc), not a per-partition scalar
    // operand (one element per partition, broadcast along the free axes: tensor_scalar's operand, the
    // architecture guide's one-input case).
    if (a.kind !== "write" && !a.storage.isHbm && !isScalarOperand(a)) read.add(a.storage);
    if (a.kind === "write") overwritten.add(a.storage);
    if (engine === "DMA") {
      if (a.kind !== "read") dmaBytes += a.shape.reduce((p, q) => p * q, 1) * a.storage.dtype.bytes;
      dmaBuffers = Math.max(dmaBuffers, contiguousRuns(a));
    }
  }
  let free = 0;
  for (const w of written.values()) {
    const elements = w.lo.reduce((n, l, d) => n * Math.max(0, w.hi[d] - l), 1);
    free = Math.max(free, elements / Math.max(1, Math.min(w.partitions, elements)));
  }
  // What the call writes and also reads (a scan's previous column, an activation's temporary) is its own
  // output, not an input; an in-place update (acc = acc + x) is both.
  for (const s of overwritten) read.delete(s);
  const fp32Matmul = engine === "Tensor" && accesses.some((a) => a.kind === "read" && a.storage.dtype.name === "float32");
  return {
    engine, name: first.name, free, inputs: read.size, fp32Matmul, dmaBytes, dmaBuffers, site: first.site, accesses, run: first.run,
    inputTiles: [...read], partitionBroadcast: engine === "Tensor" && isPartitionBroadcast(first.name, accesses),
  };
}

/** An operand with one element per partition, repeated along the free axes (stride 0 on every free axis). */
function isScalarOperand(a: Access): boolean {
  return a.shape.length > 1 && a.shape.slice(1).some((n) => n > 1) && a.shape.every((n, k) => k === 0 || n <= 1 || a.strides[k] === 0);
}

/**
 * Contiguous runs of an access (its DMA buffers): in HBM, the product of the axes outside the innermost
 * contiguous block; in SBUF/PSUM every partition is a run of its own (trainium_inferentia2_arch.rst:
 * "at least tensor.shape[0] different DMA buffers"), times the runs of its free axes.
 */
function contiguousRuns(a: Access): number {
  const onChip = !a.storage.isHbm;
  let runs = 1, inner = 1;
  for (let k = a.shape.length - 1; k >= 0; k--) {
    const n = a.shape[k];
    if (n <= 1 || a.strides[k] === 0) continue;
    if (a.strides[k] === inner && !(onChip && k === 0)) { inner *= n; continue; }
    runs *= n;
    inner = Number.NaN; // past the contiguous block: every further axis multiplies the runs
  }
  return runs;
}
