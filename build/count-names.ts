// The names build/count-pass.ts gives what it adds to a kernel module, and the
// instruction classes it counts. Apart from the pass, so the host (every core
// thread) can read the counters without loading the pass.

/** The classes of executed kernel instructions, in counter order. */
export const INSTRUCTION_CLASSES = ["scalar", "vector", "memory", "branch", "divide", "libraryCall"] as const;

/** One class of executed instructions. */
export type InstructionClass = (typeof INSTRUCTION_CLASSES)[number];

/** Executed instructions of one kernel run, by class. */
export type InstructionCounts = Record<InstructionClass, number>;

/** The exported mutable i64 global that counts class c. */
export function counterExport(c: InstructionClass): string {
  return `__gpsimd_count_${c}`;
}
