// Integer and 16-bit tensors, tensor operations inside a kernel, a tensor made with torch::zeros.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <assert.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// Histogram of a uint8 tensor into `bins` equal buckets over [0, 256), as int64 counts.
torch::Tensor histogram(const torch::Tensor& t_in, int64_t bins) {
    const size_t n = t_in.numel();
    torch::Tensor t_out = get_dst_tensor();
    static constexpr size_t chunk = 512;
    uint8_t* buf = (uint8_t*)torch::neuron::tcm_malloc(chunk);
    int64_t* counts = (int64_t*)torch::neuron::tcm_malloc(sizeof(int64_t) * bins);
    memset(counts, 0, sizeof(int64_t) * bins);
    auto in = t_in.tcm_accessor();
    for (size_t i = 0; i < n; i += chunk) {
        size_t m = n - i < chunk ? n - i : chunk;
        in.tensor_to_tcm<uint8_t>(buf, i, m);
        for (size_t j = 0; j < m; j++) counts[(buf[j] * bins) >> 8]++;
    }
    int64_t total = 0;
    for (int64_t b = 0; b < bins; b++) total += counts[b];
    printf("histogram: %ld values in %ld bins, %lu bytes, %lld\n", total, bins, n, (long long)-1);
    t_out.tcm_accessor().tcm_to_tensor<int64_t>(counts, 0, bins);
    torch::neuron::tcm_free(counts);
    torch::neuron::tcm_free(buf);
    return t_out;
}

// exp(clamp(a + 2*b, -5, 5)) * a, with torch's tensor operations, returned as a new tensor.
torch::Tensor tensor_ops(const torch::Tensor& a, const torch::Tensor& b) {
    assert(a.sizes() == b.sizes());
    torch::Tensor tmp = torch::zeros(a.sizes(), torch::kFloat);
    torch::add_out(tmp, a, b, 2);
    torch::Tensor c = torch::clamp(tmp, -5.0, 5.0);
    torch::Tensor e = torch::exp(c);
    return torch::mul(e, a);
}

static float bf16_to_float(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t float_to_bf16(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1);   // round to nearest even
    return (uint16_t)(bits >> 16);
}

// A bfloat16 tensor times a double, read and written as raw 16-bit patterns through TCM.
torch::Tensor bf16_scale(const torch::Tensor& t_in, double s) {
    const size_t n = t_in.numel();
    torch::Tensor t_out = get_dst_tensor();
    uint16_t* buf = (uint16_t*)torch::neuron::tcm_malloc(sizeof(uint16_t) * 256);
    for (size_t i = 0; i < n; i += 256) {
        size_t m = n - i < 256 ? n - i : 256;
        t_in.tcm_accessor().tensor_to_tcm<uint16_t>(buf, i, m);
        for (size_t j = 0; j < m; j++) buf[j] = float_to_bf16(bf16_to_float(buf[j]) * (float)s);
        t_out.tcm_accessor().tcm_to_tensor<uint16_t>(buf, i, m);
    }
    torch::neuron::tcm_free(buf);
    return t_out;
}
