// Shape functions of ReLU forward and backward: the output has the input's shape, float32.
import { zeros, kFloat, type Tensor } from "gpsimd";

/** relu_forward(t_in): float32 of t_in's sizes. */
export function relu_forward_shape(t_in: Tensor): Tensor {
  return zeros(t_in.sizes(), kFloat);
}

/** relu_backward(t_grad, t_in): float32 of t_in's sizes; t_grad must have the same sizes (kernels do not broadcast). */
export function relu_backward_shape(t_grad: Tensor, t_in: Tensor): Tensor {
  if (t_grad.sizes().join() !== t_in.sizes().join()) {
    throw new Error(`relu_backward: t_grad ${t_grad.describe()} and t_in ${t_in.describe()} must have the same sizes`);
  }
  return zeros(t_in.sizes(), kFloat);
}
