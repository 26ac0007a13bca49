// Shape function of tensor_add: float32 of the inputs' sizes. Kernels on the
// device do not broadcast, so both inputs must have the same sizes.
import { zeros, kFloat, type Tensor } from "gpsimd";

/** tensor_add(a, b): float32 of a's sizes; throws when b's sizes differ. */
export function tensor_add_shape(a: Tensor, b: Tensor): Tensor {
  if (a.sizes().join() !== b.sizes().join()) {
    throw new Error(`tensor_add: a ${a.describe()} and b ${b.describe()} must have the same sizes (operators on the device do not broadcast)`);
  }
  return zeros(a.sizes(), kFloat);
}
