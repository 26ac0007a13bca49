// gpsimd's C ABI between a C++ kernel and the device runtime: the ONE
// implementation of the device API and its checks is gpsimd's AssemblyScript
// kernel library (assembly/), compiled into a "device runtime" module that
// exports these functions (assembly/cpp-abi.ts). The C++ headers are thin
// handles over them; nothing here checks anything itself.
//
// Contract (kept in step with assembly/cpp-abi.ts and build/cpp/):
// - Import module "gpsimd-abi"; every name below is imported with
//   import_name equal to its C name. Only numbers cross: a tensor is the
//   address of its descriptor (uint32_t), a TCM pointer is an address.
// - Element types are spelled by suffix: f32 f64 i64 i32 i16 u16 i8 u8
//   (bfloat16 and float16 elements are read as uint16_t bits, as in AssemblyScript).
// - A host-side provider of the same names (shape functions run on the host
//   with meta tensors) implements the subset a shape function may use:
//   gpsimd_numel/dim/size/stride/scalar_type and the factories; anything that
//   reads data must fail there with the shape-function data error.
// - Kernels are exported under their C++ names by a wrapper the build adds
//   (build/cpp/kernel-exports.ts); the user writes plain C++ functions.
#pragma once
#include <stdint.h>
#include <stddef.h>

#define GPSIMD_ABI(name) __attribute__((import_module("gpsimd-abi"), import_name(#name)))

