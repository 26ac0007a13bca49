#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

torch::Tensor tensor_negate_compute(const torch::Tensor& t_in) {
   size_t num_elem = t_in.numel();
   torch::Tensor t_out = torch::zeros({num_elem}, torch::kFloat);

   auto t_in_acc = t_in.accessor<float, 1>();
   auto t_out_acc = t_out.accessor<float, 1>();
   for (size_t i = 0; i < num_elem; i++) {
      t_out_acc[i] = -1 * t_in_acc[i];
   }
   return t_out;
}
