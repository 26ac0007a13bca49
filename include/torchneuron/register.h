// torchneuron/register.h: NEURON_LIBRARY(lib, m) { m.def(op, &shape_fn, kernel); }
//
// Shape sources are compiled for the host, not the device: gpsimd runs their
// NEURON_LIBRARY body when the library loads and calls a shape function with
// meta tensors (sizes and dtype, no data) each time the operator is called.
//
// The contract with the host (host/library/cpp-shapes.ts), import module
// "gpsimd-shape":
//   def(op, op_len, kernel, kernel_len, params, params_len, thunk, fn, argv)
//     registers operator `op`: `params` has one letter per parameter of the
//     shape function ('t' torch::Tensor, 'd' double, 'l' int64_t, 's'
//     torch::Scalar); the host calls it as thunk(fn, argv) through the
//     function table after writing one 8-byte slot per argument at argv (a
//     tensor handle as int32, a double, an int64_t); the thunk returns the
//     handle of the output tensor.
// Each NEURON_LIBRARY exports "neuron_library:<lib>", which runs its body.
// The shape build defines GPSIMD_SHAPE_MODULE; elsewhere NEURON_LIBRARY only
// type-checks its body.
//
// Contract with the compute build (build/cpp/): a kernel is any top-level
// function of a compute source that returns torch::Tensor and takes
// torch::Tensor (by value or const&), double, int64_t or torch::Scalar; the
// build exports it from the kernel module under its plain C++ name (no
// extern "C" needed), which is the "kernel" string of m.def. Tensors cross as
// descriptor addresses, double and Scalar as f64, int64_t as i64.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <torch/torch.h>

#ifndef GPSIMD_SHAPE_MODULE
// In a kernel (compute) build the registration is only type-checked: gpsimd
// registers operators from the shape sources, on the host.
namespace torch {
/** The m of NEURON_LIBRARY(lib, m). */
class Library {
 public:
  template <class F> Library& def(const char*, F, const char* = nullptr) { return *this; }
};
}  // namespace torch
#define NEURON_LIBRARY(ns, m) static void gpsimd_neuron_library_##ns(torch::Library& m)
#else

namespace torch {
namespace neuron {
namespace shape_abi {

extern "C" __attribute__((import_module("gpsimd-shape"), import_name("def")))
void gpsimd_shape_def(const char* op, size_t op_len, const char* kernel, size_t kernel_len,
                      const char* params, size_t params_len, uint32_t thunk, uint32_t fn, void* argv);

/** One argument of a shape-function call, as the host writes it. */
union Slot { int32_t tensor; double f64; int64_t i64; };

/** Room for the arguments of one call (a kernel takes at most a few). */
static constexpr size_t MAX_PARAMS = 16;
inline Slot* argument_slots() { static Slot slots[MAX_PARAMS]; return slots; }

template <class T> struct Param { static_assert(sizeof(T) == 0, "a shape function's parameters are torch::Tensor, double, int64_t or torch::Scalar, as the kernel's"); };
template <class T> struct Param<const T> : Param<T> {};
template <class T> struct Param<const T&> : Param<T> {};
template <> struct Param<torch::Tensor> {
  static constexpr char kind = 't';
  static torch::Tensor get(const Slot& s) { return torch::Tensor::gpsimd_from(static_cast<uint32_t>(s.tensor)); }
};
template <> struct Param<double> {
  static constexpr char kind = 'd';
  static double get(const Slot& s) { return s.f64; }
};
template <> struct Param<int64_t> {
  static constexpr char kind = 'l';
  static int64_t get(const Slot& s) { return s.i64; }
};
template <> struct Param<torch::Scalar> {
  static constexpr char kind = 's';
  static torch::Scalar get(const Slot& s) { return torch::Scalar(s.f64); }
};

template <size_t... I> struct Indexes {};
template <size_t N, size_t... I> struct MakeIndexes : MakeIndexes<N - 1, N - 1, I...> {};
template <size_t... I> struct MakeIndexes<0, I...> { using type = Indexes<I...>; };

/** Calls a shape function with the arguments in the slots; returns the output's handle. */
template <class R, class... A> struct Thunk {
  static_assert(sizeof...(A) <= MAX_PARAMS, "too many parameters for a shape function");
  template <size_t... I>
  static int32_t invoke(R (*fn)(A...), const Slot* argv, Indexes<I...>) { return static_cast<int32_t>(fn(Param<A>::get(argv[I])...).gpsimd_handle()); }
  static int32_t call(uint32_t fn, const Slot* argv) {
    return invoke(reinterpret_cast<R (*)(A...)>(static_cast<uintptr_t>(fn)), argv, typename MakeIndexes<sizeof...(A)>::type());
  }
};

}  // namespace shape_abi
}  // namespace neuron

/** The `m` of NEURON_LIBRARY(lib, m). */
class Library {
 public:
  /** Registers operator `op`: its shape function and the name of the kernel that computes it. */
  template <class R, class... A>
  Library& def(const char* op, R (*shape_fn)(A...), const char* kernel) {
    static_assert(__is_same(R, torch::Tensor), "a shape function returns a torch::Tensor (the output's sizes and dtype)");
    using namespace torch::neuron;
    static const char params[] = {shape_abi::Param<A>::kind..., '\0'};
    int32_t (*thunk)(uint32_t, const shape_abi::Slot*) = &shape_abi::Thunk<R, A...>::call;
    shape_abi::gpsimd_shape_def(op, __builtin_strlen(op), kernel, __builtin_strlen(kernel), params, sizeof...(A),
                                static_cast<uint32_t>(reinterpret_cast<uintptr_t>(thunk)),
                                static_cast<uint32_t>(reinterpret_cast<uintptr_t>(shape_fn)), shape_abi::argument_slots());
    return *this;
  }
};

}  // namespace torch

/** Declares library `name`; the block that follows registers its operators with m.def(...). */
#define NEURON_LIBRARY(name, m) GPSIMD_NEURON_LIBRARY(name, m)
// A second step, so that a library name defined as a macro (-Dmy_ops=other) is expanded first.
#define GPSIMD_NEURON_LIBRARY(name, m)                                                    \
  static void neuron_library_body_##name(torch::Library& m);                              \
  extern "C" __attribute__((export_name("neuron_library:" #name))) void neuron_library_##name() { \
    torch::Library library;                                                               \
    neuron_library_body_##name(library);                                                  \
  }                                                                                       \
  static void neuron_library_body_##name(torch::Library& m)
#endif
