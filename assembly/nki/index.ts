// The NKI tile engine: every tile instruction is one call of an export here, over operands described
// in the scratch region s (layout.ts) by the host (nki/machine/engine.ts). The module imports the
// device memory (env.memory, shared between threads) and the host's Math.sin/cos/tan; it has no
// static data and allocates nothing, so any number of threads can instantiate it at once.
import { slot } from "./layout";
import { elementwise as runElementwise } from "./elementwise";
import { reduce as runReduce } from "./reduce";
import { matmul as runMatmul } from "./matmul";
import { affine as runAffine } from "./affine";
import { scan as runScan } from "./scan";
import { gather as runGather } from "./gather";
import { max8 as runMax8, match8 as runMatch8 } from "./top8";
import { firstUninit as findUninit, setInit } from "./init-map";

/** Element-wise instruction (kinds and flags: elementwise.ts); marks the output written. */
export function elementwise(s: usize, kind: i32, code0: i32, code1: i32, flags: i32): void {
  runElementwise(s, kind, code0, code1, flags);
  setInit(s, slot(s, 0), 1);
}

export function reduce(s: usize, code: i32, flags: i32): void {
  runReduce(s, code, flags);
  setInit(s, slot(s, 0), 1);
}

export function matmul(s: usize, accumulate: i32): void {
  runMatmul(s, accumulate != 0);
  setInit(s, slot(s, 0), 1);
}

export function affine(s: usize): void {
  runAffine(s);
  setInit(s, slot(s, 0), 1);
}

/** tensor_tensor_scan along the innermost dimension (scan.ts). */
export function scan(s: usize, code0: i32, code1: i32): void {
  runScan(s, code0, code1);
  setInit(s, slot(s, 0), 1);
}

/** Gather within partitions (gather.ts): -1, or the failing element's index in out (nothing written then). */
export function gather(s: usize): i32 {
  const bad = runGather(s);
  if (bad < 0) setInit(s, slot(s, 0), 1);
  return bad;
}

/** max8 (top8.ts); marks the [P, 8] output written. */
export function max8(s: usize): void {
  runMax8(s);
  setInit(s, slot(s, 0), 1);
}

/** nc_find_index8 / nc_match_replace8's search (top8.ts); marks the index output written when there is one. */
export function match8(s: usize, reverse: i32, replace: i32, imm: f64): void {
  runMatch8(s, reverse != 0, replace != 0, imm);
  if (load<i32>(slot(s, 0)) != 0) setInit(s, slot(s, 0), 1);
}

/** Row-major index of operand k's first element whose init byte is 0, or -1. */
export function firstUninit(s: usize, k: i32): i32 {
  return findUninit(s, slot(s, k));
}

/** Sets operand k's init bytes to value (0 or 1) without computing. */
export function markInit(s: usize, k: i32, value: i32): void {
  setInit(s, slot(s, k), <u8>value);
}
