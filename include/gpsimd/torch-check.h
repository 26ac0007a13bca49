// TORCH_CHECK and its family as libtorch's c10/util/Exception.h spells them, on
// gpsimd: a failed check stops the kernel (KernelAbortError) or the shape
// function (ShapeFunctionError) with the check's message and its .cpp line,
// through the runtime's abort (gpsimd_abort: the device runtime in a kernel,
// the host's shape-module imports in a shape function,
// host/library/cpp-shapes.ts). The message is built as c10::str builds it
// (its arguments printed one after another) into a buffer on the stack: no
// heap, no C library, so it works in shape modules too. Included at the end
// of <torch/torch.h>.
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <type_traits>

extern "C" __attribute__((import_module("gpsimd-abi"), import_name("gpsimd_abort"))) __attribute__((noreturn))
void gpsimd_abort(const char* message, const char* file, int32_t line);

namespace c10 {
namespace detail {

/** A message under construction: the bytes written so far, cut (with "...") where the buffer ends. */
class MessageBuffer {
 public:
  static constexpr size_t CAPACITY = 480;
  MessageBuffer() : n_(0) { text_[0] = '\0'; }
  void put(char c) {
    if (n_ + 1 < CAPACITY) { text_[n_++] = c; text_[n_] = '\0'; }
    else if (n_ + 1 == CAPACITY) { text_[CAPACITY - 4] = text_[CAPACITY - 3] = text_[CAPACITY - 2] = '.'; }
  }
  void put(const char* s) { if (!s) { put("(null)"); return; } while (*s) put(*s++); }
  void put_unsigned(uint64_t v) {
    char digits[24];
    int k = 0;
    do { digits[k++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (k) put(digits[--k]);
  }
  void put_signed(int64_t v) {
    if (v < 0) { put('-'); put_unsigned((uint64_t)0 - (uint64_t)v); }
    else put_unsigned((uint64_t)v);
  }
  /** A double as %g prints it, to 6 significant digits (1.5, 0.001, 1e+20, -inf, nan). */
  void put_double(double v) {
    if (v != v) { put("nan"); return; }
    if (v < 0 || (v == 0 && 1 / v < 0)) { put('-'); v = -v; }
    if (v > 1.7976931348623157e308) { put("inf"); return; }
    if (v == 0) { put('0'); return; }
    int exp10 = 0;
    double m = v;
    while (m >= 10) { m /= 10; exp10++; }
    while (m < 1) { m *= 10; exp10--; }
    uint64_t digits = (uint64_t)(m * 100000 + 0.5);  // six significant digits
    if (digits >= 1000000) { digits /= 10; exp10++; }
    const bool scientific = exp10 < -4 || exp10 >= 6;
    char d[6];
    for (int k = 5; k >= 0; k--) { d[k] = (char)('0' + digits % 10); digits /= 10; }
    int last = 5;
    while (last > 0 && d[last] == '0') last--;
    if (scientific) {
      put(d[0]);
      if (last > 0) { put('.'); for (int k = 1; k <= last; k++) put(d[k]); }
      put('e'); put(exp10 < 0 ? '-' : '+');
      if (exp10 < 0) exp10 = -exp10;
      if (exp10 < 10) put('0');
      put_unsigned((uint64_t)exp10);
    } else if (exp10 >= 0) {
      for (int k = 0; k <= exp10; k++) put(k <= 5 ? d[k] : '0');
      if (last > exp10) { put('.'); for (int k = exp10 + 1; k <= last; k++) put(d[k]); }
    } else {
      put("0.");
      for (int k = -1; k > exp10; k--) put('0');
      for (int k = 0; k <= last; k++) put(d[k]);
    }
  }
  const char* text() const { return text_; }
  bool empty() const { return n_ == 0; }

 private:
  char text_[CAPACITY];
  size_t n_;
};

// How each kind of argument prints (c10::str's operator<< for the types a check message has).
inline void append(MessageBuffer& b, const char* s) { b.put(s); }
inline void append(MessageBuffer& b, char c) { b.put(c); }
inline void append(MessageBuffer& b, bool v) { b.put(v ? "true" : "false"); }
template <class I>
inline typename std::enable_if<std::is_integral<I>::value && !std::is_same<I, bool>::value && !std::is_same<I, char>::value>::type
append(MessageBuffer& b, I v) { if (std::is_signed<I>::value) b.put_signed((int64_t)v); else b.put_unsigned((uint64_t)v); }
template <class F>
inline typename std::enable_if<std::is_floating_point<F>::value>::type append(MessageBuffer& b, F v) { b.put_double((double)v); }
template <class E>
inline typename std::enable_if<std::is_enum<E>::value>::type append(MessageBuffer& b, E v) { b.put_signed((int64_t)v); }
/** A std::string (anything with c_str()). */
template <class S>
inline auto append(MessageBuffer& b, const S& s) -> decltype(s.c_str(), void()) { b.put(s.c_str()); }

inline void append_all(MessageBuffer&) {}
template <class A, class... Rest>
inline void append_all(MessageBuffer& b, const A& a, const Rest&... rest) { append(b, a); append_all(b, rest...); }

/**
 * A failed check: "<what>(<condition>) failed: <message>" (libtorch's "Expected <condition> to be true, but got
 * false" when there is no message), stopped at the check's file and line.
 */
template <class... A>
[[noreturn]] __attribute__((noinline, cold)) void check_failed(const char* what, const char* condition, const char* file, int32_t line, const A&... message) {
  MessageBuffer b;
  append_all(b, message...);
  MessageBuffer text;
  text.put(what); text.put('('); text.put(condition); text.put(") failed: ");
  if (b.empty()) { text.put("Expected "); text.put(condition); text.put(" to be true, but got false"); }
  else text.put(b.text());
  gpsimd_abort(text.text(), file, line);
}

}  // namespace detail

/** c10::str: the arguments printed one after another (into a buffer that lives for the full expression). */
struct StrResult {
  detail::MessageBuffer buffer;
  const char* c_str() const { return buffer.text(); }
};
template <class... A>
inline StrResult str(const A&... args) { StrResult r; detail::append_all(r.buffer, args...); return r; }

}  // namespace c10

// The checks. A check's arguments are evaluated only when it fails, as in libtorch.
#define GPSIMD_CHECK(what, cond, ...) \
  (__builtin_expect(static_cast<bool>(cond), 1) ? (void)0 : ::c10::detail::check_failed(what, #cond, __FILE__, __LINE__, ##__VA_ARGS__))
// A comparison: both values in the message, as libtorch's "Check failed: a == b (2 vs. 1)".
#define GPSIMD_COMPARE(what, a, op, b)                                                                       \
  (__builtin_expect(static_cast<bool>((a) op (b)), 1)                                                        \
       ? (void)0                                                                                             \
       : ::c10::detail::check_failed(what, #a " " #op " " #b, __FILE__, __LINE__, "Check failed: ", #a " " #op " " #b, \
                                     " (", (a), " vs. ", (b), ")"))
#define TORCH_CHECK(cond, ...) GPSIMD_CHECK("TORCH_CHECK", cond, ##__VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) GPSIMD_CHECK("TORCH_CHECK_VALUE", cond, ##__VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) GPSIMD_CHECK("TORCH_CHECK_INDEX", cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) GPSIMD_CHECK("TORCH_CHECK_TYPE", cond, ##__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) GPSIMD_CHECK("TORCH_CHECK_NOT_IMPLEMENTED", cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) GPSIMD_CHECK("TORCH_INTERNAL_ASSERT", cond, ##__VA_ARGS__)
#define TORCH_CHECK_EQ(a, b) GPSIMD_COMPARE("TORCH_CHECK_EQ", a, ==, b)
#define TORCH_CHECK_NE(a, b) GPSIMD_COMPARE("TORCH_CHECK_NE", a, !=, b)
#define TORCH_CHECK_LT(a, b) GPSIMD_COMPARE("TORCH_CHECK_LT", a, <, b)
#define TORCH_CHECK_LE(a, b) GPSIMD_COMPARE("TORCH_CHECK_LE", a, <=, b)
#define TORCH_CHECK_GT(a, b) GPSIMD_COMPARE("TORCH_CHECK_GT", a, >, b)
#define TORCH_CHECK_GE(a, b) GPSIMD_COMPARE("TORCH_CHECK_GE", a, >=, b)
#define AT_ASSERT(cond, ...) GPSIMD_CHECK("AT_ASSERT", cond, ##__VA_ARGS__)
#define AT_ERROR(...) ::c10::detail::check_failed("AT_ERROR", "false", __FILE__, __LINE__, ##__VA_ARGS__)
