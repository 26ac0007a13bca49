// Multicore kernels: rows or elements split by get_cpu_id() / get_cpu_count(), remainders handled.
#include <stdint.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

namespace {
// [start, start + count) of this core's share of n items: the first n % cores cores take one more.
struct Share { size_t start, count; };
inline Share share_of(size_t n) {
    const size_t cores = get_cpu_count(), id = get_cpu_id();
    const size_t base = n / cores, rem = n % cores;
    return Share{id * base + std::min(id, rem), base + (id < rem ? 1 : 0)};
}
}  // namespace

// 1 / sqrt(mean(x[r]^2) + eps) per row of [rows, cols] -> [rows]: rows split across cores, each row
// read through TCM in chunks, results batched in TCM and flushed when full.
torch::Tensor row_rsqrt_ms(const torch::Tensor& x, double eps) {
    const size_t rows = x.size(0), cols = x.size(1);
    constexpr size_t CHUNK = 512, RESULTS = 64;
    torch::Tensor out = get_dst_tensor();
    const Share s = share_of(rows);
    float* buf = (float*)torch::neuron::tcm_malloc(CHUNK * sizeof(float));
    float* res = (float*)torch::neuron::tcm_malloc(RESULTS * sizeof(float));
    auto in = x.tcm_accessor();
    auto o = out.tcm_accessor();
    size_t pending = 0, flushed = s.start;
    for (size_t r = s.start; r < s.start + s.count; r++) {
        double ss = 0.0;
        for (size_t c = 0; c < cols; c += CHUNK) {
            const size_t n = std::min(CHUNK, cols - c);
            in.tensor_to_tcm<float>(buf, r * cols + c, n);
            for (size_t k = 0; k < n; k++) ss += (double)buf[k] * buf[k];
        }
        res[pending++] = (float)(1.0 / std::sqrt(ss / cols + eps));
        if (pending == RESULTS) {
            o.tcm_to_tensor<float>(res, flushed, pending);
            flushed += pending;
            pending = 0;
        }
    }
    if (pending > 0) o.tcm_to_tensor<float>(res, flushed, pending);
    torch::neuron::tcm_free(res);
    torch::neuron::tcm_free(buf);
    return out;
}

// x[r][c] * s + r: rows split with a ceiling division, so trailing cores may have nothing to do.
torch::Tensor scale_add_row(const torch::Tensor& x, double s) {
    const size_t rows = x.size(0), cols = x.size(1);
    torch::Tensor out = get_dst_tensor();
    const size_t per = (rows + get_cpu_count() - 1) / get_cpu_count();
    const size_t start = get_cpu_id() * per;
    const size_t end = std::min(rows, start + per);
    if (start >= end) return out;
    float* row = (float*)torch::neuron::tcm_malloc(cols * sizeof(float));
    auto in = x.tcm_accessor();
    auto o = out.tcm_accessor();
    for (size_t r = start; r < end; r++) {
        in.tensor_to_tcm<float>(row, r * cols, cols);
        for (size_t c = 0; c < cols; c++) row[c] = row[c] * (float)s + (float)r;
        o.tcm_to_tensor<float>(row, r * cols, cols);
    }
    torch::neuron::tcm_free(row);
    return out;
}

// |x| of an int32 tensor as int64 (so INT32_MIN has an absolute value): elements split with the
// remainder going to the last core.
torch::Tensor abs_widen(const torch::Tensor& x) {
    const int64_t n = x.numel();
    constexpr int64_t BUF = 1024;
    torch::Tensor out = get_dst_tensor();
    const int64_t cores = get_cpu_count(), id = get_cpu_id();
    const int64_t part = n / cores;
    const int64_t begin = part * id;
    const int64_t end = id == cores - 1 ? n : begin + part;
    int32_t* src = (int32_t*)torch::neuron::tcm_malloc(BUF * sizeof(int32_t));
    int64_t* dst = (int64_t*)torch::neuron::tcm_malloc(BUF * sizeof(int64_t));
    auto in = x.tcm_accessor();
    auto o = out.tcm_accessor();
    for (int64_t i = begin; i < end; i += BUF) {
        const int64_t m = std::min(BUF, end - i);
        in.tensor_to_tcm<int32_t>(src, i, m);
        for (int64_t j = 0; j < m; j++) dst[j] = std::abs((int64_t)src[j]);
        o.tcm_to_tensor<int64_t>(dst, i, m);
    }
    torch::neuron::tcm_free(dst);
    torch::neuron::tcm_free(src);
    return out;
}
