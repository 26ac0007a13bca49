// ReLU on one core through TCM (seed: neuron-tcm/relu.cpp): 1024-float
// chunks copied in, rectified with branch-free v128 code, copied out into
// get_dst_tensor() (no return copy).
import { Tensor, get_dst_tensor, tcm_malloc, tcm_free, relu_f32, relu_backward_f32 } from "gpsimd";

const BUFFER: i64 = 1024;

export function relu_forward(t_in: Tensor): Tensor {
  const n = t_in.numel();
  const t_out = get_dst_tensor();
  const buf = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const src = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i: i64 = 0; i < n; i += BUFFER) {
    const m = min(n - i, BUFFER);
    src.tensor_to_tcm<f32>(buf, i, m);
    relu_f32(buf, buf, <usize>m);
    dst.tcm_to_tensor<f32>(buf, i, m);
  }
  tcm_free(buf);
  return t_out;
}

export function relu_backward(t_grad: Tensor, t_in: Tensor): Tensor {
  const n = t_in.numel();
  const t_out = get_dst_tensor();
  const grad = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const x = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const g = t_grad.tcm_accessor(), xin = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i: i64 = 0; i < n; i += BUFFER) {
    const m = min(n - i, BUFFER);
    g.tensor_to_tcm<f32>(grad, i, m);
    xin.tensor_to_tcm<f32>(x, i, m);
    relu_backward_f32(grad, grad, x, <usize>m);
    dst.tcm_to_tensor<f32>(grad, i, m);
  }
  tcm_free(x);
  tcm_free(grad);
  return t_out;
}
