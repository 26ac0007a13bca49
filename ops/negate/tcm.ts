// tensor_negate on one core through TCM (the API reference's TCM example):
// 1024-float chunks negated with v128 code, written into get_dst_tensor().
import { Tensor, get_dst_tensor, tcm_malloc, tcm_free, neg_f32 } from "gpsimd";

const BUFFER: i64 = 1024;

export function tensor_negate_compute(t_in: Tensor): Tensor {
  const num_elem = t_in.numel();
  const t_out = get_dst_tensor();
  const buf = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const src = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i: i64 = 0; i < num_elem; i += BUFFER) {
    const m = min(num_elem - i, BUFFER);
    src.tensor_to_tcm<f32>(buf, i, m);
    neg_f32(buf, buf, <usize>m);
    dst.tcm_to_tensor<f32>(buf, i, m);
  }
  tcm_free(buf);
  return t_out;
}
