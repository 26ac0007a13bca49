// Shape function of tensor_negate: float32 of the input's sizes. (The
// developer guide's shape function returns a 1-d tensor of numel elements;
// keeping the input's sizes is what a caller expects, and the element-wise
// kernel's flat result has the same count, which is all the copy back needs.)
import { zeros, kFloat, type Tensor } from "gpsimd";

/** tensor_negate(t_in): float32 of t_in's sizes. */
export function tensor_negate_shape(t_in: Tensor): Tensor {
  return zeros(t_in.sizes(), kFloat);
}
