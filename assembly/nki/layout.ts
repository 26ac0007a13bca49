// The scratch region the host lends each engine instance (one per thread): where a call's operand
// descriptors, parameters and chunk buffers live. The engine keeps nothing in linear memory of its own
// (no static data, no heap): it works only inside tiles it is pointed at and this region.
// nki/machine/engine-layout.ts holds the same numbers for the host; keep the two in step.

/** Operand descriptors: slot 0 is the output, slots 1..4 the inputs, 64 bytes each. */
export const SLOTS: usize = 64;
export const SLOT_BYTES: usize = 64;
// i32 fields of a slot.
export const F_ADDR: usize = 0;
export const F_DTYPE: usize = 4;
export const F_INIT: usize = 8;
/** Nonzero: the operand is a scalar immediate (its value is PARAMS[slot]). */
export const F_SCALAR: usize = 12;
/** Six sizes, outermost first (padded in front with 1s). */
export const F_SHAPE: usize = 16;
/** Six strides in elements, matching F_SHAPE. */
export const F_STRIDES: usize = 40;

/** f64 parameters: scalars of slots 0..4, then the named ones. */
export const PARAMS: usize = 384;
export const P_BASE: i32 = 7;
export const P_COEF: i32 = 8; // six affine coefficients, 8..13

/** Odometers of the outer dimensions (6 i32 each): an instruction's walk, and a reduction's inner walk. */
export const IDX: usize = 640;
export const IDX2: usize = 672;
/** Where the current row starts, per slot (5 u32 byte addresses). */
export const ROWS: usize = 704;
/** A gather's report: i32 kind at RESULT, f64 value at RESULT + 8. */
export const RESULT: usize = 768;

/** Chunk buffers of CHUNK f64 or i64 values each, six of them. */
export const BUFS: usize = 1024;
export const CHUNK: i32 = 512;
export const BUF_BYTES: usize = 4096;

/** The matmul's packed blocks. */
export const MATMUL: usize = 32768;
export const MATMUL_BYTES: usize = 1 << 20;

export const RANK: i32 = 6;

// @ts-ignore: decorator
@inline export function slot(s: usize, k: i32): usize { return s + SLOTS + <usize>k * SLOT_BYTES; }
// @ts-ignore: decorator
@inline export function buf(s: usize, k: i32): usize { return s + BUFS + <usize>k * BUF_BYTES; }
// @ts-ignore: decorator
@inline export function param(s: usize, k: i32): f64 { return load<f64>(s + PARAMS + (<usize>k << 3)); }
// @ts-ignore: decorator
@inline export function shapeAt(sl: usize, d: i32): i32 { return load<i32>(sl + F_SHAPE + (<usize>d << 2)); }
// @ts-ignore: decorator
@inline export function strideAt(sl: usize, d: i32): i32 { return load<i32>(sl + F_STRIDES + (<usize>d << 2)); }
