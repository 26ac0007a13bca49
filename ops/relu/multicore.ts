// ReLU on all cores through TCM (seed: custom-cpp-ops-perf-optimization,
// neuron-multicore/relu.cpp), with the last partition's offset fixed: every
// core starts at base * cpu_id, and the last core also takes the remainder.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free, relu_f32, relu_backward_f32 } from "gpsimd";

const BUFFER: i64 = 1024;

/** [start, end) of this core's part of n elements. */
// @ts-ignore: decorator
@inline function partition(n: i64): StaticArray<i64> {
  const count = <i64>get_cpu_count();
  const id = <i64>get_cpu_id();
  const base = n / count;
  const start = base * id;
  const end = id == count - 1 ? n : start + base;
  return [start, end];
}

export function relu_forward(t_in: Tensor): Tensor {
  const t_out = get_dst_tensor();
  const part = partition(t_in.numel());
  const buf = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const src = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i = part[0]; i < part[1]; i += BUFFER) {
    const m = min(part[1] - i, BUFFER);
    src.tensor_to_tcm<f32>(buf, i, m);
    relu_f32(buf, buf, <usize>m);
    dst.tcm_to_tensor<f32>(buf, i, m);
  }
  tcm_free(buf);
  return t_out;
}

export function relu_backward(t_grad: Tensor, t_in: Tensor): Tensor {
  const t_out = get_dst_tensor();
  const part = partition(t_in.numel());
  const grad = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const x = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const g = t_grad.tcm_accessor(), xin = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i = part[0]; i < part[1]; i += BUFFER) {
    const m = min(part[1] - i, BUFFER);
    g.tensor_to_tcm<f32>(grad, i, m);
    xin.tensor_to_tcm<f32>(x, i, m);
    relu_backward_f32(grad, grad, x, <usize>m);
    dst.tcm_to_tensor<f32>(grad, i, m);
  }
  tcm_free(x);
  tcm_free(grad);
  return t_out;
}
