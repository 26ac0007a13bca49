// iota: out[i0, ..., i5] = base + sum_d coef[d] * i_d, computed in f64 (exact for integers below 2^53)
// and stored as out's dtype.
import { CHUNK, F_DTYPE, IDX, P_BASE, P_COEF, buf, param, shapeAt, slot, strideAt } from "./layout";
import { elementBytes, storeF64 } from "./dtypes";
import { rowCount, resetIdx, advanceIdx, rowAddress } from "./walk";

export function affine(s: usize): void {
  const out = slot(s, 0);
  const dtype = load<i32>(out + F_DTYPE);
  const stride = <isize>strideAt(out, 5) * elementBytes(dtype);
  const rows = rowCount(out);
  const n = shapeAt(out, 5);
  const inner = param(s, P_COEF + 5);
  const r = buf(s, 0);
  const idx = s + IDX;
  resetIdx(idx);
  for (let row = 0; row < rows; row++) {
    let start = param(s, P_BASE);
    for (let d = 0; d < 5; d++) start += param(s, P_COEF + d) * <f64>load<i32>(idx + (<usize>d << 2));
    const p = rowAddress(s, out);
    for (let c = 0; c < n; c += CHUNK) {
      const m = min(CHUNK, n - c);
      for (let j = 0; j < m; j++) store<f64>(r + (<usize>j << 3), start + inner * <f64>(c + j));
      storeF64(r, <usize>(<isize>p + <isize>c * stride), stride, dtype, m);
    }
    advanceIdx(idx, out);
  }
}
