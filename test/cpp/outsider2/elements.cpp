// Accessor elements used as PyTorch's T& is used: std::swap, std::min/std::max with a float, ++ and
// compound operators on integers, printf of an element, acc.size(d) of a 2-d accessor.
#include <stdint.h>
#include <algorithm>
#include <utility>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// Each row of [rows, cols] reversed in the output: copied, then swapped in place, two ways.
torch::Tensor flip_rows(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    auto in = x.accessor<float, 2>();
    auto o = out.accessor<float, 2>();
    for (int64_t r = 0; r < in.size(0); r++) {
        for (int64_t c = 0; c < in.size(1); c++) o[r][c] = in[r][c];
    }
    for (int64_t r = 0; r < o.size(0); r++) {
        for (int64_t i = 0, j = o.size(1) - 1; i < j; i++, j--) {
            if (r % 2 == 0) {
                std::swap(o[r][i], o[r][j]);
            } else {
                float tmp = o[r][i];
                o[r][i] = o[r][j];
                o[r][j] = tmp;
            }
        }
    }
    return out;
}

// Counts of each uint8 value, incremented in the int64 output through an accessor.
torch::Tensor count_u8(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    out.fill_(0);
    auto in = x.accessor<uint8_t, 1>();
    auto counts = out.accessor<int64_t, 1>();
    for (int64_t i = 0; i < in.size(0); i++) counts[in[i]]++;
    return out;
}

// ReLU with std::max of an element and a float; the first elements printed as they are read.
torch::Tensor relu_print(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    auto in = x.accessor<float, 1>();
    auto o = out.accessor<float, 1>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; i++) {
        o[i] = std::max(in[i], 0.0f);
        if (i < 3) printf("x[%lld]=%.2f relu=%g\n", (long long)i, in[i], o[i]);
    }
    return out;
}

// y[i] = sum_j min(w[i][j], x[j]) - max(w[i][j], x[j]): std::min/std::max of a 2-d and a 1-d element.
torch::Tensor minmax_matvec(const torch::Tensor& w, const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    auto wa = w.accessor<float, 2>();
    auto xa = x.accessor<float, 1>();
    auto ya = out.accessor<float, 1>();
    for (int64_t i = 0; i < wa.size(0); i++) {
        float s = 0.0f;
        for (int64_t j = 0; j < wa.size(1); j++) s += std::min(wa[i][j], xa[j]) - std::max(wa[i][j], xa[j]);
        ya[i] = s;
    }
    return out;
}

// int32 bit operations applied in place on output elements: <<= ^= %= -- ++ |= &=.
torch::Tensor bits_i32(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    auto in = x.accessor<int32_t, 1>();
    auto o = out.accessor<int32_t, 1>();
    for (int64_t i = 0; i < x.numel(); i++) {
        o[i] = in[i];
        o[i] <<= 2;
        o[i] ^= 0x55;
        o[i] %= 1000;
        o[i]--;
        ++o[i];
        ++o[i];
        o[i] |= 0x100;
        o[i] &= 0x7ff;
    }
    return out;
}

// The sum of a float16 tensor as float; its first two elements printed (an element, and a c10::Half value).
torch::Tensor half_sum(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    auto in = x.accessor<c10::Half, 1>();
    float s = 0.0f;
    for (int64_t i = 0; i < x.numel(); i++) s += in[i];
    const c10::Half second = in[1];
    printf("first=%.3f second=%.3f\n", in[0], second);
    out.accessor<float, 1>()[0] = s;
    return out;
}

// Factories as libtorch code writes them: sizes().vec(), TensorOptions, x.options(), the _like forms.
torch::Tensor like_factories(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    auto s = x.sizes().vec();
    torch::Tensor ones = torch::ones_like(x);
    torch::Tensor two = torch::full(s, 2, torch::dtype(torch::kFloat));
    torch::Tensor sum = torch::empty_like(x, x.options());
    torch::add_out(sum, ones, two);
    auto in = sum.accessor<float, 2>();
    auto o = out.accessor<float, 3>();
    for (int64_t i = 0; i < x.size(0); i++) {
        for (int64_t j = 0; j < x.size(1); j++) o[i][0][j] = in[i][j] * (float)sum.element_size() + (float)x.sizes().back();
    }
    return out;
}

// Only its shape function is of interest: it allocates 64 MB per call (see elements-shape.cpp).
torch::Tensor big_shape_fn(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    out.fill_(1.0);
    return out;
}

// bfloat16 values updated in TCM with compound assignments, rounded to bfloat16 at each step as c10's are.
torch::Tensor bf16_update(const torch::Tensor& x) {
    torch::Tensor out = get_dst_tensor();
    const int64_t n = x.numel();
    c10::BFloat16* buf = (c10::BFloat16*)torch::neuron::tcm_malloc(n * sizeof(c10::BFloat16));
    x.tcm_accessor().tensor_to_tcm<c10::BFloat16>(buf, 0, n);
    for (int64_t i = 0; i < n; i++) {
        buf[i] += 0.1f;
        buf[i] *= 3;
        buf[i] -= c10::BFloat16(0.5f);
        buf[i] /= 7;
    }
    out.tcm_accessor().tcm_to_tensor<c10::BFloat16>(buf, 0, n);
    torch::neuron::tcm_free(buf);
    return out;
}
