#include <array>
#include <vector>
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor same_float(torch::Tensor x) { return torch::empty_like(x, torch::kFloat); }
torch::Tensor same_bf16(torch::Tensor x) { return torch::empty_like(x); }
torch::Tensor same_int(torch::Tensor x) { return torch::empty(x.sizes(), torch::kInt); }
torch::Tensor counts_shape(torch::Tensor x) { return torch::empty({256}, torch::kLong); }
torch::Tensor rows_shape(torch::Tensor w, torch::Tensor x) { return torch::empty({w.size(0)}, torch::kFloat); }
torch::Tensor one_float(torch::Tensor x) { return torch::empty({1}, torch::kFloat); }
// [rows, cols] -> [rows, 1, cols]: a sizes vector changed and grown, then a std::array.
torch::Tensor like_shape(torch::Tensor x) {
    auto s = x.sizes().vec();
    s.back() = 1;
    s.push_back(x.size(-1));
    std::array<int64_t, 3> a = {s[0], s[1], s[2]};
    torch::Tensor t = torch::empty(a, x.options());
    return torch::zeros_like(t, torch::TensorOptions().dtype(torch::kFloat));
}
// 64 MB of scratch per call: the shape module's heap is emptied before each call, so calls do not accumulate.
torch::Tensor big_shape(torch::Tensor x) {
    std::vector<int64_t> scratch(8 * 1024 * 1024, x.size(0));
    return torch::empty({scratch.back()}, torch::kFloat);
}

NEURON_LIBRARY(outsider2_el, m) {
    m.def("flip_rows", &same_float, "flip_rows");
    m.def("count_u8", &counts_shape, "count_u8");
    m.def("relu_print", &same_float, "relu_print");
    m.def("minmax_matvec", &rows_shape, "minmax_matvec");
    m.def("bits_i32", &same_int, "bits_i32");
    m.def("half_sum", &one_float, "half_sum");
    m.def("like_factories", &like_shape, "like_factories");
    m.def("big_shape_fn", &big_shape, "big_shape_fn");
    m.def("bf16_update", &same_bf16, "bf16_update");
}
