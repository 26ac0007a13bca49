// The kernel's executed instructions (build/count-pass.ts) as GpSimd cycles:
// the cost model's compute term when counting was on. Each figure is an
// assumption stated here and in docs/cost-model.md; only the clock that turns
// cycles into time (device.ts) and the 512-bit vector width are documented.
import { INSTRUCTION_CLASSES, type InstructionClass, type InstructionCounts } from "../../build/count-names.js";

/** Cycles one executed instruction of each class costs a GpSimd core (issue cost, not latency: the core is taken to pipeline). */
export const CYCLES_PER_INSTRUCTION: Readonly<Record<InstructionClass, number>> = Object.freeze({
  /** i32/i64/f32/f64 arithmetic, comparisons, conversions, select: one per cycle. */
  scalar: 1,
  /** A v128 (4 x f32) operation is a quarter of the core's 512-bit (16 x f32) operation: the device's compiler is taken to pack four into one. */
  vector: 0.25,
  /** A load or store of TCM (or the local stack): 3 cycles of latency, pipelined, so one issued per cycle. */
  memory: 1,
  /** br, br_if, br_table, if, return, calls within the kernel: one cycle, no misprediction cost. */
  branch: 1,
  /** Integer divide or remainder, float divide or square root, scalar or v128: no published figure; an iterative divider of about 8 cycles is assumed. */
  divide: 8,
  /** A call into the kernel library: call, return and argument set-up; the work it starts is the accessor and DMA terms. */
  libraryCall: 4,
});

/** Cycles by class of one core's executed instructions. */
export function cyclesByClass(counts: InstructionCounts, table: Readonly<Record<InstructionClass, number>> = CYCLES_PER_INSTRUCTION): InstructionCounts {
  return Object.fromEntries(INSTRUCTION_CLASSES.map((c) => [c, counts[c] * table[c]])) as InstructionCounts;
}

/** Total cycles of one core's executed instructions. */
export function computeCycles(counts: InstructionCounts, table: Readonly<Record<InstructionClass, number>> = CYCLES_PER_INSTRUCTION): number {
  return INSTRUCTION_CLASSES.reduce((sum, c) => sum + counts[c] * table[c], 0);
}
