// <neuron/neuron-utils.hpp>: get_dst_tensor(), get_cpu_id(), get_cpu_count()
// and torch::neuron::tcm_malloc/tcm_free, all declared with torch::Tensor in
// <torch/torch.h> (gpsimd keeps one header for the kernel API).
#pragma once
#include <torch/torch.h>
