// torch/torch.h, provisional: the part of torch::Tensor a shape function uses
// (sizes, dtype, factories) and the accessor that reads data, as imports of
// the device runtime's C ABI (module "gpsimd-abi", assembly/cpp-abi.ts). The
// kernel-side header replaces this file.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <initializer_list>

namespace torch {
namespace abi {
#define GPSIMD_IMPORT(name) extern "C" __attribute__((import_module("gpsimd-abi"), import_name(#name)))
GPSIMD_IMPORT(gpsimd_dim) int32_t tensor_dim(int32_t t);
GPSIMD_IMPORT(gpsimd_size) int64_t tensor_size(int32_t t, int32_t d);
GPSIMD_IMPORT(gpsimd_numel) int64_t tensor_numel(int32_t t);
GPSIMD_IMPORT(gpsimd_scalar_type) int32_t tensor_scalar_type(int32_t t);
GPSIMD_IMPORT(gpsimd_empty) int32_t tensor_empty(const int64_t* sizes, int32_t ndim, int32_t dtype);
GPSIMD_IMPORT(gpsimd_zeros) int32_t tensor_zeros(const int64_t* sizes, int32_t ndim, int32_t dtype);
GPSIMD_IMPORT(gpsimd_ones) int32_t tensor_ones(const int64_t* sizes, int32_t ndim, int32_t dtype);
GPSIMD_IMPORT(gpsimd_full) int32_t tensor_full(const int64_t* sizes, int32_t ndim, double value, int32_t dtype);
GPSIMD_IMPORT(gpsimd_acc_open_f32) int32_t acc_open_f32(int32_t t, int32_t rank);
GPSIMD_IMPORT(gpsimd_acc_get_f32) float acc_get_f32(int32_t acc, int64_t index);
#undef GPSIMD_IMPORT
}  // namespace abi

enum ScalarType : int32_t { kFloat = 0, kBFloat16 = 1, kHalf = 2, kInt = 3, kChar = 4, kLong = 5, kShort = 6, kByte = 7 };

class IntArrayRef {
 public:
  IntArrayRef() : n_(0) {}
  IntArrayRef(std::initializer_list<int64_t> v) : n_(0) { for (int64_t x : v) if (n_ < 8) data_[n_++] = x; }
  int64_t operator[](size_t i) const { return data_[i]; }
  size_t size() const { return n_; }
  const int64_t* data() const { return data_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + n_; }
  void push_back(int64_t x) { data_[n_++] = x; }
 private:
  int64_t data_[8];
  size_t n_;
};

class Scalar {
 public:
  Scalar(double v) : v_(v) {}
  double to_double() const { return v_; }
 private:
  double v_;
};

template <class T, size_t N> class TensorAccessor {
 public:
  explicit TensorAccessor(int32_t t) : t_(abi::acc_open_f32(t, 0)) {}
  T operator[](int64_t i) const { return abi::acc_get_f32(t_, i); }
 private:
  int32_t t_;
};

class Tensor {
 public:
  static Tensor gpsimd_from(uint32_t h) { Tensor t; t.h_ = h; return t; }
  uint32_t gpsimd_handle() const { return h_; }
  IntArrayRef sizes() const { IntArrayRef s; for (int32_t d = 0; d < dim(); d++) s.push_back(abi::tensor_size(h_, d)); return s; }
  int64_t size(int32_t d) const { return abi::tensor_size(h_, d); }
  int64_t dim() const { return abi::tensor_dim(h_); }
  int64_t numel() const { return abi::tensor_numel(h_); }
  ScalarType scalar_type() const { return static_cast<ScalarType>(abi::tensor_scalar_type(h_)); }
  template <class T, size_t N> TensorAccessor<T, N> accessor() const { return TensorAccessor<T, N>(h_); }
 private:
  int32_t h_ = 0;
};

inline Tensor empty(IntArrayRef s, ScalarType t) { return Tensor::gpsimd_from(abi::tensor_empty(s.data(), s.size(), t)); }
inline Tensor zeros(IntArrayRef s, ScalarType t) { return Tensor::gpsimd_from(abi::tensor_zeros(s.data(), s.size(), t)); }
inline Tensor ones(IntArrayRef s, ScalarType t) { return Tensor::gpsimd_from(abi::tensor_ones(s.data(), s.size(), t)); }
inline Tensor full(IntArrayRef s, Scalar v, ScalarType t) { return Tensor::gpsimd_from(abi::tensor_full(s.data(), s.size(), v.to_double(), t)); }
}  // namespace torch
