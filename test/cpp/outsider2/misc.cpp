// printf, tensor operations with _out forms, and a struct of pointers, a lambda and templates.
#include <stdint.h>
#include <stdio.h>
#include <cmath>
#include <algorithm>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

// Centres x on its mean and prints statistics with several format specifiers.
torch::Tensor centre_report(const torch::Tensor& x) {
    const size_t n = x.numel();
    torch::Tensor out = get_dst_tensor();
    auto in = x.accessor<float, 1>();
    auto o = out.accessor<float, 1>();
    float lo = in[0], hi = in[0];
    double sum = 0.0;
    unsigned negatives = 0;
    for (size_t i = 0; i < n; i++) {
        const float v = in[i];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
        if (v < 0) negatives++;
    }
    const double mean = sum / n;
    for (size_t i = 0; i < n; i++) {
        o[i] = (float)(in[i] - mean);
    }
    const int64_t big = (int64_t)n * 1000000007LL;
    printf("n=%zu min=%.3f max=%8.4f mean=%e\n", n, lo, hi, mean);
    printf("neg=%u hex=%#x big=%lld tag=%s/%c ", negatives, (unsigned)n, (long long)big, "rows", 'Z');
    printf("pct=%5.1f%% pad=[%-5d|%05d] sci=%g\n", 100.0 * negatives / n, (int)n, -(int)n, 1.5e-7);
    return out;
}

// out = |clamp(a + alpha * b, -1, 1)^2 - 0.5 * exp(a)| / 2, with torch ops and their _out forms.
torch::Tensor blend_ops(const torch::Tensor& a, const torch::Tensor& b, double alpha) {
    torch::Tensor out = get_dst_tensor();
    torch::Tensor tmp = torch::empty(a.sizes(), torch::kFloat);
    torch::add_out(tmp, a, b, alpha);
    torch::clamp_out(tmp, tmp, -1.0, 1.0);
    torch::mul_out(out, tmp, tmp);
    torch::Tensor e = torch::exp(a);
    torch::sub_out(out, out, e, 0.5);
    torch::Tensor absd = torch::abs(out);
    torch::div_out(out, absd, 2.0);
    return out;
}

namespace {
struct Views {
    const float* x;
    const float* y;
    float* out;
    size_t n;
};

template <typename T>
constexpr T square(T v) { return v * v; }

template <typename F>
void apply(const Views& v, F f) {
    for (size_t i = 0; i < v.n; i++) v.out[i] = f(v.x[i], v.y[i]);
}
}  // namespace

// sqrt((a x)^2 + (b y)^2) in TCM chunks: a torch::Scalar and a double, a struct of TCM pointers,
// a lambda capturing both, templates.
torch::Tensor hypot_scaled(const torch::Tensor& x, const torch::Tensor& y, torch::Scalar a, double b) {
    const size_t n = x.numel();
    constexpr size_t BUF = 300;
    const float alpha = a.to<float>();
    const float beta = (float)b;
    torch::Tensor out = get_dst_tensor();
    Views v;
    v.x = (const float*)torch::neuron::tcm_malloc(BUF * sizeof(float));
    v.y = (const float*)torch::neuron::tcm_malloc(BUF * sizeof(float));
    v.out = (float*)torch::neuron::tcm_malloc(BUF * sizeof(float));
    auto xa = x.tcm_accessor(), ya = y.tcm_accessor(), oa = out.tcm_accessor();
    for (size_t i = 0; i < n; i += BUF) {
        v.n = std::min(BUF, n - i);
        xa.tensor_to_tcm<float>((float*)v.x, i, v.n);
        ya.tensor_to_tcm<float>((float*)v.y, i, v.n);
        apply(v, [alpha, beta](float xi, float yi) { return std::sqrt(square(alpha * xi) + square(beta * yi)); });
        oa.tcm_to_tensor<float>(v.out, i, v.n);
    }
    torch::neuron::tcm_free(v.out);
    torch::neuron::tcm_free((void*)v.y);
    torch::neuron::tcm_free((void*)v.x);
    return out;
}
