// ReLU through the element-wise accessor: the tutorial's relu.cpp
// (customop_mlp/neuron/relu.cpp) ported line by line. 2-d tensors only, as
// accessor<float, 2> there; the result is a new tensor the runtime copies
// into the output. The slowest variant by design: every access is checked.
import { Tensor, zeros, kFloat } from "gpsimd";

export function relu_forward(t_in: Tensor): Tensor {
  const t_out = zeros(t_in.sizes(), kFloat);
  const t_in_acc = t_in.accessor2<f32>();
  const t_out_acc = t_out.accessor2<f32>();
  const shape = t_in.sizes();
  for (let i: i64 = 0; i < shape[0]; i++) {
    for (let j: i64 = 0; j < shape[1]; j++) {
      t_out_acc[i][j] = t_in_acc[i][j] > 0.0 ? t_in_acc[i][j] : 0.0;
    }
  }
  return t_out;
}

export function relu_backward(t_grad: Tensor, t_in: Tensor): Tensor {
  const t_out = zeros(t_in.sizes(), kFloat);
  const t_in_acc = t_in.accessor2<f32>();
  const t_grad_acc = t_grad.accessor2<f32>();
  const t_out_acc = t_out.accessor2<f32>();
  const shape = t_in.sizes();
  for (let i: i64 = 0; i < shape[0]; i++) {
    for (let j: i64 = 0; j < shape[1]; j++) {
      t_out_acc[i][j] = t_in_acc[i][j] > 0.0 ? t_grad_acc[i][j] : 0.0;
    }
  }
  return t_out;
}
