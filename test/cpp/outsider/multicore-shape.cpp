#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor scale_shift_shape(torch::Tensor t_in, double, int64_t) { return torch::zeros(t_in.sizes(), torch::kFloat); }
torch::Tensor row_max_shape(torch::Tensor t_in) { return torch::zeros({t_in.size(0)}, torch::kFloat); }
torch::Tensor heap_hog_shape(torch::Tensor t_in, int64_t) { return torch::zeros(t_in.sizes(), torch::kFloat); }
torch::Tensor format_round_shape(torch::Tensor t_in, int64_t) { return torch::zeros(t_in.sizes(), torch::kFloat); }
torch::Tensor static_scratch_shape(torch::Tensor t_in) { return torch::zeros(t_in.sizes(), torch::kFloat); }
torch::Tensor free_mixup_shape(torch::Tensor t_in, int64_t) { return torch::zeros(t_in.sizes(), torch::kFloat); }

NEURON_LIBRARY(outsider_mc, m) {
    m.def("scale_shift", &scale_shift_shape, "scale_shift");
    m.def("row_max", &row_max_shape, "row_max");
    m.def("heap_hog", &heap_hog_shape, "heap_hog");
    m.def("format_round", &format_round_shape, "format_round");
    m.def("static_scratch", &static_scratch_shape, "static_scratch");
    m.def("free_mixup", &free_mixup_shape, "free_mixup");
}
