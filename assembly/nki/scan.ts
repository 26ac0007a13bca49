// tensor_tensor_scan along the innermost dimension, row by row:
//   r[0] = op1(op0(d0[0], initial), d1[0]);  r[i] = op1(op0(d0[i], r[i-1]), d1[i])
// in float32 as the Vector Engine does: each operation's result is rounded to float32. Slots: 0 out,
// 1 data0, 2 data1 (an operand or a scalar), 3 initial (a scalar, or an operand with stride 0 along the row).
import { CHUNK, F_DTYPE, F_SCALAR, IDX, ROWS, buf, param, shapeAt, slot, strideAt } from "./layout";
import { elementBytes, fillF64, loadF64, readF64, storeF64 } from "./dtypes";
import { binaryF64 } from "./float-ops";
import { rowCount, resetIdx, advanceIdx, recordRows } from "./walk";

/** x op y with the element-wise semantics (float-ops.ts), rounded to float32. */
function apply(code: i32, x: f64, y: f64, tmp: usize): f64 {
  store<f64>(tmp, x);
  store<f64>(tmp + 8, y);
  binaryF64(code, tmp + 16, tmp, tmp + 8, 1);
  return <f64><f32>load<f64>(tmp + 16);
}

export function scan(s: usize, code0: i32, code1: i32): void {
  const out = slot(s, 0);
  const rows = rowCount(out);
  const n = shapeAt(out, 5);
  const r = buf(s, 0), d0 = buf(s, 1), d1 = buf(s, 2), tmp = buf(s, 3);
  resetIdx(s + IDX);
  for (let row = 0; row < rows; row++) {
    recordRows(s, out, 4);
    const init = slot(s, 3);
    let prev = load<i32>(init + F_SCALAR) ? param(s, 3) : readF64(<usize>load<u32>(s + ROWS + 12), load<i32>(init + F_DTYPE));
    prev = <f64><f32>prev;
    for (let c = 0; c < n; c += CHUNK) {
      const m = min(CHUNK, n - c);
      loadRow(s, 1, d0, c, m);
      loadRow(s, 2, d1, c, m);
      for (let i = 0; i < m; i++) {
        const at = <usize>i << 3;
        prev = apply(code1, apply(code0, load<f64>(d0 + at), prev, tmp), load<f64>(d1 + at), tmp);
        store<f64>(r + at, prev);
      }
      storeRow(s, r, c, m);
    }
    advanceIdx(s + IDX, out);
  }
}

function loadRow(s: usize, k: i32, dst: usize, c: i32, m: i32): void {
  const sl = slot(s, k);
  if (load<i32>(sl + F_SCALAR)) { fillF64(dst, param(s, k), m); return; }
  const dtype = load<i32>(sl + F_DTYPE);
  const stride = <isize>strideAt(sl, 5) * elementBytes(dtype);
  loadF64(dst, <usize>(<isize>load<u32>(s + ROWS + (<usize>k << 2)) + <isize>c * stride), stride, dtype, m);
}

function storeRow(s: usize, src: usize, c: i32, m: i32): void {
  const sl = slot(s, 0);
  const dtype = load<i32>(sl + F_DTYPE);
  const stride = <isize>strideAt(sl, 5) * elementBytes(dtype);
  storeF64(src, <usize>(<isize>load<u32>(s + ROWS) + <isize>c * stride), stride, dtype, m);
}
