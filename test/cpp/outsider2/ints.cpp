// Integer tensors (int32, int64, uint8) and integer / floating scalars.
#include <stdint.h>
#include <string.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// int32 x * k + round(bias), saturated to the int32 range: an int64_t and a double scalar.
torch::Tensor saturate_affine(const torch::Tensor& x, int64_t k, double bias) {
    const size_t n = x.numel();
    constexpr size_t BUF = 512;
    torch::Tensor out = get_dst_tensor();
    int32_t* buf = (int32_t*)torch::neuron::tcm_malloc(BUF * sizeof(int32_t));
    auto in = x.tcm_accessor();
    auto o = out.tcm_accessor();
    const int64_t lo = std::numeric_limits<int32_t>::min();
    const int64_t hi = std::numeric_limits<int32_t>::max();
    const int64_t b = std::llround(bias);
    for (size_t i = 0; i < n; i += BUF) {
        const size_t m = std::min<size_t>(BUF, n - i);
        in.tensor_to_tcm<int32_t>(buf, i, m);
        for (size_t j = 0; j < m; j++) {
            int64_t v = (int64_t)buf[j] * k + b;
            buf[j] = (int32_t)std::max(lo, std::min(hi, v));
        }
        o.tcm_to_tensor<int32_t>(buf, i, m);
    }
    torch::neuron::tcm_free(buf);
    return out;
}

// Histogram of a uint8 tensor into int64 [256]: counts in a memset TCM buffer.
torch::Tensor histogram_u8(const torch::Tensor& x) {
    const size_t n = x.numel();
    const size_t BUF = 1000;
    torch::Tensor out = get_dst_tensor();
    int64_t* counts = (int64_t*)torch::neuron::tcm_malloc(256 * sizeof(int64_t));
    uint8_t* buf = (uint8_t*)torch::neuron::tcm_malloc(BUF);
    memset(counts, 0, 256 * sizeof(int64_t));
    auto in = x.tcm_accessor();
    for (size_t i = 0; i < n; i += BUF) {
        const size_t m = std::min(n - i, BUF);
        in.tensor_to_tcm<uint8_t>(buf, i, m);
        for (size_t j = 0; j < m; j++) {
            counts[buf[j]]++;
        }
    }
    out.tcm_accessor().tcm_to_tensor<int64_t>(counts, 0, 256);
    torch::neuron::tcm_free(buf);
    torch::neuron::tcm_free(counts);
    return out;
}

namespace {
constexpr int popcount4(unsigned v) { return v == 0 ? 0 : int(v & 1u) + popcount4(v >> 1); }
}

// uint8 -> float: the low nibble through a static lookup table, plus the popcount of the high
// nibble (a constexpr function, evaluated into a static const table) times a double scale.
torch::Tensor nibble_lut(const torch::Tensor& x, double scale) {
    static const float table[16] = {0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 1.5f, -1.5f, 2.0f,
                                    -2.0f, 3.0f, -3.0f, 4.0f, -4.0f, 6.0f, -6.0f, 8.0f};
    static const int pops[16] = {popcount4(0), popcount4(1), popcount4(2), popcount4(3),
                                 popcount4(4), popcount4(5), popcount4(6), popcount4(7),
                                 popcount4(8), popcount4(9), popcount4(10), popcount4(11),
                                 popcount4(12), popcount4(13), popcount4(14), popcount4(15)};
    const int64_t n = x.numel();
    torch::Tensor out = get_dst_tensor();
    auto rd = x.read_stream_accessor<uint8_t>();
    auto wr = out.write_stream_accessor<float>();
    for (int64_t i = 0; i < n; i++) {
        const uint8_t v = rd.read();
        wr.write(table[v & 0xF] + (float)(pops[v >> 4] * scale));
    }
    return out;
}
