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
// A bfloat16 or float16 value (c10::BFloat16, c10::Half): printed as the float it stands for.
template <class T> struct has_element_type {
  template <class U> static std::true_type test(typename U::gpsimd_element_type*);
  template <class U> static std::false_type test(...);
  static constexpr bool value = decltype(test<T>(nullptr))::value;
};
template <class H>
inline typename std::enable_if<std::is_class<H>::value && !has_element_type<H>::value && std::is_convertible<H, float>::value>::type
record(int32_t i, const H& h) { gpsimd_printf_float(i, (double)(float)h); }
// An accessor element (acc[i], torch.h's ElementRef): its value, recorded by the element type.
template <class E>
inline typename std::enable_if<has_element_type<E>::value>::type record(int32_t i, const E& e) {
  record(i, static_cast<typename E::gpsimd_element_type>(e.value()));
}
}  // namespace detail
}  // namespace gpsimd

/** The device's printf with typed arguments (at most 8, as on the device). */
template <class... Args>
inline int printf(const char* format, const Args&... args) {
  static_assert(sizeof...(Args) <= 8, "printf on a GpSimd core takes at most 8 arguments after the format");
  int32_t n = 0;
  int unused[] = {0, (gpsimd::detail::record(n++, args), 0)...};
  (void)unused;
  gpsimd_printf(format, (int32_t)strlen(format), n);
  return 0;
}

// std::printf (through <cstdio>) is the same function.
namespace std { using ::printf; }
