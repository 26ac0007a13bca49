// GEMM kernels tiled through TCM, for one core or all of them: C [M, N] is
// cut into tiles of up to 32 rows x 48 columns, each core takes a contiguous
// run of tiles (the remainder spread one tile at a time), and a tile is
// accumulated over K in slices: the slice of A and the panel of B are copied
// into TCM, micro_4x8 adds their product into the C tile kept in TCM, and the
// finished tile is copied into get_dst_tensor(). Only TCM accessors touch the
// tensors, so the same code runs single-core and multicore. The three layouts
// cover a linear layer forward and backward:
//   gemm(a [M, K], b [K, N])    = a · b
//   gemm_nt(a [M, K], b [N, K]) = a · bᵀ   (dA = dC · Bᵀ)
//   gemm_tn(a [K, M], b [K, N]) = aᵀ · b   (dB = Aᵀ · dC)
//   linear(x [M, K], w [K, N], bias [N]) = x · w + bias (added to the tile before it is written)
// Every tensor_to_tcm call costs ~10-20 ns besides its bytes, so slices are
// copied whole when they are contiguous: B's panel when one tile spans all of
// B's columns, A's slice when its rows are whole (K fits one slice) or when
// aᵀ's M fits one tile, and K slices grow as far as the 16 KB pool allows.
// With x · w at W3's sizes neither holds (32 + K-slice copies per slice);
// packed.ts has the layout for inference that needs two.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free, TcmAccessor } from "gpsimd";
import { micro_4x8, MR, NR } from "./microkernel";
import { MC, NC, BUDGET, SLACK, ceil_div, round_up, at, pack_a_kmajor, add_bias, zero_tcm } from "./tiles";

const NN: i32 = 0;
const NT: i32 = 1;
const TN: i32 = 2;

/** a · b: a [M, K], b [K, N] -> [M, N]. */
export function gemm(a: Tensor, b: Tensor): Tensor {
  return run(a, b, null, NN, a.size(0), a.size(1), b.size(1));
}

/** a · bᵀ: a [M, K], b [N, K] -> [M, N]. */
export function gemm_nt(a: Tensor, b: Tensor): Tensor {
  return run(a, b, null, NT, a.size(0), a.size(1), b.size(0));
}

/** aᵀ · b: a [K, M], b [K, N] -> [M, N]. */
export function gemm_tn(a: Tensor, b: Tensor): Tensor {
  return run(a, b, null, TN, a.size(1), a.size(0), b.size(1));
}

/** x · w + bias: x [M, K], w [K, N], bias [N] -> [M, N]. */
export function linear(x: Tensor, w: Tensor, bias: Tensor): Tensor {
  return run(x, w, bias, NN, x.size(0), x.size(1), w.size(1));
}

