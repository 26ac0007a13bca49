// Softmax of rows [first, last) of an [M, C] float32 tensor through TCM, for
// the one-core and the all-cores kernels: per row the maximum, then
// e = exp(x - max) and their sum, then e / sum, the division per element as
// the usual C++ kernel writes it. A row of up to PIECE floats is copied in
// once and worked on in place; a longer one is streamed in pieces three
// times (and its exp computed twice), so any C fits the 16 KB pool.
import { TcmAccessor, tcm_malloc, tcm_free } from "gpsimd";

/** Floats of the TCM buffer: 8 KB of the pool. */
const PIECE: i64 = 2048;

export function softmax_rows(src: TcmAccessor, dst: TcmAccessor, C: i64, first: i64, last: i64): void {
  const buf = tcm_malloc(<usize>PIECE << 2);
  const whole = C <= PIECE;
  for (let i = first; i < last; i++) {
    const row = i * C;
    let top: f32 = -Infinity;
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      src.tensor_to_tcm<f32>(buf, row + j, w);
      for (let k: i64 = 0; k < w; k++) top = max(top, load<f32>(buf + (<usize>k << 2)));
    }
    let total: f32 = 0;
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      if (!whole) src.tensor_to_tcm<f32>(buf, row + j, w);
      for (let k: i64 = 0; k < w; k++) {
        const at = buf + (<usize>k << 2);
        const e = Mathf.exp(load<f32>(at) - top);
        if (whole) store<f32>(at, e);
        total += e;
      }
    }
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      if (!whole) src.tensor_to_tcm<f32>(buf, row + j, w);
      for (let k: i64 = 0; k < w; k++) {
        const at = buf + (<usize>k << 2);
        store<f32>(at, (whole ? load<f32>(at) : Mathf.exp(load<f32>(at) - top)) / total);
      }
      dst.tcm_to_tensor<f32>(buf, row + j, w);
    }
  }
  tcm_free(buf);
}
