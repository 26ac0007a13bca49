// ReLU on all cores through TCM (seed: custom-cpp-ops-perf-optimization,
// neuron-multicore/relu.cpp), with its remainder bug fixed. The seed gives
// each core n / count elements; here each core takes whole 1024-float chunks
// (spread evenly, the last core's part ending at n), so every copy starts on
// a 4 KB boundary: with n / count parts, cores 1-7 copied misaligned and ran
// up to 1.4x slower than core 0 (999 x 1001 elements).
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free, relu_f32, relu_backward_f32 } from "gpsimd";

const BUFFER: i64 = 1024;

/** [start, end) of this core's part of n elements: whole BUFFER chunks, spread evenly (the last core's part ends at n). */
// @ts-ignore: decorator
@inline function partition(n: i64): StaticArray<i64> {
  const count = <i64>get_cpu_count();
  const id = <i64>get_cpu_id();
  const chunks = (n + BUFFER - 1) / BUFFER;
  const start = min(chunks * id / count * BUFFER, n);
  const end = min(chunks * (id + 1) / count * BUFFER, n);
  return [start, end];
}

export function relu_forward(t_in: Tensor): Tensor {
  const t_out = get_dst_tensor();
  const part = partition(t_in.numel());
  const start = part[0], end = part[1];
  const buf = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const src = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i = start; i < end; i += BUFFER) {
    const m = min(end - i, BUFFER);
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
  const start = part[0], end = part[1];
  const grad = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const x = tcm_malloc(<usize>BUFFER * sizeof<f32>());
  const g = t_grad.tcm_accessor(), xin = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i = start; i < end; i += BUFFER) {
    const m = min(end - i, BUFFER);
    g.tensor_to_tcm<f32>(grad, i, m);
    xin.tensor_to_tcm<f32>(x, i, m);
    relu_backward_f32(grad, grad, x, <usize>m);
    dst.tcm_to_tensor<f32>(grad, i, m);
  }
  tcm_free(x);
  tcm_free(grad);
  return t_out;
}
