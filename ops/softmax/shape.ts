// Shape function of softmax(x): softmax over the last dimension of an [M, C] float32 tensor.
import { zeros, kFloat, type Tensor } from "gpsimd";

/** softmax(x): float32 [M, C]; throws unless x is 2-d (the kernels read float32). */
export function softmax_shape(x: Tensor): Tensor {
  if (x.dim() !== 2) throw new Error(`softmax: x must be M x C (2-d: softmax over each row), got ${x.describe()}`);
  return zeros(x.sizes(), kFloat);
}
