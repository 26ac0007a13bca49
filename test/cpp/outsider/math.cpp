// Kernels as a GpSimd author writes them from the README and the Neuron API reference:
// <cmath>, <vector>, <algorithm>, <array>, element-wise 2-d accessors, streams, TCM.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmath>
#include <vector>
#include <array>
#include <algorithm>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// Row-wise softmax of a [rows, cols] tensor, numerically stable.
torch::Tensor softmax_rows(const torch::Tensor& t_in) {
    const int64_t rows = t_in.size(0), cols = t_in.size(1);
    torch::Tensor t_out = get_dst_tensor();
    auto in = t_in.accessor<float, 2>();
    auto out = t_out.accessor<float, 2>();
    std::vector<float> row(cols);
    for (int64_t i = 0; i < rows; i++) {
        float mx = -INFINITY;
        for (int64_t j = 0; j < cols; j++) {
            row[j] = in[i][j];
            mx = std::max(mx, row[j]);
        }
        float sum = 0.0f;
        for (auto& v : row) {
            v = std::exp(v - mx);
            sum += v;
        }
        for (int64_t j = 0; j < cols; j++) out[i][j] = row[j] / sum;
    }
    return t_out;
}

// alpha * GELU(x), tanh approximation, through stream accessors (the writer closed by its destructor).
torch::Tensor gelu_scaled(const torch::Tensor& t_in, double alpha) {
    torch::Tensor t_out = get_dst_tensor();
    auto rd = t_in.read_stream_accessor<float>();
    auto wr = t_out.write_stream_accessor<float>();
    const float k = std::sqrt(2.0f / (float)M_PI);
    for (int64_t i = 0; i < t_in.numel(); i++) {
        float x = rd.read();
        float y = 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * std::pow(x, 3.0f))));
        wr.write((float)(alpha * y));
    }
    rd.close();
    return t_out;   // wr flushes as it goes out of scope
}

// Layer norm over the last dimension of [rows, cols] (cols <= 1024), one row at a time in TCM.
torch::Tensor layernorm_tcm(const torch::Tensor& t_in, double eps) {
    const size_t rows = t_in.size(0), cols = t_in.size(1);
    torch::Tensor t_out = get_dst_tensor();
    float* buf = (float*)torch::neuron::tcm_malloc(sizeof(float) * cols);
    float* stats = (float*)malloc(sizeof(float) * 2 * rows);   // mean, rstd per row
    memset(stats, 0, sizeof(float) * 2 * rows);
    auto in = t_in.tcm_accessor();
    auto out = t_out.tcm_accessor();
    for (size_t r = 0; r < rows; r++) {
        in.tensor_to_tcm<float>(buf, r * cols, cols);
        double sum = 0, sq = 0;
        for (size_t j = 0; j < cols; j++) { sum += buf[j]; sq += (double)buf[j] * buf[j]; }
        double mean = sum / cols;
        double var = sq / cols - mean * mean;
        stats[2 * r] = (float)mean;
        stats[2 * r + 1] = (float)(1.0 / std::sqrt(var + eps));
        for (size_t j = 0; j < cols; j++) buf[j] = (buf[j] - stats[2 * r]) * stats[2 * r + 1];
        out.tcm_to_tensor<float>(buf, r * cols, cols);
    }
    float* copy = (float*)malloc(sizeof(float) * 2 * rows);
    memcpy(copy, stats, sizeof(float) * 2 * rows);
    free(copy);
    free(stats);
    torch::neuron::tcm_free(buf);
    return t_out;
}

namespace {
// Coefficients of a polynomial in a static table, evaluated by recursion (Horner).
static const float kCoeffs[5] = {0.5f, -0.25f, 0.125f, 2.0f, 1.0f};

float horner(const float* c, int n, float x) {
    return n == 0 ? 0.0f : c[0] + x * horner(c + 1, n - 1, x);
}

template <class T>
T clamp_to(T v, T lo, T hi) { return std::min(std::max(v, lo), hi); }

struct Piece {
    float lo, hi;
    float apply(float x) const { return clamp_to(x, lo, hi); }
};
}  // namespace

// A mix of scalar maths per element: floor, fabs, log, a table and recursion, std::array of structs.
torch::Tensor special(const torch::Tensor& t_in) {
    torch::Tensor t_out = get_dst_tensor();
    auto in = t_in.accessor<float, 1>();
    auto out = t_out.accessor<float, 1>();
    const std::array<Piece, 3> pieces = {{{-1.0f, 1.0f}, {0.0f, 2.0f}, {-3.0f, 0.5f}}};
    for (int64_t i = 0; i < t_in.numel(); i++) {
        float x = in[i];
        float f = std::floor(x) + std::fabs(x) + std::log(1.0f + std::fabs(x));
        float p = horner(kCoeffs, 5, clamp_to(x, -2.0f, 2.0f));
        out[i] = f + p + pieces[i % 3].apply(x);
    }
    return t_out;
}
