// Not a seed: the shape function and registration the API guide's
// tensor_add_compute examples are built with (the guide shows only the
// kernels), written like its tensor_negate shape function.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor tensor_add_shape(torch::Tensor t1, torch::Tensor t2) {
    size_t num_elem = t1.numel();
    torch::Tensor t_out = torch::zeros({num_elem}, torch::kFloat);

    return t_out;
}

NEURON_LIBRARY(my_ops, m) {
    m.def("tensor_add", &tensor_add_shape, "tensor_add_compute");
}
