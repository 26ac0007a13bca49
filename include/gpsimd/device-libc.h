// The pieces of the C and C++ libraries that a kernel reaches and that must
// come from the device runtime rather than from the compiler's WASI libc:
// the heap (malloc and free, operator new and delete, so std::vector) is this
// core's kernel heap, as tensors made inside a kernel; abort(), assert() and
// libc++'s "thrown in -fno-exceptions mode" stops are the runtime's abort (a
// KernelAbortError naming the kernel's line); puts and putchar are the
// device's printf. Everything else pure (<cmath>, <cstring>, <algorithm>,
// snprintf) links from the compiler's libc as is; what needs a host (files,
// clocks, the environment, exit) is refused at build time
// (build/cpp/unavailable.ts).
//
// Included once, by the exports unit gpsimd adds to every C++ library
// (build/cpp/kernel-exports.ts); not a header for kernels.
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <string.h>
#include <new>
#include <__verbose_abort>

extern "C" {
__attribute__((import_module("gpsimd-abi"), import_name("gpsimd_malloc"))) uint32_t gpsimd_malloc(uint32_t bytes, uint32_t align);
__attribute__((import_module("gpsimd-abi"), import_name("gpsimd_realloc"))) uint32_t gpsimd_realloc(uint32_t ptr, uint32_t bytes);
__attribute__((import_module("gpsimd-abi"), import_name("gpsimd_free"))) void gpsimd_free(uint32_t ptr);
__attribute__((import_module("gpsimd-abi"), import_name("gpsimd_abort"))) __attribute__((noreturn)) void gpsimd_abort(const char* message, const char* file, int32_t line);

// The heap: never returns null; a request the heap cannot hold is a KernelHeapError (E_HEAP_EXHAUSTED).
void* malloc(size_t n) { return (void*)(uintptr_t)gpsimd_malloc((uint32_t)n, 16); }
void free(void* p) { if (p) gpsimd_free((uint32_t)(uintptr_t)p); }
void* calloc(size_t count, size_t size) {
  size_t n = count * size;
  if (size && n / size != count) n = (size_t)-1;  // overflow: as large as can be asked, so the heap refuses it
  void* p = malloc(n);
  memset(p, 0, n);  // the heap is reused from launch to launch: not zeroed
  return p;
}
void* realloc(void* p, size_t n) { return p ? (void*)(uintptr_t)gpsimd_realloc((uint32_t)(uintptr_t)p, (uint32_t)n) : malloc(n); }
void* aligned_alloc(size_t align, size_t n) { return (void*)(uintptr_t)gpsimd_malloc((uint32_t)n, (uint32_t)align); }
void* memalign(size_t align, size_t n) { return aligned_alloc(align, n); }
int posix_memalign(void** out, size_t align, size_t n) { *out = aligned_alloc(align, n); return 0; }
/** The payload size in the block header before p (the kernel heap's, assembly/rt/stub.ts). */
size_t malloc_usable_size(void* p) { return p ? ((const uint32_t*)p)[-1] : 0; }
// The names the rest of libc calls (for the environment, say): defining them keeps libc's own allocator out.
void* __libc_malloc(size_t n) { return malloc(n); }
void* __libc_calloc(size_t count, size_t size) { return calloc(count, size); }
void __libc_free(void* p) { free(p); }

// The device's printf (gpsimd's, shown after the operator) under the names clang turns printf("text\n") and
// printf("%c", c) into, and that kernels call themselves.
int printf(const char* format, ...);
// (no_builtin: else clang turns these printf calls back into puts and putchar, calling themselves.)
__attribute__((no_builtin("printf"))) int puts(const char* s) { printf("%s\n", s); return 0; }
__attribute__((no_builtin("printf"))) int putchar(int c) { printf("%c", c); return c; }

void abort(void) { gpsimd_abort("abort() called", nullptr, 0); }

/** Writes at most cap - 1 characters of s at out + n; returns the new length. */
static size_t gpsimd_append(char* out, size_t n, size_t cap, const char* s) {
  while (*s && n + 1 < cap) out[n++] = *s++;
  out[n] = 0;
  return n;
}

/** Writes the decimal digits of v at out + n; returns the new length. */
static size_t gpsimd_append_int(char* out, size_t n, size_t cap, int v) {
  char digits[12];
  int k = 11;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  digits[k] = 0;
  do { digits[--k] = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) digits[--k] = '-';
  return gpsimd_append(out, n, cap, digits + k);
}

// The C library's assert (a kernel that includes <cassert> after torch.h): the same failure as torch.h's assert.
__attribute__((import_module("gpsimd-abi"), import_name("gpsimd_assert_fail"))) void gpsimd_assert_fail(const char* expr, int32_t expr_bytes, const char* file, int32_t file_bytes, int32_t line);
void __assert_fail(const char* expr, const char* file, int line, const char*) {
  gpsimd_assert_fail(expr, (int32_t)strlen(expr), file, (int32_t)strlen(file), line);
  __builtin_unreachable();
}
}  // extern "C"

// libc++'s stop for errors that would throw (std::vector's length_error, bad_alloc, std::thread's system_error) and
// its assertions: the runtime's abort with the message (its %s, %d and %i filled in, %% as %; libc++'s formats use
// nothing else of printf; an unknown conversion is copied as written, its argument left unread).
_LIBCPP_BEGIN_NAMESPACE_STD
void __libcpp_verbose_abort(const char* format, ...) _NOEXCEPT {
  char text[512];
  size_t n = 0;
  va_list ap;
  va_start(ap, format);
  for (const char* p = format; *p && n + 1 < sizeof text; p++) {
    if (p[0] == '%' && p[1] == 's') { n = gpsimd_append(text, n, sizeof text, va_arg(ap, const char*)); p++; continue; }
    if (p[0] == '%' && (p[1] == 'd' || p[1] == 'i')) { n = gpsimd_append_int(text, n, sizeof text, va_arg(ap, int)); p++; continue; }
    if (p[0] == '%' && p[1] == '%') { n = gpsimd_append(text, n, sizeof text, "%"); p++; continue; }
    text[n++] = *p;
    text[n] = 0;
  }
  va_end(ap);
  text[n] = 0;
  gpsimd_abort(text, nullptr, 0);
}
_LIBCPP_END_NAMESPACE_STD

// operator new and delete (the replaceable forms): the kernel heap, through malloc.
void* operator new(size_t n) { return malloc(n); }
void* operator new[](size_t n) { return malloc(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return malloc(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return malloc(n); }
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }
void operator delete[](void* p, size_t) noexcept { free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { free(p); }
#if _LIBCPP_HAS_LIBRARY_ALIGNED_ALLOCATION  // declared in C++14 too, and libc++ itself calls them
void* operator new(size_t n, std::align_val_t a) { return aligned_alloc((size_t)a, n); }
void* operator new[](size_t n, std::align_val_t a) { return aligned_alloc((size_t)a, n); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return aligned_alloc((size_t)a, n); }
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return aligned_alloc((size_t)a, n); }
void operator delete(void* p, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { free(p); }
#endif
