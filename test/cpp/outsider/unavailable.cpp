// What a kernel author may reach for that a GpSimd core cannot give: each line is a build error.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vector>
#include <iostream>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

std::vector<float> weights(16, 1.0f);

torch::Tensor needs_host(const torch::Tensor& t_in) {
    torch::Tensor t_out = get_dst_tensor();
    fprintf(stderr, "starting\n");
    const char* level = getenv("LOG_LEVEL");
    long now = (long)time(nullptr);
    static std::vector<float> cache(4);
    std::cout << "now " << now << std::endl;
    if (now < 0) exit(1);
    auto out = t_out.accessor<float, 1>();
    out[0] = (float)(now + (level ? 1 : 0)) + cache[0] + weights[0];
    return t_out;
}
