// The seed's shape.cpp for its multicore ReLU, registered as
// seed_relu (relu_forward only: the multicore relu.cpp has no backward).
import { NEURON_LIBRARY, zeros, kFloat, type Tensor } from "gpsimd";

function relu_fwd_shape(t_in: Tensor): Tensor {
  const t_out = zeros(t_in.sizes(), kFloat);
  return t_out;
}

NEURON_LIBRARY("seed_relu", (m) => {
  m.def("relu_forward", relu_fwd_shape, "relu_forward");
});
