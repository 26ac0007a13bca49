// The inference layout: weights packed once into panels of 48 columns, and
// activations kept feature-major (xᵀ: [features, batch]). A K slice of one
// panel is then a single contiguous copy, and so is the matching slice of xᵀ
// when the batch fits one tile: two tensor_to_tcm calls per slice instead of
// one per row (gemm with x · w makes 32 + K-slice calls per slice; at ~20 ns
// a call with checks on, that was a third of W3's GEMM time). The output can
// stay feature-major for the next layer, its tile transposed in TCM and
// written with one copy.
//   pack_weights(w [K, N]) -> [ceil(N/48), K, 48], panel p holding columns 48p.. (zero-padded)
//   linear_packed(xt [K, M], wp, bias [N], transposed_out) = x · w + bias as [N, M] (transposed_out 1) or [M, N] (0)
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free } from "gpsimd";
import { micro_4x8, MR, NR } from "./microkernel";
import { MC, NC, BUDGET, SLACK, ceil_div, round_up, at, pack_a_kmajor, add_bias, zero_tcm } from "./tiles";

/** Rows of w packed per copy out. */
const PACK_ROWS: i64 = 64;
/** K per slice: the A and B slices share one block, which also holds the transposed C tile at the end. */
const KC: i32 = ((BUDGET - 2 * SLACK - MC * NC - NC) / (MC + NC)) & ~3;

export function pack_weights(w: Tensor): Tensor {
  const out = get_dst_tensor();
  const K = w.size(0), N = w.size(1);
  const chunks = ceil_div(K, PACK_ROWS);
  const units = ceil_div(N, NC) * chunks;
  const count = <i64>get_cpu_count(), id = <i64>get_cpu_id();
  const first = units * id / count, last = units * (id + 1) / count;
  if (first == last) return out;
  const buf = tcm_malloc(<usize>(PACK_ROWS * NC) << 2);
  const src = w.tcm_accessor(), dst = out.tcm_accessor();
  for (let u = first; u < last; u++) {
    const p = u / chunks, k0 = (u % chunks) * PACK_ROWS;
    const n0 = p * NC, nc = <i32>min<i64>(N - n0, NC), kc = <i32>min<i64>(K - k0, PACK_ROWS);
    for (let k = 0; k < kc; k++) {
      src.tensor_to_tcm<f32>(at(buf, k * NC), (k0 + k) * N + n0, nc);
      if (nc < NC) memory.fill(at(buf, k * NC + nc), 0, <usize>(NC - nc) << 2);
    }
    dst.tcm_to_tensor<f32>(buf, (p * K + k0) * NC, <i64>kc * NC);
  }
  tcm_free(buf);
  return out;
}

export function linear_packed(xt: Tensor, wp: Tensor, bias: Tensor, transposed_out: i64): Tensor {
  const out = get_dst_tensor();
  const K = xt.size(0), M = xt.size(1), N = bias.size(0);
  if (M == 0 || N == 0) return out;
  const panels = ceil_div(N, NC);
  const tiles = ceil_div(M, MC) * panels;
  const count = <i64>get_cpu_count(), id = <i64>get_cpu_id();
  const first = tiles * id / count, last = tiles * (id + 1) / count;
  if (first == last) return out;

  const whole_a = M <= MC; // xᵀ's slice is kc rows of M: one copy
  const ab = tcm_malloc(<usize>((MC + NC) * KC + SLACK) << 2); // A slice, then B slice; the transposed tile at the end
  const bbuf = at(ab, MC * KC);
  const cbuf = tcm_malloc(<usize>(MC * NC) << 2);
  const brow = tcm_malloc(<usize>NC << 2);
  zero_tcm(ab, <usize>((MC + NC) * KC + SLACK) << 2);
  zero_tcm(cbuf, <usize>(MC * NC) << 2);
  zero_tcm(brow, <usize>NC << 2);
  const acc_a = xt.tcm_accessor(), acc_b = wp.tcm_accessor(), dst = out.tcm_accessor();
  const a_ks: usize = whole_a ? <usize>M << 2 : <usize>MC << 2;

  for (let t = first; t < last; t++) {
    const m0 = (t / panels) * MC, p = t % panels, n0 = p * NC;
    const mc = <i32>min<i64>(M - m0, MC), nc = <i32>min<i64>(N - n0, NC);
    const rows = round_up(mc, MR), cols = round_up(nc, NR);
    if (K == 0) memory.fill(cbuf, 0, <usize>(MC * NC) << 2);
    for (let k0: i64 = 0; k0 < K; k0 += KC) {
      const kc = <i32>min<i64>(K - k0, KC);
      if (whole_a) acc_a.tensor_to_tcm<f32>(ab, k0 * M, <i64>kc * M);
      else pack_a_kmajor(acc_a, ab, M, m0, mc, rows, k0, kc);
      acc_b.tensor_to_tcm<f32>(bbuf, (p * K + k0) * NC, <i64>kc * NC);
      for (let i = 0; i < rows; i += MR) {
        for (let j = 0; j < cols; j += NR) {
          micro_4x8(at(ab, i), 4, a_ks, at(bbuf, j), <usize>NC << 2, at(cbuf, i * NC + j), <usize>NC << 2, kc, k0 == 0);
        }
      }
    }
    add_bias(bias.tcm_accessor(), brow, cbuf, n0, nc, cols, mc, NC);
    if (transposed_out) {
      // Column j of the tile is row n0 + j of the output: transpose into ab (row stride mc).
      for (let i = 0; i < mc; i++) for (let j = 0; j < nc; j++) store<f32>(at(ab, j * mc + i), load<f32>(at(cbuf, i * NC + j)));
      if (mc == <i32>M) dst.tcm_to_tensor<f32>(ab, n0 * M, <i64>nc * M);
      else for (let j = 0; j < nc; j++) dst.tcm_to_tensor<f32>(at(ab, j * mc), (n0 + j) * M + m0, mc);
    } else {
      for (let i = 0; i < mc; i++) dst.tcm_to_tensor<f32>(at(cbuf, i * NC), (m0 + i) * N + n0, nc);
    }
  }

  tcm_free(brow);
  tcm_free(cbuf);
  tcm_free(ab);
  return out;
}
