// Gathers within partitions (nc_n_gather, gather_flattened): out[p, j...] = data[p, flat = indices[p, j...]],
// where flat counts data's free elements of partition p in row-major order.
// Slots: 0 out, 2 indices (over out's walk), 1 data's free dimensions (shape and strides), 3 data over
// out's walk with only the partition stride (so a row offset in slot 3 is the partition's start).
// A first pass checks every element before anything is written: the index's init byte, its range, the
// gathered element's init byte; the first failure in out's row-major order is reported (RESULT).
import { F_ADDR, F_DTYPE, F_INIT, IDX, RESULT, RANK, shapeAt, slot, strideAt } from "./layout";
import { elementBytes, readF64, readI64, writeF64, I32, I8, I64, I16, U8, U32, U16 } from "./dtypes";
import { rowCount, resetIdx, advanceIdx, rowOffset } from "./walk";

export const GATHER_INDEX_UNINIT: i32 = 1;
export const GATHER_OUT_OF_RANGE: i32 = 2;
export const GATHER_DATA_UNINIT: i32 = 3;

function isInteger(dtype: i32): bool {
  return dtype == I32 || dtype == I8 || dtype == I64 || dtype == I16 || dtype == U8 || dtype == U32 || dtype == U16;
}

/** Elements in a partition of data (the product of its free sizes). */
function freeCount(sl: usize): i64 {
  let n: i64 = 1;
  for (let d = 0; d < RANK; d++) n *= <i64>shapeAt(sl, d);
  return n;
}

/** The element offset of flat index f among data's free dimensions. */
function freeOffset(sl: usize, f: i64): i32 {
  let off = 0;
  for (let d = RANK - 1; d >= 0; d--) {
    const n = <i64>shapeAt(sl, d);
    off += <i32>(f % n) * strideAt(sl, d);
    f /= n;
  }
  return off;
}

/** Runs the gather; returns -1, or the row-major index in out of the first failure (kind and value at RESULT). */
export function gather(s: usize): i32 {
  const out = slot(s, 0), data = slot(s, 1), ind = slot(s, 2), part = slot(s, 3);
  const count = freeCount(data);
  const dType = load<i32>(data + F_DTYPE), iType = load<i32>(ind + F_DTYPE), oType = load<i32>(out + F_DTYPE);
  const dSize = elementBytes(dType), iSize = elementBytes(iType), oSize = elementBytes(oType);
  const dInit = load<u32>(data + F_INIT), iInit = load<u32>(ind + F_INIT);
  const ints = isInteger(dType) && isInteger(oType);
  const rows = rowCount(out);
  const n = shapeAt(out, 5);
  for (let pass = 0; pass < 2; pass++) {
    resetIdx(s + IDX);
    for (let r = 0; r < rows; r++) {
      const iRow = rowOffset(s + IDX, ind), pRow = rowOffset(s + IDX, part), oRow = rowOffset(s + IDX, out);
      for (let j = 0; j < n; j++) {
        const io = iRow + j * strideAt(ind, 5);
        const k = readI64(<usize>(load<i32>(ind + F_ADDR) + io * iSize), iType);
        const doff = pRow + j * strideAt(part, 5) + (k >= 0 && k < count ? freeOffset(data, k) : 0);
        if (pass == 0) {
          let kind = 0;
          if (iInit != 0 && load<u8>(<usize>(iInit + io)) == 0) kind = GATHER_INDEX_UNINIT;
          else if (k < 0 || k >= count) kind = GATHER_OUT_OF_RANGE;
          else if (dInit != 0 && load<u8>(<usize>(dInit + doff)) == 0) kind = GATHER_DATA_UNINIT;
          if (kind != 0) {
            store<i32>(s + RESULT, kind);
            store<f64>(s + RESULT + 8, <f64>k);
            return r * n + j;
          }
        } else {
          const src = <usize>(load<i32>(data + F_ADDR) + doff * dSize);
          const dst = <usize>(load<i32>(out + F_ADDR) + (oRow + j * strideAt(out, 5)) * oSize);
          if (ints) writeInt(dst, oType, readI64(src, dType));
          else writeF64(dst, oType, readF64(src, dType));
        }
      }
      advanceIdx(s + IDX, out);
    }
  }
  return -1;
}

function writeInt(p: usize, dtype: i32, v: i64): void {
  switch (dtype) {
    case I8: case U8: store<i8>(p, <i8>v); break;
    case I16: case U16: store<i16>(p, <i16>v); break;
    case I64: store<i64>(p, v); break;
    default: store<i32>(p, <i32>v);
  }
}
