// Multicore kernels (custom_op.load with multicore: true): every core runs the kernel on its share.
#include <stdint.h>
#include <cstdio>
#include <stdlib.h>
#include <cassert>
#include <vector>
#include <algorithm>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// x * scale + shift, split in contiguous parts; the last core also takes the remainder.
torch::Tensor scale_shift(const torch::Tensor& t_in, double scale, int64_t shift) {
    const size_t n = t_in.numel();
    torch::Tensor t_out = get_dst_tensor();
    const uint32_t cpu_id = get_cpu_id(), cpu_count = get_cpu_count();
    const size_t part = n / cpu_count;
    const size_t begin = part * cpu_id;
    const size_t end = cpu_id == cpu_count - 1 ? n : begin + part;
    static constexpr size_t chunk = 256;
    float* buf = (float*)torch::neuron::tcm_malloc(chunk * sizeof(float));
    std::vector<float> scratch(chunk);   // each core's own heap
    auto in = t_in.tcm_accessor();
    auto out = t_out.tcm_accessor();
    for (size_t i = begin; i < end; i += chunk) {
        size_t m = std::min(chunk, end - i);
        in.tensor_to_tcm<float>(buf, i, m);
        std::transform(buf, buf + m, scratch.begin(), [&](float x) { return (float)(x * scale + shift); });
        std::copy(scratch.begin(), scratch.begin() + m, buf);
        out.tcm_to_tensor<float>(buf, i, m);
    }
    if (cpu_id == 0) std::printf("core 0 of %u did [%lu, %lu)\n", cpu_count, begin, end);   // size_t is unsigned long on the device
    torch::neuron::tcm_free(buf);
    return t_out;
}

// The maximum of each row of [rows, cols], rows dealt to the cores in turn.
torch::Tensor row_max(const torch::Tensor& t_in) {
    const int64_t rows = t_in.size(0), cols = t_in.size(1);
    torch::Tensor t_out = get_dst_tensor();
    float* row = (float*)torch::neuron::tcm_malloc(sizeof(float) * cols);
    float* best = new float[1];   // the heap, then copied to TCM for the store
    for (int64_t r = get_cpu_id(); r < rows; r += get_cpu_count()) {
        t_in.tcm_accessor().tensor_to_tcm<float>(row, r * cols, cols);
        *best = *std::max_element(row, row + cols);
        row[0] = *best;
        t_out.tcm_accessor().tcm_to_tensor<float>(row, r, 1);
    }
    delete[] best;
    torch::neuron::tcm_free(row);
    return t_out;
}

// Sums n doubles kept in a std::vector on each core (n large: more than the kernel heap holds).
torch::Tensor heap_hog(const torch::Tensor& t_in, int64_t n) {
    assert(n > 0);
    torch::Tensor t_out = get_dst_tensor();
    std::vector<double> v(n, 0.5);
    double s = 0;
    for (double x : v) s += x;
    float* one = (float*)torch::neuron::tcm_malloc(sizeof(float));
    *one = (float)s;
    if (get_cpu_id() < (uint32_t)t_in.numel()) t_out.tcm_accessor().tcm_to_tensor<float>(one, get_cpu_id(), 1);
    torch::neuron::tcm_free(one);
    return t_out;
}

// Each element printed with snprintf to `digits` decimals and read back with strtof, on every core's share.
// A negative `digits` asks for a long double, which the C library's formatter reports on stderr: no such thing here.
torch::Tensor format_round(const torch::Tensor& t_in, int64_t digits) {
    const size_t n = t_in.numel();
    torch::Tensor t_out = get_dst_tensor();
    const size_t part = (n + get_cpu_count() - 1) / get_cpu_count();
    const size_t begin = std::min(n, part * get_cpu_id()), end = std::min(n, begin + part);
    if (begin == end) return t_out;
    float* buf = (float*)torch::neuron::tcm_malloc(sizeof(float) * (end - begin));
    t_in.tcm_accessor().tensor_to_tcm<float>(buf, begin, end - begin);
    for (size_t i = 0; i < end - begin; i++) {
        char text[64];
        if (digits < 0) snprintf(text, sizeof text, "%Lf", (long double)buf[i]);
        else snprintf(text, sizeof text, "%.*f", (int)digits, buf[i]);
        buf[i] = strtof(text, nullptr);
    }
    t_out.tcm_accessor().tcm_to_tensor<float>(buf, begin, end - begin);
    torch::neuron::tcm_free(buf);
    return t_out;
}

// Scratch space in zero-initialised static memory: each core fills its share of all 4096 entries, then reads it back.
static float scratch[4096];

torch::Tensor static_scratch(const torch::Tensor& t_in) {
    const size_t n = std::min<size_t>(t_in.numel(), 4096);
    torch::Tensor t_out = get_dst_tensor();
    const size_t part = 4096 / get_cpu_count();
    const size_t begin = part * get_cpu_id(), end = begin + part;
    float* buf = (float*)torch::neuron::tcm_malloc(sizeof(float) * part);
    if (begin < n) t_in.tcm_accessor().tensor_to_tcm<float>(buf, begin, std::min(end, n) - begin);
    for (size_t i = begin; i < end; i++) scratch[i] = i < n ? 2.0f * buf[i - begin] : -1.0f;
    for (size_t i = begin; i < end; i++) buf[i - begin] = scratch[i] + 1.0f;
    if (begin < n) t_out.tcm_accessor().tcm_to_tensor<float>(buf, begin, std::min(end, n) - begin);
    torch::neuron::tcm_free(buf);
    return t_out;
}

// Frees a TCM block with free() instead of tcm_free (a mix-up the device does not catch) when `wrong` is set.
torch::Tensor free_mixup(const torch::Tensor& t_in, int64_t wrong) {
    torch::Tensor t_out = get_dst_tensor();
    float* buf = (float*)torch::neuron::tcm_malloc(sizeof(float) * 8);
    float* heap = (float*)malloc(sizeof(float) * 8);
    const int64_t n = std::min<int64_t>(t_in.numel(), 8);
    if (get_cpu_id() == 0) {
        t_in.tcm_accessor().tensor_to_tcm<float>(buf, 0, n);
        for (int64_t i = 0; i < n; i++) heap[i] = buf[i] * 3.0f;
        for (int64_t i = 0; i < n; i++) buf[i] = heap[i];
        t_out.tcm_accessor().tcm_to_tensor<float>(buf, 0, n);
    }
    free(heap);
    if (wrong) free(buf);
    else torch::neuron::tcm_free(buf);
    return t_out;
}
