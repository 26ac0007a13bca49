// Written as with PyTorch, where auto tmp = o[i] copies the value: in gpsimd an accessor element is a
// reference, so this swap would write the new value back. It is a compile error naming the line.
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor reverse(const torch::Tensor& x) {
    const int64_t n = x.numel();
    torch::Tensor out = get_dst_tensor();
    auto in = x.accessor<float, 1>();
    auto o = out.accessor<float, 1>();
    for (int64_t i = 0; i < n; i++) o[i] = in[i];
    for (int64_t i = 0, j = n - 1; i < j; i++, j--) {
        auto tmp = o[i];
        o[i] = o[j];
        o[j] = tmp;
    }
    return out;
}
