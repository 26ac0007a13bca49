// tensor_add on all cores through TCM: each core adds its own contiguous part
// into get_dst_tensor(), in whole 1024-float chunks spread evenly (the last
// core's part ends at n), so every copy starts on a 4 KB boundary (see
// relu/multicore.ts: misaligned parts copy slower).
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free, add_f32 } from "gpsimd";

const BUFFER: i64 = 1024;

export function tensor_add_compute(a: Tensor, b: Tensor): Tensor {
  const n = a.numel();
  const count = <i64>get_cpu_count();
  const id = <i64>get_cpu_id();
  const chunks = (n + BUFFER - 1) / BUFFER;
  const start = min(chunks * id / count * BUFFER, n);
  const end = min(chunks * (id + 1) / count * BUFFER, n);
  const t_out = get_dst_tensor();
  const buf_a = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const buf_b = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const acc_a = a.tcm_accessor(), acc_b = b.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i = start; i < end; i += BUFFER) {
    const m = min(end - i, BUFFER);
    acc_a.tensor_to_tcm<f32>(buf_a, i, m);
    acc_b.tensor_to_tcm<f32>(buf_b, i, m);
    add_f32(buf_a, buf_a, buf_b, <usize>m);
    dst.tcm_to_tensor<f32>(buf_a, i, m);
  }
  tcm_free(buf_b);
  tcm_free(buf_a);
  return t_out;
}
