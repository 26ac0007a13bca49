// The pooling both avgpool2d kernels run: output row r (r = c * H/p + oy,
// rows of all channels numbered in order) is the mean of input rows
// r*p .. r*p+p-1, window by window. Input rows are summed with v128 adds in
// TCM chunks; each window's columns are then summed and divided by p*p.
// Sums run in the same order whatever the split, so one core and eight
// cores give bitwise the same result.
import { TcmAccessor, tcm_malloc, tcm_free, add_f32 } from "gpsimd";

/** Floats per TCM buffer (three buffers: 12 KB of the 16 KB pool). */
const CHUNK: i64 = 1024;

/** acc[0..m) = sum over k < p of input[offset + k*w .. + m): p rows of one column range. */
function sum_rows(src: TcmAccessor, acc: usize, buf: usize, offset: i64, w: i64, p: i64, m: i64): void {
  src.tensor_to_tcm<f32>(acc, offset, m);
  for (let k: i64 = 1; k < p; k++) {
    src.tensor_to_tcm<f32>(buf, offset + k * w, m);
    add_f32(acc, acc, buf, <usize>m);
  }
}

/** out[j] = (acc[j*p] + ... + acc[j*p + p-1]) / area for j < windows. */
function sum_windows(out: usize, acc: usize, windows: i64, p: i64, area: f32): void {
  let j: i64 = 0;
  if (p == 2) { // the common 2 x 2 pool: de-interleave 8 column sums into 4 windows per step
    const div = f32x4.splat(area);
    for (; j + 4 <= windows; j += 4) {
      const a = v128.load(acc + <usize>(j << 3)), b = v128.load(acc + <usize>(j << 3), 16);
      const sums = f32x4.add(v128.shuffle<f32>(a, b, 0, 2, 4, 6), v128.shuffle<f32>(a, b, 1, 3, 5, 7));
      v128.store(out + <usize>(j << 2), f32x4.div(sums, div));
    }
  }
  for (; j < windows; j++) {
    const at = acc + <usize>(j * p << 2);
    let s = load<f32>(at);
    for (let k: i64 = 1; k < p; k++) s += load<f32>(at + <usize>(k << 2));
    store<f32>(out + <usize>(j << 2), s / area);
  }
}

/** Writes output rows [first, end) of avgpool2d of a C x H x W tensor with w = W, pool p. */
export function pool_rows(src: TcmAccessor, dst: TcmAccessor, w: i64, p: i64, first: i64, end: i64): void {
  const ow = w / p;
  const area = <f32>(p * p);
  const acc = tcm_malloc(<usize>CHUNK * sizeof<f32>());
  const buf = tcm_malloc(<usize>CHUNK * sizeof<f32>());
  const out = tcm_malloc(<usize>CHUNK * sizeof<f32>());
  for (let r = first; r < end; r++) {
    const row = r * p * w;
    if (p <= CHUNK) {
      // Chunks of whole windows: each chunk's column sums give its outputs.
      const span = (CHUNK / p) * p;
      for (let x: i64 = 0; x < w; x += span) {
        const m = min(span, w - x);
        sum_rows(src, acc, buf, row + x, w, p, m);
        sum_windows(out, acc, m / p, p, area);
        dst.tcm_to_tensor<f32>(out, r * ow + x / p, m / p);
      }
    } else {
      // A window wider than a chunk: add up its chunks' column sums. Then
      // W / p < 65536 / 1024 outputs, so the whole output row fits `out`.
      for (let ox: i64 = 0; ox < ow; ox++) {
        let s: f32 = 0;
        for (let x = ox * p; x < (ox + 1) * p; x += CHUNK) {
          const m = min(CHUNK, (ox + 1) * p - x);
          sum_rows(src, acc, buf, row + x, w, p, m);
          for (let k: i64 = 0; k < m; k++) s += load<f32>(acc + <usize>(k << 2));
        }
        store<f32>(out + <usize>(ox << 2), s / area);
      }
      dst.tcm_to_tensor<f32>(out, r * ow, ow);
    }
  }
  tcm_free(out);
  tcm_free(buf);
  tcm_free(acc);
}
