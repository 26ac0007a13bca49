// Shape functions of ReLU forward and backward: the output has the input's shape, float32.
import { zeros, kFloat, type Tensor } from "gpsimd";

/** relu_forward(t_in): float32 of t_in's sizes. */
export function relu_forward_shape(t_in: Tensor): Tensor {
  return zeros(t_in.sizes(), kFloat);
}

/** relu_backward(t_grad, t_in): float32 of t_in's sizes. */
export function relu_backward_shape(_t_grad: Tensor, t_in: Tensor): Tensor {
  return zeros(t_in.sizes(), kFloat);
}
