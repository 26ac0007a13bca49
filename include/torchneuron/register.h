// "torchneuron/register.h": NEURON_LIBRARY(lib, m) { m.def(op, &shape_fn, "kernel"); }.
// In a kernel (compute) build the registration is only type-checked: gpsimd
// registers operators from the shape sources, on the host.
#pragma once
#include <torch/torch.h>

namespace torch {
/** The m of NEURON_LIBRARY(lib, m). */
class Library {
 public:
  template <class F> Library& def(const char*, F, const char* = nullptr) { return *this; }
};
}  // namespace torch

#define NEURON_LIBRARY(ns, m) static void gpsimd_neuron_library_##ns(torch::Library& m)
