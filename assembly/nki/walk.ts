// Walking an operand's six dimensions: the five outer ones by an odometer in the scratch region, the
// innermost as a row the callers process with a tight loop (or chunks of one).
import { F_ADDR, F_DTYPE, IDX, ROWS, shapeAt, strideAt } from "./layout";
import { elementBytes } from "./dtypes";

/** Rows of the operand: the product of its five outer sizes. */
export function rowCount(sl: usize): i32 {
  let n = 1;
  for (let d = 0; d < 5; d++) n *= shapeAt(sl, d);
  return n;
}

export function resetIdx(idx: usize): void {
  for (let d = 0; d < 5; d++) store<i32>(idx + (<usize>d << 2), 0);
}

/** Moves the odometer at idx to the next row of the shape of sl. */
export function advanceIdx(idx: usize, sl: usize): void {
  let d = 4;
  let v = load<i32>(idx + 16) + 1;
  store<i32>(idx + 16, v);
  while (d > 0 && v == shapeAt(sl, d)) {
    store<i32>(idx + (<usize>d << 2), 0);
    d--;
    v = load<i32>(idx + (<usize>d << 2)) + 1;
    store<i32>(idx + (<usize>d << 2), v);
  }
}

/** The element offset of the current row's first element, by the strides of sl. */
export function rowOffset(idx: usize, sl: usize): i32 {
  let off = 0;
  for (let d = 0; d < 5; d++) off += load<i32>(idx + (<usize>d << 2)) * strideAt(sl, d);
  return off;
}

/** Byte address of the current row of the walk at IDX in operand sl. */
// @ts-ignore: decorator
@inline export function rowAddress(s: usize, sl: usize): usize {
  return <usize>(load<i32>(sl + F_ADDR) + rowOffset(s + IDX, sl) * elementBytes(load<i32>(sl + F_DTYPE)));
}

/** Records the current row addresses of slots 0..count-1 (ROWS). */
export function recordRows(s: usize, first: usize, count: i32): void {
  for (let k = 0; k < count; k++) {
    const sl = first + (<usize>k << 6);
    store<u32>(s + ROWS + (<usize>k << 2), <u32>rowAddress(s, sl));
  }
}
