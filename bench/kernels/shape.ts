// Shape function of the empty kernel: float32 of the input's sizes.
import { zeros, kFloat, type Tensor } from "gpsimd";

/** empty(t_in): float32 of t_in's sizes. */
export function empty_shape(t_in: Tensor): Tensor {
  return zeros(t_in.sizes(), kFloat);
}
