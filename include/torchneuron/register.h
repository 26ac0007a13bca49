// "torchneuron/register.h": NEURON_LIBRARY(lib, m) { m.def(op, &shape_fn, "kernel"); }.
// In a kernel (compute) build the registration is only type-checked: gpsimd
// registers operators from the shape sources, on the host.
//
// Contract with the compute build (build/cpp/): a kernel is any top-level
// function of a compute source that returns torch::Tensor and takes
// torch::Tensor (by value or const&), double, int64_t or torch::Scalar; the
// build exports it from the kernel module under its plain C++ name (no
// extern "C" needed), which is the "kernel" string of m.def. Tensors cross as
// descriptor addresses, double and Scalar as f64, int64_t as i64.
// A host-side (shape) build may define GPSIMD_SHAPE_SIDE before including
// this header and provide its own Library/NEURON_LIBRARY that records the
// definitions; the compute build never runs them.
#pragma once
#include <torch/torch.h>

#ifndef GPSIMD_SHAPE_SIDE
namespace torch {
/** The m of NEURON_LIBRARY(lib, m). */
class Library {
 public:
  template <class F> Library& def(const char*, F, const char* = nullptr) { return *this; }
};
}  // namespace torch

#define NEURON_LIBRARY(ns, m) static void gpsimd_neuron_library_##ns(torch::Library& m)
#endif
