// tensor_negate through the element-wise accessor, as the developer guide's
// tensor_negate_compute: a new tensor, filled element by element through flat
// accessors and returned (the runtime copies it into the output). The guide
// makes it 1-d, zeros({num_elem}); it takes the input's sizes here, which fit
// the device's limits whenever the input does (a 1-d tensor of more than 65535
// elements needs Neuron SDK 2.18 or later).
import { Tensor, zeros, kFloat } from "gpsimd";

export function tensor_negate_compute(t_in: Tensor): Tensor {
  const num_elem = t_in.numel();
  const t_out = zeros(t_in.sizes(), kFloat);
  const t_in_acc = t_in.accessor<f32>();
  const t_out_acc = t_out.accessor<f32>();
  for (let i: i64 = 0; i < num_elem; i++) {
    t_out_acc[i] = -1 * t_in_acc[i];
  }
  return t_out;
}
