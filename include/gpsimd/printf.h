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
/** Argument record tags of the runtime's printf (assembly/layout.ts PF_TAG_*). */
enum : int32_t { PF_INT = 1, PF_UINT = 2, PF_FLOAT = 3, PF_STRING = 4 };

template <class T>
inline typename std::enable_if<std::is_integral<T>::value || std::is_enum<T>::value>::type record(char* r, T v) {
  const bool is_signed = std::is_signed<typename std::conditional<std::is_enum<T>::value, int, T>::type>::value;
  *(int32_t*)r = is_signed ? PF_INT : PF_UINT;
  *(int64_t*)(r + 8) = is_signed ? (int64_t)v : (int64_t)(uint64_t)v;
}
template <class T>
inline typename std::enable_if<std::is_floating_point<T>::value>::type record(char* r, T v) {
  *(int32_t*)r = PF_FLOAT;
  *(double*)(r + 8) = (double)v;
}
inline void record(char* r, const char* s) { *(int32_t*)r = PF_STRING; *(uint32_t*)(r + 8) = (uint32_t)(uintptr_t)s; }
inline void record(char* r, char* s) { record(r, (const char*)s); }
inline void record(char* r, const void* p) { *(int32_t*)r = PF_UINT; *(uint64_t*)(r + 8) = (uintptr_t)p; }
}  // namespace detail
}  // namespace gpsimd

/** The device's printf with typed arguments (at most 8, as on the device). */
template <class... Args>
inline int printf(const char* format, Args... args) {
  static_assert(sizeof...(Args) <= 8, "printf on a GpSimd core takes at most 8 arguments after the format");
  char* rec = (char*)(uintptr_t)gpsimd_printf_args();
  int32_t n = 0;
  int unused[] = {0, (gpsimd::detail::record(rec + 16 * n++, args), 0)...};
  (void)unused;
  gpsimd_printf(format, (int32_t)strlen(format), n);
  return 0;
}
