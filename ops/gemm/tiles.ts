// What the GEMM kernels share: the tile sizes, the TCM budget, index
// helpers, and the copies both gemm.ts and packed.ts make.
import { TcmAccessor } from "gpsimd";

/** Tile rows (the W3 batch: one tile covers all of it). */
export const MC: i32 = 32;
/** Widest tile: six f32x4 per row. */
export const NC: i32 = 48;
/** Floats of the 16 KB pool the buffers may take (the rest covers rounding of each block to 16 bytes). */
export const BUDGET: i32 = 4032;
/** Extra floats after the A and B buffers: micro_4x8 reads whole groups of 4 rows and 8 columns, past a short slice's end. */
export const SLACK: i32 = 8;

// @ts-ignore: decorator
@inline export function ceil_div(a: i64, b: i64): i64 { return (a + b - 1) / b; }
// @ts-ignore: decorator
@inline export function round_up(n: i32, m: i32): i32 { return (n + m - 1) / m * m; }
// @ts-ignore: decorator
@inline export function at(base: usize, floats: i32): usize { return base + (<usize>floats << 2); }

/** Columns m0..m0+mc of rows k0..k0+kc of a row-major [K, M] into abuf k-major (k stride MC); columns mc..rows zeroed. */
export function pack_a_kmajor(acc: TcmAccessor, abuf: usize, M: i64, m0: i64, mc: i32, rows: i32, k0: i64, kc: i32): void {
  for (let k = 0; k < kc; k++) {
    const row = at(abuf, k * MC);
    acc.tensor_to_tcm<f32>(row, (k0 + k) * M + m0, mc);
    if (rows > mc) memory.fill(at(row, mc), 0, <usize>(rows - mc) << 2);
  }
}

/** C tile rows 0..mc += bias[n0..n0+nc] (the bias row zero-padded to cols). */
export function add_bias(acc: TcmAccessor, brow: usize, cbuf: usize, n0: i64, nc: i32, cols: i32, mc: i32, nt: i32): void {
  acc.tensor_to_tcm<f32>(brow, n0, nc);
  if (cols > nc) memory.fill(at(brow, nc), 0, <usize>(cols - nc) << 2);
  for (let i = 0; i < mc; i++) {
    const row = at(cbuf, i * nt);
    for (let j = 0; j < cols; j += 4) v128.store(at(row, j), f32x4.add(v128.load(at(row, j)), v128.load(at(brow, j))));
  }
}

/**
 * Zeroes a TCM buffer (p 0, a pool that was full, is left alone). The micro-kernel works in whole 4 x 8 blocks and
 * reads the panels' slack: zeroed first, the lanes past a matrix's edges read written bytes (reading TCM nothing
 * wrote is an error) and compute zeros that are never copied out.
 */
export function zero_tcm(p: usize, bytes: usize): void {
  if (p != 0) memory.fill(p, 0, bytes);
}
