// Not a seed: the shape function and registration the tutorial's relu.cpp
// files are built with (its shape.cpp is in the MLP training tutorial, not in
// the seed text), written the same way as the GIOU blog's shape.cpp.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor relu_fwd_shape(torch::Tensor t_in) {
    torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
    return t_out;
}

NEURON_LIBRARY(my_ops, m) {
    m.def("relu_forward", &relu_fwd_shape, "relu_forward");
}
