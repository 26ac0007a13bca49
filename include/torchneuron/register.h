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
#include <new>
#include <__verbose_abort>

namespace torch {
namespace neuron {
namespace shape_abi {

// The shape module's heap, for what shape functions allocate (a std::vector of sizes, say): a bump allocator
// above the module's data, emptied before each shape-function call (nothing a call allocates outlives it).
extern "C" unsigned char __heap_base;
inline uintptr_t& heap_top() { static uintptr_t top = 0; return top; }
inline void heap_reset() { heap_top() = reinterpret_cast<uintptr_t>(&__heap_base); }
[[noreturn]] inline void heap_fail(const char* what) {
  int32_t n = 0;
  while (what[n]) n++;
  gpsimd_assert_fail(what, n, __FILE__, (int32_t)__builtin_strlen(__FILE__), __LINE__);
  __builtin_trap();
}
/** n bytes, 16-aligned, after an 8-byte header holding n (for realloc). */
inline void* heap_alloc(size_t n) {
  uintptr_t& top = heap_top();
  if (top == 0) heap_reset();
  const uintptr_t p = (top + 8 + 15) & ~static_cast<uintptr_t>(15);
  if (n > 0x40000000u) heap_fail("a C++ shape function asked for more than 1 GiB");
  const uintptr_t end = p + n;
  const uintptr_t have = __builtin_wasm_memory_size(0) * 65536u;
  if (p < top || end < p || (end > have && __builtin_wasm_memory_grow(0, (end - have + 65535u) / 65536u) == static_cast<size_t>(-1))) {
    heap_fail("the C++ shape module's memory (4 GiB) is full");
  }
  reinterpret_cast<size_t*>(p)[-1] = n;
  top = end;
  return reinterpret_cast<void*>(p);
}

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
    heap_reset();
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

// The C and C++ allocation functions of the shape module, on its heap, and the C library's memory functions
// that the compiler calls (weak: every shape source includes this; no_builtin keeps the loops from becoming calls
// to themselves).
extern "C" {
__attribute__((weak, no_builtin("memcpy"))) void* memcpy(void* d, const void* s, size_t n) {
  for (size_t i = 0; i < n; i++) static_cast<unsigned char*>(d)[i] = static_cast<const unsigned char*>(s)[i];
  return d;
}
__attribute__((weak, no_builtin("memmove"))) void* memmove(void* d, const void* s, size_t n) {
  unsigned char* to = static_cast<unsigned char*>(d);
  const unsigned char* from = static_cast<const unsigned char*>(s);
  if (to < from) for (size_t i = 0; i < n; i++) to[i] = from[i];
  else for (size_t i = n; i > 0; i--) to[i - 1] = from[i - 1];
  return d;
}
__attribute__((weak, no_builtin("memset"))) void* memset(void* d, int c, size_t n) {
  for (size_t i = 0; i < n; i++) static_cast<unsigned char*>(d)[i] = static_cast<unsigned char>(c);
  return d;
}
__attribute__((weak, no_builtin("strlen"))) size_t strlen(const char* s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}
__attribute__((weak)) void* malloc(size_t n) { return torch::neuron::shape_abi::heap_alloc(n); }
__attribute__((weak)) void free(void*) {}
__attribute__((weak)) void* calloc(size_t count, size_t size) {
  const size_t n = count * size;
  if (size && n / size != count) torch::neuron::shape_abi::heap_fail("calloc: count * size overflows");
  return memset(malloc(n), 0, n);
}
__attribute__((weak)) void* realloc(void* p, size_t n) {
  void* q = malloc(n);
  if (p) {
    const size_t had = static_cast<size_t*>(p)[-1];
    memcpy(q, p, had < n ? had : n);
  }
  return q;
}
}
__attribute__((weak)) void* operator new(size_t n) { return malloc(n); }
__attribute__((weak)) void* operator new[](size_t n) { return malloc(n); }
__attribute__((weak)) void* operator new(size_t n, const std::nothrow_t&) noexcept { return malloc(n); }
__attribute__((weak)) void* operator new[](size_t n, const std::nothrow_t&) noexcept { return malloc(n); }
__attribute__((weak)) void operator delete(void*) noexcept {}
__attribute__((weak)) void operator delete[](void*) noexcept {}
__attribute__((weak)) void operator delete(void*, size_t) noexcept {}
__attribute__((weak)) void operator delete[](void*, size_t) noexcept {}
// libc++'s stop for what would throw (std::vector's length_error) and its assertions: the shape function fails.
_LIBCPP_BEGIN_NAMESPACE_STD
__attribute__((weak)) void __libcpp_verbose_abort(const char* format, ...) _NOEXCEPT { torch::neuron::shape_abi::heap_fail(format); }
_LIBCPP_END_NAMESPACE_STD

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
