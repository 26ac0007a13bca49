#include <vector>
#include <utility>
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor matvec_shape(torch::Tensor w, torch::Tensor x) {
    return torch::zeros({w.size(0)}, torch::kFloat);
}
// Shape functions written as with libtorch on the host: sizes().vec(), std::vector, options(), empty_like.
torch::Tensor transpose_shape(torch::Tensor x) {
    auto s = x.sizes().vec();
    std::swap(s[0], s[1]);
    return torch::empty(s, x.options());
}
torch::Tensor same_shape_i64(torch::Tensor x) { return torch::empty_like(x); }
torch::Tensor row_shape(torch::Tensor x) {
    std::vector<int64_t> s = {x.size(0)};
    return torch::empty(s, torch::TensorOptions().dtype(torch::kFloat));
}
torch::Tensor affine_shape(torch::Tensor x, int64_t k, double bias) { return torch::empty(x.sizes(), torch::kInt); }
torch::Tensor hist_shape(torch::Tensor x) { return torch::zeros({256}, torch::kInt64); }
torch::Tensor lut_shape(torch::Tensor x, double scale) { return torch::empty(x.sizes(), torch::kFloat); }
torch::Tensor same_shape(torch::Tensor x) { return torch::empty(x.sizes(), torch::kFloat); }
torch::Tensor blend_shape(torch::Tensor a, torch::Tensor b, double alpha) { return torch::empty(a.sizes(), torch::kFloat); }
torch::Tensor hypot_shape(torch::Tensor x, torch::Tensor y, torch::Scalar a, double b) { return torch::empty(x.sizes(), torch::kFloat); }

NEURON_LIBRARY(outsider2, m) {
    m.def("matvec", &matvec_shape, "matvec");
    m.def("transpose2d", &transpose_shape, "transpose2d");
    m.def("cumsum_rows_i64", &same_shape_i64, "cumsum_rows_i64");
    m.def("row_max", &row_shape, "row_max");
    m.def("saturate_affine", &affine_shape, "saturate_affine");
    m.def("histogram_u8", &hist_shape, "histogram_u8");
    m.def("nibble_lut", &lut_shape, "nibble_lut");
    m.def("centre_report", &same_shape, "centre_report");
    m.def("blend_ops", &blend_shape, "blend_ops");
    m.def("hypot_scaled", &hypot_shape, "hypot_scaled");
}
