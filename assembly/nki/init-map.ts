// Init maps: one byte per element of an SBUF/PSUM tile, nonzero once written, at init + the element's
// offset (the same element offsets as the data). Reads are checked before an instruction computes
// anything; writes are recorded after.
import { F_INIT, IDX, shapeAt, strideAt } from "./layout";
import { rowCount, resetIdx, advanceIdx, rowOffset } from "./walk";

/** Row-major linear index of the first element of operand sl whose init byte is 0, or -1 if none. */
export function firstUninit(s: usize, sl: usize): i32 {
  const init = load<u32>(sl + F_INIT);
  if (init == 0) return -1;
  const idx = s + IDX;
  const rows = rowCount(sl);
  const n = shapeAt(sl, 5);
  const stride = <isize>strideAt(sl, 5);
  resetIdx(idx);
  for (let r = 0; r < rows; r++) {
    let p = <usize>(init + rowOffset(idx, sl));
    let j = 0;
    if (stride == 1) {
      // sixteen bytes at a time while all are written
      while (j + 16 <= n && i8x16.all_true(v128.load(p))) { j += 16; p += 16; }
    }
    for (; j < n; j++) {
      if (load<u8>(p) == 0) return r * n + j;
      p += stride;
    }
    advanceIdx(idx, sl);
  }
  return -1;
}

/** Sets the init byte of every element of operand sl to value. */
export function setInit(s: usize, sl: usize, value: u8): void {
  const init = load<u32>(sl + F_INIT);
  if (init == 0) return;
  const idx = s + IDX;
  const rows = rowCount(sl);
  const n = shapeAt(sl, 5);
  const stride = <isize>strideAt(sl, 5);
  resetIdx(idx);
  for (let r = 0; r < rows; r++) {
    let p = <usize>(init + rowOffset(idx, sl));
    let j = 0;
    if (stride == 1) {
      const v = i8x16.splat(<i8>value);
      for (; j + 16 <= n; j += 16) { v128.store(p, v); p += 16; }
    }
    for (; j < n; j++) { store<u8>(p, value); p += stride; }
    advanceIdx(idx, sl);
  }
}
