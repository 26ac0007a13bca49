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
    for (let j = 0; j < n; j++) {
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
    if (stride == 1) memory.fill(p, value, <usize>n);
    else for (let j = 0; j < n; j++) { store<u8>(p, value); p += stride; }
    advanceIdx(idx, sl);
  }
}
