// tensor_add on one core through TCM: 1024-float chunks of both inputs,
// added with v128 code, written into get_dst_tensor().
import { Tensor, get_dst_tensor, tcm_malloc, tcm_free, add_f32 } from "gpsimd";

const BUFFER: i64 = 1024;

export function tensor_add_compute(a: Tensor, b: Tensor): Tensor {
  const n = a.numel();
  const t_out = get_dst_tensor();
  const buf_a = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const buf_b = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const acc_a = a.tcm_accessor(), acc_b = b.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i: i64 = 0; i < n; i += BUFFER) {
    const m = min(n - i, BUFFER);
    acc_a.tensor_to_tcm<f32>(buf_a, i, m);
    acc_b.tensor_to_tcm<f32>(buf_b, i, m);
    add_f32(buf_a, buf_a, buf_b, <usize>m);
    dst.tcm_to_tensor<f32>(buf_a, i, m);
  }
  tcm_free(buf_b);
  tcm_free(buf_a);
  return t_out;
}