function run(a: Tensor, b: Tensor, bias: Tensor | null, layout: i32, M: i64, K: i64, N: i64): Tensor {
  const out = get_dst_tensor();
  if (M == 0 || N == 0) return out;
  const nt = round_up(<i32>min<i64>(N, NC), NR); // C tile width (row stride of the C tile)
  const col_tiles = ceil_div(N, nt);
  const tiles = ceil_div(M, MC) * col_tiles;
  const count = <i64>get_cpu_count(), id = <i64>get_cpu_id();
  const first = tiles * id / count, last = tiles * (id + 1) / count;
  if (first == last) return out;

  // B's panel is one copy (row stride N) when a tile spans all its columns; otherwise rows of nt floats.
  const whole_b = col_tiles == 1 && layout != NT;
  const b_stride = whole_b ? <i32>N : nt;
  const stage_floats = layout == NT ? 1 : 0; // per k: the staging row that transposes bᵀ
  const kc_max = <i32>min<i64>(max<i64>(K, 1), <i64>(((BUDGET - 2 * SLACK - MC * nt - nt) / (MC + b_stride + stage_floats)) & ~3));
  // A's slice is one copy when it is contiguous: whole rows when K fits one slice (row stride K), or aᵀ's rows when M fits one tile (k stride M).
  const whole_a = layout == TN ? M <= MC : K <= kc_max;

  const abuf = tcm_malloc(<usize>(MC * kc_max + SLACK) << 2);
  const bbuf = tcm_malloc(<usize>(kc_max * b_stride + SLACK) << 2);
  const cbuf = tcm_malloc(<usize>(MC * nt) << 2);
  const stage = layout == NT ? tcm_malloc(<usize>kc_max << 2) : 0;
  const brow = bias ? tcm_malloc(<usize>nt << 2) : 0;
  zero_tcm(abuf, <usize>(MC * kc_max + SLACK) << 2);
  zero_tcm(bbuf, <usize>(kc_max * b_stride + SLACK) << 2);
  zero_tcm(cbuf, <usize>(MC * nt) << 2);
  zero_tcm(stage, <usize>kc_max << 2);
  zero_tcm(brow, <usize>nt << 2);
  const acc_a = a.tcm_accessor(), acc_b = b.tcm_accessor(), dst = out.tcm_accessor();

  // Byte strides of A in TCM: element (i, k) is at abuf + i * a_rs + k * a_ks.
  const a_rs: usize = layout == TN ? 4 : whole_a ? <usize>K << 2 : <usize>kc_max << 2;
  const a_ks: usize = layout == TN ? (whole_a ? <usize>M << 2 : <usize>MC << 2) : 4;

  for (let t = first; t < last; t++) {
    const m0 = (t / col_tiles) * MC, n0 = (t % col_tiles) * nt;
    const mc = <i32>min<i64>(M - m0, MC), nc = <i32>min<i64>(N - n0, nt);
    const rows = round_up(mc, MR), cols = round_up(nc, NR);
    if (K == 0) memory.fill(cbuf, 0, <usize>(MC * nt) << 2);
    for (let k0: i64 = 0; k0 < K; k0 += kc_max) {
      const kc = <i32>min<i64>(K - k0, kc_max);
      if (layout == TN) {
        if (whole_a) acc_a.tensor_to_tcm<f32>(abuf, k0 * M, <i64>kc * M);
        else pack_a_kmajor(acc_a, abuf, M, m0, mc, rows, k0, kc);
      } else if (!whole_a) {
        pack_a_rows(acc_a, abuf, K, m0, mc, rows, k0, kc, kc_max);
      } else if (t == first || n0 == 0) {
        acc_a.tensor_to_tcm<f32>(abuf, m0 * K, <i64>mc * K); // the tile's whole rows, kept while the tiles share them
      }
      if (layout == NT) pack_b_transposed(acc_b, bbuf, stage, K, n0, nc, cols, k0, kc, nt);
      else if (whole_b) acc_b.tensor_to_tcm<f32>(bbuf, k0 * N, <i64>kc * N);
      else pack_b_rows(acc_b, bbuf, N, n0, nc, cols, k0, kc, nt);
      for (let i = 0; i < rows; i += MR) {
        for (let j = 0; j < cols; j += NR) {
          micro_4x8(abuf + <usize>i * a_rs, a_rs, a_ks, at(bbuf, j), <usize>b_stride << 2, at(cbuf, i * nt + j), <usize>nt << 2, kc, k0 == 0);
        }
      }
    }
    if (bias) add_bias(bias.tcm_accessor(), brow, cbuf, n0, nc, cols, mc, nt);
    if (nc == <i32>N && nt == <i32>N) dst.tcm_to_tensor<f32>(cbuf, m0 * N, <i64>mc * N); // the tile's rows are contiguous in C
    else for (let i = 0; i < mc; i++) dst.tcm_to_tensor<f32>(at(cbuf, i * nt), (m0 + i) * N + n0, nc);
  }

  if (brow) tcm_free(brow);
  if (stage) tcm_free(stage);
  tcm_free(cbuf);
  tcm_free(bbuf);
  tcm_free(abuf);
  return out;
}

/** A rows m0..m0+mc, columns k0..k0+kc of a row-major [M, K] into abuf (row stride `stride`); rows mc..rows zeroed. */
function pack_a_rows(acc: TcmAccessor, abuf: usize, K: i64, m0: i64, mc: i32, rows: i32, k0: i64, kc: i32, stride: i32): void {
  for (let i = 0; i < mc; i++) acc.tensor_to_tcm<f32>(at(abuf, i * stride), (m0 + i) * K + k0, kc);
  for (let i = mc; i < rows; i++) memory.fill(at(abuf, i * stride), 0, <usize>kc << 2);
}

/** Rows k0..k0+kc, columns n0..n0+nc of a row-major [K, N] into bbuf (row stride nt); columns nc..cols zeroed. */
function pack_b_rows(acc: TcmAccessor, bbuf: usize, N: i64, n0: i64, nc: i32, cols: i32, k0: i64, kc: i32, nt: i32): void {
  for (let k = 0; k < kc; k++) {
    const row = at(bbuf, k * nt);
    acc.tensor_to_tcm<f32>(row, (k0 + k) * N + n0, nc);
    if (cols > nc) memory.fill(at(row, nc), 0, <usize>(cols - nc) << 2);
  }
}

/** The same panel taken from a row-major [N, K] (bᵀ): each row of b goes through a staging row and is scattered into a column. */
function pack_b_transposed(acc: TcmAccessor, bbuf: usize, stage: usize, K: i64, n0: i64, nc: i32, cols: i32, k0: i64, kc: i32, nt: i32): void {
  for (let j = 0; j < nc; j++) {
    acc.tensor_to_tcm<f32>(stage, (n0 + j) * K + k0, kc);
    for (let k = 0; k < kc; k++) store<f32>(at(bbuf, k * nt + j), load<f32>(at(stage, k)));
  }
  if (cols > nc) for (let k = 0; k < kc; k++) memory.fill(at(bbuf, k * nt + nc), 0, <usize>(cols - nc) << 2);
}
