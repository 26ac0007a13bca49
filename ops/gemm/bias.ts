// The bias gradient of a linear layer: column sums of grad [M, N] -> [N].
// Each core sums its own range of columns, in pieces of up to 1024 columns:
// every row's piece is copied into TCM and added to the sums with f32x4.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free, add_f32 } from "gpsimd";

const PIECE: i64 = 1024;

export function bias_grad(grad: Tensor): Tensor {
  const out = get_dst_tensor();
  const M = grad.size(0), N = grad.size(1);
  const count = <i64>get_cpu_count(), id = <i64>get_cpu_id();
  const first = N * id / count, last = N * (id + 1) / count;
  if (first == last) return out;
  const sums = tcm_malloc(<usize>PIECE << 2), row = tcm_malloc(<usize>PIECE << 2);
  const src = grad.tcm_accessor(), dst = out.tcm_accessor();
  for (let n0 = first; n0 < last; n0 += PIECE) {
    const w = min(last - n0, PIECE);
    memory.fill(sums, 0, <usize>w << 2);
    for (let m: i64 = 0; m < M; m++) {
      src.tensor_to_tcm<f32>(row, m * N + n0, w);
      add_f32(sums, sums, row, <usize>w);
    }
    dst.tcm_to_tensor<f32>(sums, n0, w);
  }
  tcm_free(row);
  tcm_free(sums);
  return out;
}
