// Kernels that reach for the C++ library: new[]/delete[], std::sort with a lambda,
// std::nth_element and <numeric>, 3-d accessors, int32 tensors, int64_t scalars, printf.
#include <stdint.h>
#include <stdio.h>
#include <vector>
#include <algorithm>
#include <numeric>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// Each row of a [rows, cols] tensor sorted in descending order, for any element type.
template <typename T>
torch::Tensor sort_rows_of(const torch::Tensor& t_in) {
    const int64_t rows = t_in.size(0), cols = t_in.size(1);
    torch::Tensor t_out = get_dst_tensor();
    auto in = t_in.accessor<T, 2>();
    auto out = t_out.accessor<T, 2>();
    T* tmp = new T[cols];
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < cols; j++) tmp[j] = in[i][j];
        std::sort(tmp, tmp + cols, [](T a, T b) { return a > b; });
        for (int64_t j = 0; j < cols; j++) out[i][j] = tmp[j];
    }
    printf("sorted %d rows, first max %d\n", (int)rows, (int)tmp[0]);
    printf("done\n");
    delete[] tmp;
    return t_out;
}

// The int32 kernel, an instance of the template.
torch::Tensor sort_rows(const torch::Tensor& t_in) { return sort_rows_of<int32_t>(t_in); }

// Sum of the k largest values of a 1-d tensor, as a 1-element tensor.
torch::Tensor topk_sum(const torch::Tensor& t_in, int64_t k) {
    const int64_t n = t_in.numel();
    torch::Tensor t_out = get_dst_tensor();
    std::vector<float> v;
    v.reserve(8);   // grows past this: realloc-like moves on the heap
    auto rd = t_in.read_stream_accessor<float>();
    for (int64_t i = 0; i < n; i++) v.push_back(rd.read());
    k = std::min<int64_t>(k, n);
    std::nth_element(v.begin(), v.begin() + (k - 1), v.end(), std::greater<float>());
    float s = std::accumulate(v.begin(), v.begin() + k, 0.0f);
    auto out = t_out.accessor<float, 1>();
    out[0] = s;
    return t_out;
}

template <class T>
struct Stats {
    T lo, hi, sum;
    explicit Stats(T first) : lo(first), hi(first), sum(0) {}
    void add(T v) { lo = std::min(lo, v); hi = std::max(hi, v); sum += v; }
};

// [a, b, c] -> [a, b]: (max - min) + mean over the last dimension, with a 3-d accessor.
torch::Tensor reduce3d(const torch::Tensor& t_in) {
    const int64_t A = t_in.size(0), B = t_in.size(1), C = t_in.size(-1);
    int64_t count = 1;
    for (int64_t s : t_in.sizes()) count *= s;
    torch::Tensor t_out = get_dst_tensor();
    auto in = t_in.accessor<float, 3>();
    auto out = t_out.accessor<float, 2>();
    for (int64_t i = 0; i < A; i++) {
        for (int64_t j = 0; j < B; j++) {
            Stats<float> s(in[i][j][0]);
            for (int64_t k = 0; k < C; k++) s.add(in[i][j][k]);
            out[i][j] = (s.hi - s.lo) + s.sum / (float)(count / (A * B));
        }
    }
    return t_out;
}
