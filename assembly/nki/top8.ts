// The Vector Engine's eight-wide searches, per partition, over a tile's free elements in row-major order
// (converted to float32): max8 (the 8 largest, descending) and the matches of nc_find_index8 /
// nc_match_replace8. Slots: 1 the searched tile's free dimensions, 3 its partitions (shape[5] = P,
// strides[5] = the partition stride), 0 the [P, 8] result (values or indices; addr 0: none), 2 the [P, 8]
// values to find. A partition's values are staged as float32 in the MATMUL region.
import { F_ADDR, F_DTYPE, IDX2, MATMUL, RANK, shapeAt, slot, strideAt } from "./layout";
import { elementBytes, readF64, writeF64 } from "./dtypes";
import { rowCount, resetIdx, advanceIdx, rowOffset } from "./walk";

/** Stages partition p of the searched tile as float32 at s + MATMUL; returns the element count. */
function stage(s: usize, p: i32): i32 {
  const free = slot(s, 1), part = slot(s, 3);
  const dtype = load<i32>(free + F_DTYPE);
  const size = elementBytes(dtype);
  const base = <isize>load<i32>(free + F_ADDR) + <isize>p * strideAt(part, 5) * size;
  const rows = rowCount(free), n = shapeAt(free, 5), stride = <isize>strideAt(free, 5) * size;
  const dst = s + MATMUL;
  let k = 0;
  resetIdx(s + IDX2);
  for (let r = 0; r < rows; r++) {
    let q = base + <isize>rowOffset(s + IDX2, free) * size;
    for (let j = 0; j < n; j++) {
      store<f32>(dst + (<usize>k << 2), <f32>readF64(<usize>q, dtype));
      k++;
      q += stride;
    }
    advanceIdx(s + IDX2, free);
  }
  return k;
}

/** Address of result element [p, i] of a [P, 8] operand in slot k. */
function at8(s: usize, k: i32, p: i32, i: i32): usize {
  const sl = slot(s, k);
  const size = elementBytes(load<i32>(sl + F_DTYPE));
  return <usize>(<isize>load<i32>(sl + F_ADDR) + (<isize>p * strideAt(sl, 4) + <isize>i * strideAt(sl, 5)) * size);
}

/** max8: the 8 largest values of each partition, descending (NaN is never among them). */
export function max8(s: usize): void {
  const P = shapeAt(slot(s, 3), 5);
  const oType = load<i32>(slot(s, 0) + F_DTYPE);
  const vals = s + MATMUL;
  for (let p = 0; p < P; p++) {
    const n = stage(s, p);
    // best[0..7] descending, kept in registers' stead in the scratch's first words past the staged values
    const best = vals + (<usize>n << 2);
    for (let i = 0; i < 8; i++) store<f32>(best + (<usize>i << 2), -Infinity);
    for (let k = 0; k < n; k++) {
      const v = load<f32>(vals + (<usize>k << 2));
      if (!(v > load<f32>(best + 28))) continue;
      let i = 7;
      while (i > 0 && v > load<f32>(best + (<usize>(i - 1) << 2))) { store<f32>(best + (<usize>i << 2), load<f32>(best + (<usize>(i - 1) << 2))); i--; }
      store<f32>(best + (<usize>i << 2), v);
    }
    for (let i = 0; i < 8; i++) writeF64(at8(s, 0, p, i), oType, <f64>load<f32>(best + (<usize>i << 2)));
  }
}

/**
 * For each of a partition's 8 values (in order 0..7, or 7..0 when reverse), the first position of an
 * equal element not already matched by another of the values; -1 (all ones once stored) when none.
 * Indices go to slot 0 when it has an address; with replace, matched elements become imm in place.
 */
export function match8(s: usize, reverse: bool, replace: bool, imm: f64): void {
  const free = slot(s, 1), part = slot(s, 3);
  const P = shapeAt(part, 5);
  const dtype = load<i32>(free + F_DTYPE);
  const size = elementBytes(dtype);
  const vals = s + MATMUL;
  const hasOut = load<i32>(slot(s, 0) + F_ADDR) != 0;
  const oType = load<i32>(slot(s, 0) + F_DTYPE), vType = load<i32>(slot(s, 2) + F_DTYPE);
  for (let p = 0; p < P; p++) {
    const n = stage(s, p);
    const found = vals + (<usize>n << 2); // 8 i32 positions
    for (let step = 0; step < 8; step++) {
      const i = reverse ? 7 - step : step;
      const v = <f32>readF64(at8(s, 2, p, i), vType);
      let hit = -1;
      for (let k = 0; k < n && hit < 0; k++) {
        if (load<f32>(vals + (<usize>k << 2)) != v) continue;
        let taken = false;
        for (let t = 0; t < step; t++) if (load<i32>(found + (<usize>t << 2)) == k) taken = true;
        if (!taken) hit = k;
      }
      store<i32>(found + (<usize>step << 2), hit);
      if (hasOut) writeF64(at8(s, 0, p, i), oType, <f64>hit);
      if (replace && hit >= 0) {
        // the element's address: unravel hit over the free dimensions
        let off: isize = 0, f = hit;
        for (let d = RANK - 1; d >= 0; d--) { const m = shapeAt(free, d); off += <isize>(f % m) * strideAt(free, d); f /= m; }
        const q = <usize>(<isize>load<i32>(free + F_ADDR) + (<isize>p * strideAt(part, 5) + off) * size);
        writeF64(q, dtype, imm);
      }
    }
  }
}
