// printf(fmt, args...) for kernels: each argument is recorded with the type the
// compiler gives it, so "%ld" and "%lu" print int64_t and size_t right on
// WebAssembly, whose long and size_t are 32 bits (the device's are 64: kernels
// written for it pass int64_t to %ld and size_t to %lu). The device runtime
// formats the records (host/cores/printf-format.ts takes every integer as 64
// bits and ignores length modifiers). A call with no argument after the format
// goes to C's printf (build/cpp/kernel-exports.ts), which needs no types.
#pragma once
#include <stdint.h>
#include <string.h>
#include <type_traits>
#include <gpsimd/abi.h>

namespace gpsimd {
namespace detail {
// Argument record i, by the argument's type (the runtime writes the records: they are its bookkeeping).
template <class T>
inline typename std::enable_if<std::is_integral<T>::value || std::is_enum<T>::value>::type record(int32_t i, T v) {
  if (std::is_signed<typename std::conditional<std::is_enum<T>::value, int, T>::type>::value) gpsimd_printf_int(i, (int64_t)v);
  else gpsimd_printf_uint(i, (uint64_t)v);
}
template <class T>
inline typename std::enable_if<std::is_floating_point<T>::value>::type record(int32_t i, T v) { gpsimd_printf_float(i, (double)v); }
inline void record(int32_t i, const char* s) { gpsimd_printf_string(i, s); }
inline void record(int32_t i, char* s) { gpsimd_printf_string(i, s); }
inline void record(int32_t i, const void* p) { gpsimd_printf_uint(i, (uintptr_t)p); }
}  // namespace detail
}  // namespace gpsimd

/** The device's printf with typed arguments (at most 8, as on the device). */
template <class... Args>
inline int printf(const char* format, Args... args) {
  static_assert(sizeof...(Args) <= 8, "printf on a GpSimd core takes at most 8 arguments after the format");
  int32_t n = 0;
  int unused[] = {0, (gpsimd::detail::record(n++, args), 0)...};
  (void)unused;
  gpsimd_printf(format, (int32_t)strlen(format), n);
  return 0;
}

// std::printf (through <cstdio>) is the same function.
namespace std { using ::printf; }