extern "C" {
GPSIMD_ABI(gpsimd_cpu_id) uint32_t gpsimd_cpu_id(void);
GPSIMD_ABI(gpsimd_cpu_count) uint32_t gpsimd_cpu_count(void);
GPSIMD_ABI(gpsimd_dst) uint32_t gpsimd_dst(void);
GPSIMD_ABI(gpsimd_tcm_malloc) uint32_t gpsimd_tcm_malloc(uint32_t nbytes);
GPSIMD_ABI(gpsimd_tcm_free) void gpsimd_tcm_free(uint32_t ptr);
GPSIMD_ABI(gpsimd_numel) int64_t gpsimd_numel(uint32_t t);
GPSIMD_ABI(gpsimd_dim) int32_t gpsimd_dim(uint32_t t);
GPSIMD_ABI(gpsimd_size) int64_t gpsimd_size(uint32_t t, int32_t d);
GPSIMD_ABI(gpsimd_stride) int64_t gpsimd_stride(uint32_t t, int32_t d);
GPSIMD_ABI(gpsimd_scalar_type) int32_t gpsimd_scalar_type(uint32_t t);
GPSIMD_ABI(gpsimd_set_policy) void gpsimd_set_policy(uint32_t t, int32_t policy);
GPSIMD_ABI(gpsimd_get_policy) int32_t gpsimd_get_policy(uint32_t t);
GPSIMD_ABI(gpsimd_stack) uint32_t gpsimd_stack(uint32_t bytes);
GPSIMD_ABI(gpsimd_acc_row) uint32_t gpsimd_acc_row(uint32_t t, int64_t i);
GPSIMD_ABI(gpsimd_row_next) uint32_t gpsimd_row_next(uint32_t handle, int64_t i);
GPSIMD_ABI(gpsimd_printf) void gpsimd_printf(const char* fmt, int32_t fmt_bytes, int32_t nargs);
GPSIMD_ABI(gpsimd_printf_args) uint32_t gpsimd_printf_args(void);
GPSIMD_ABI(gpsimd_printf_int) void gpsimd_printf_int(int32_t i, int64_t v);
GPSIMD_ABI(gpsimd_printf_uint) void gpsimd_printf_uint(int32_t i, uint64_t v);
GPSIMD_ABI(gpsimd_printf_float) void gpsimd_printf_float(int32_t i, double v);
GPSIMD_ABI(gpsimd_printf_string) void gpsimd_printf_string(int32_t i, const char* s);
GPSIMD_ABI(gpsimd_empty) uint32_t gpsimd_empty(const int64_t* sizes, int32_t n, int32_t dtype);
GPSIMD_ABI(gpsimd_zeros) uint32_t gpsimd_zeros(const int64_t* sizes, int32_t n, int32_t dtype);
GPSIMD_ABI(gpsimd_ones) uint32_t gpsimd_ones(const int64_t* sizes, int32_t n, int32_t dtype);
GPSIMD_ABI(gpsimd_full) uint32_t gpsimd_full(const int64_t* sizes, int32_t n, double value, int32_t dtype);
GPSIMD_ABI(gpsimd_full_i) uint32_t gpsimd_full_i(const int64_t* sizes, int32_t n, int64_t value, int32_t dtype);
GPSIMD_ABI(gpsimd_eye) uint32_t gpsimd_eye(int64_t n, int64_t m, int32_t dtype);
GPSIMD_ABI(gpsimd_fill) uint32_t gpsimd_fill(uint32_t t, double value);
GPSIMD_ABI(gpsimd_fill_i) uint32_t gpsimd_fill_i(uint32_t t, int64_t value);

#define GPSIMD_ABI_TYPED(S, C) \
  GPSIMD_ABI(gpsimd_to_tcm_##S) void gpsimd_to_tcm_##S(uint32_t t, const void* tcm, int64_t offset, int64_t n); \
  GPSIMD_ABI(gpsimd_from_tcm_##S) void gpsimd_from_tcm_##S(uint32_t t, const void* tcm, int64_t offset, int64_t n); \
  GPSIMD_ABI(gpsimd_acc_open_##S) uint32_t gpsimd_acc_open_##S(uint32_t t, int32_t rank); \
  GPSIMD_ABI(gpsimd_acc_get_##S) C gpsimd_acc_get_##S(uint32_t acc, int64_t i); \
  GPSIMD_ABI(gpsimd_acc_set_##S) void gpsimd_acc_set_##S(uint32_t acc, int64_t i, C v); \
  GPSIMD_ABI(gpsimd_row_get_##S) C gpsimd_row_get_##S(uint32_t handle, int64_t j); \
  GPSIMD_ABI(gpsimd_row_set_##S) void gpsimd_row_set_##S(uint32_t handle, int64_t j, C v); \
  GPSIMD_ABI(gpsimd_read_open_##S) uint32_t gpsimd_read_open_##S(uint32_t t); \
  GPSIMD_ABI(gpsimd_read_##S) C gpsimd_read_##S(uint32_t s); \
  GPSIMD_ABI(gpsimd_read_close_##S) int32_t gpsimd_read_close_##S(uint32_t s); \
  GPSIMD_ABI(gpsimd_write_open_##S) uint32_t gpsimd_write_open_##S(uint32_t t); \
  GPSIMD_ABI(gpsimd_write_##S) void gpsimd_write_##S(uint32_t s, C v); \
  GPSIMD_ABI(gpsimd_write_close_##S) int32_t gpsimd_write_close_##S(uint32_t s);
GPSIMD_ABI_TYPED(f32, float)
GPSIMD_ABI_TYPED(f64, double)
GPSIMD_ABI_TYPED(i64, int64_t)
GPSIMD_ABI_TYPED(i32, int32_t)
GPSIMD_ABI_TYPED(i16, int16_t)
GPSIMD_ABI_TYPED(u16, uint16_t)
GPSIMD_ABI_TYPED(i8, int8_t)
GPSIMD_ABI_TYPED(u8, uint8_t)
#undef GPSIMD_ABI_TYPED

// Tensor operations: result 0 makes a new tensor, otherwise the _out form writes into result.
#define GPSIMD_ABI_UNARY(op) GPSIMD_ABI(gpsimd_##op) uint32_t gpsimd_##op(uint32_t result, uint32_t self);
#define GPSIMD_ABI_BINARY(op) GPSIMD_ABI(gpsimd_##op) uint32_t gpsimd_##op(uint32_t result, uint32_t self, uint32_t other);
GPSIMD_ABI_UNARY(abs) GPSIMD_ABI_UNARY(ceil) GPSIMD_ABI_UNARY(floor) GPSIMD_ABI_UNARY(sin) GPSIMD_ABI_UNARY(cos)
GPSIMD_ABI_UNARY(tan) GPSIMD_ABI_UNARY(log) GPSIMD_ABI_UNARY(log2) GPSIMD_ABI_UNARY(log10) GPSIMD_ABI_UNARY(exp)
GPSIMD_ABI_UNARY(bitwise_not)
GPSIMD_ABI_BINARY(mul) GPSIMD_ABI_BINARY(div) GPSIMD_ABI_BINARY(pow) GPSIMD_ABI_BINARY(bitwise_and) GPSIMD_ABI_BINARY(bitwise_or)
#undef GPSIMD_ABI_UNARY
#undef GPSIMD_ABI_BINARY
// A torch::Scalar crosses as three numbers, GPSIMD_SCALAR_PARAMS: its value as double and as int64_t, and 1 when it
// is integral (so an integral Scalar acts as an integer, a floating one as a double, as in AssemblyScript).
#define GPSIMD_SCALAR_PARAMS(x) double x##_f, int64_t x##_i, int32_t x##_int
GPSIMD_ABI(gpsimd_add) uint32_t gpsimd_add(uint32_t result, uint32_t self, uint32_t other, GPSIMD_SCALAR_PARAMS(alpha));
GPSIMD_ABI(gpsimd_sub) uint32_t gpsimd_sub(uint32_t result, uint32_t self, uint32_t other, GPSIMD_SCALAR_PARAMS(alpha));
GPSIMD_ABI(gpsimd_add_scalar) uint32_t gpsimd_add_scalar(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(other), GPSIMD_SCALAR_PARAMS(alpha));
GPSIMD_ABI(gpsimd_sub_scalar) uint32_t gpsimd_sub_scalar(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(other), GPSIMD_SCALAR_PARAMS(alpha));
GPSIMD_ABI(gpsimd_mul_scalar) uint32_t gpsimd_mul_scalar(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(other));
GPSIMD_ABI(gpsimd_div_scalar) uint32_t gpsimd_div_scalar(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(other));
GPSIMD_ABI(gpsimd_pow_scalar) uint32_t gpsimd_pow_scalar(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(other));
GPSIMD_ABI(gpsimd_bitwise_and_scalar) uint32_t gpsimd_bitwise_and_scalar(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(other));
GPSIMD_ABI(gpsimd_bitwise_or_scalar) uint32_t gpsimd_bitwise_or_scalar(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(other));
GPSIMD_ABI(gpsimd_scalar_pow) uint32_t gpsimd_scalar_pow(uint32_t result, GPSIMD_SCALAR_PARAMS(self), uint32_t exponent);
GPSIMD_ABI(gpsimd_scalar_bitwise_and) uint32_t gpsimd_scalar_bitwise_and(uint32_t result, GPSIMD_SCALAR_PARAMS(self), uint32_t other);
GPSIMD_ABI(gpsimd_scalar_bitwise_or) uint32_t gpsimd_scalar_bitwise_or(uint32_t result, GPSIMD_SCALAR_PARAMS(self), uint32_t other);
GPSIMD_ABI(gpsimd_clamp) uint32_t gpsimd_clamp(uint32_t result, uint32_t self, GPSIMD_SCALAR_PARAMS(lo), GPSIMD_SCALAR_PARAMS(hi));
#undef GPSIMD_SCALAR_PARAMS
// assert() of a kernel that failed: the expression and where, as bytes (no terminating zero needed).
GPSIMD_ABI(gpsimd_assert_fail) void gpsimd_assert_fail(const char* expr, int32_t expr_bytes, const char* file, int32_t file_bytes, int32_t line);
}
#undef GPSIMD_ABI
