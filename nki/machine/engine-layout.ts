// The engine's scratch region as the host writes it: the same numbers as assembly/nki/layout.ts
// (operand slots, parameters, chunk buffers, matmul blocks); keep the two in step.

/** Bytes of scratch one engine instance needs (descriptors, chunk buffers, packed matmul blocks). */
export const ENGINE_SCRATCH_BYTES = 32768 + (1 << 20);

/** Byte offset of operand slot k (0 = output, 1..4 = inputs), 64 bytes each. */
export const slotOffset = (k: number): number => 64 + k * 64;
/** i32 fields of a slot, in words. */
export const SLOT_ADDR = 0;
export const SLOT_DTYPE = 1;
export const SLOT_INIT = 2;
export const SLOT_SCALAR = 3;
export const SLOT_SHAPE = 4;
export const SLOT_STRIDES = 10;

/** f64 parameters (byte offset): scalars of slots 0..4 at 0..4, then these. */
export const PARAMS = 384;
export const P_BASE = 7;
export const P_COEF = 8;

/** A gather's report (byte offset): i32 kind, then an f64 value at +8. */
export const RESULT = 768;

/** The engine's dimensions: operands are padded in front to this rank. */
export const ENGINE_RANK = 6;

// Instruction kinds and flags of the elementwise export (assembly/nki/elementwise.ts).
export const K_UNARY = 0;
export const K_BINARY = 1;
export const K_TENSOR_SCALAR = 2;
export const K_SELECT = 3;
export const FLAG_INT = 1;
export const FLAG_SCALE = 2;
export const FLAG_BIAS = 4;
export const FLAG_ALPHA = 8;
