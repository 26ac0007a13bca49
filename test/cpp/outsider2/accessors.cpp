// 2-d accessors and TCM row reductions, as a Neuron user writes them.
#include <stdint.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// y = W x for W [rows, cols] and x [cols]: 2-d and 1-d element-wise accessors; the result is a
// tensor made with torch::zeros and returned (the runtime copies it into the output).
torch::Tensor matvec(const torch::Tensor& w, const torch::Tensor& x) {
    const int64_t rows = w.size(0), cols = w.size(1);
    torch::Tensor y = torch::zeros({rows}, torch::kFloat);
    auto w_acc = w.accessor<float, 2>();
    auto x_acc = x.accessor<float, 1>();
    auto y_acc = y.accessor<float, 1>();
    for (int64_t i = 0; i < rows; i++) {
        float sum = 0.0f;
        for (int64_t j = 0; j < cols; j++) {
            sum += w_acc[i][j] * x_acc[j];
        }
        y_acc[i] = sum;
    }
    return y;
}

// [rows, cols] -> [cols, rows], written through a 2-d accessor on the destination tensor.
torch::Tensor transpose2d(const torch::Tensor& x) {
    auto sizes = x.sizes();
    torch::Tensor out = get_dst_tensor();
    auto in = x.accessor<float, 2>();
    auto o = out.accessor<float, 2>();
    for (size_t i = 0; i < sizes[0]; ++i) {
        for (size_t j = 0; j < sizes[1]; ++j) {
            o[j][i] = in[i][j];
        }
    }
    return out;
}

// Inclusive prefix sums along each row of an int64 [rows, cols] tensor, into a torch::empty tensor.
torch::Tensor cumsum_rows_i64(const torch::Tensor& x) {
    const auto rows = x.size(0);
    const auto cols = x.size(1);
    torch::Tensor out = torch::empty({rows, cols}, torch::kLong);
    auto in = x.accessor<int64_t, 2>();
    auto o = out.accessor<int64_t, 2>();
    for (int64_t r = 0; r < rows; r++) {
        int64_t running = 0;
        for (int64_t c = 0; c < cols; c++) {
            running += in[r][c];
            o[r][c] = running;
        }
    }
    return out;
}

static constexpr size_t CHUNK = 256;

// Maximum of each row of [rows, cols] -> [rows], the row streamed through TCM in chunks of CHUNK
// floats (rows may be longer than a chunk); results collected in TCM and copied out once.
torch::Tensor row_max(const torch::Tensor& x) {
    const size_t rows = x.size(0), cols = x.size(1);
    torch::Tensor out = get_dst_tensor();
    float* buf = (float*)torch::neuron::tcm_malloc(CHUNK * sizeof(float));
    float* res = (float*)torch::neuron::tcm_malloc(rows * sizeof(float));
    auto in = x.tcm_accessor();
    auto o = out.tcm_accessor();
    for (size_t r = 0; r < rows; r++) {
        float m = -std::numeric_limits<float>::infinity();
        for (size_t c = 0; c < cols; c += CHUNK) {
            size_t n = std::min(CHUNK, cols - c);
            in.tensor_to_tcm<float>(buf, r * cols + c, n);
            for (size_t k = 0; k < n; k++) {
                m = std::max(m, buf[k]);
            }
        }
        res[r] = m;
    }
    o.tcm_to_tensor<float>(res, 0, rows);
    torch::neuron::tcm_free(res);
    torch::neuron::tcm_free(buf);
    return out;
}
