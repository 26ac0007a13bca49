// torch::Tensor and friends for GpSimd kernels on gpsimd: the kernel-side C++
// API of the Neuron custom-operator library, as thin handles
// over gpsimd's device runtime (gpsimd/abi.h). Every check (bounds, TCM,
// streams, coherence, multicore rules) happens in the runtime, exactly as for
// AssemblyScript kernels, and reports the same errors.
//
// A Tensor is the address of its descriptor; accessors, partial indexes
// (acc[i] of a 2-d accessor) and streams are runtime handles. Element types
// are float, double, int64_t, int32_t, int16_t, int8_t, uint8_t, and for
// bfloat16/float16 tensors c10::BFloat16 / c10::Half (also torch:: and at::)
// or uint16_t (their bits).
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <initializer_list>
#include <vector>
#include <type_traits>
#include <assert.h>  // as libtorch's headers bring it (c10/macros/Macros.h): the API guide's kernels call assert()
#include <gpsimd/abi.h>
#include <gpsimd/printf.h>
#include <gpsimd/torch-check.h>  // TORCH_CHECK and its family

// assert() fails as an AssemblyScript assert does: a KernelAbortError naming the expression and the kernel's line (the
// C library's __assert_fail would need WASI's stderr, which a kernel does not have). Including <assert.h> again
// brings the C library's macro back; its __assert_fail (gpsimd/device-libc.h) then still aborts through the runtime.
#undef assert
#ifdef NDEBUG
#define assert(x) ((void)0)
#else
#define assert(x) ((void)((x) || (gpsimd_assert_fail(#x, (int32_t)__builtin_strlen(#x), __FILE__, (int32_t)__builtin_strlen(__FILE__), __LINE__), 0)))
#endif

namespace c10 {
namespace detail {
inline uint32_t f32_bits(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
// The conversions of gpsimd's host (host/device/dtype.ts), bit for bit: round to nearest even; NaN stays NaN
// (quieted, sign and top payload bits kept); overflow rounds to infinity; float16 subnormals and underflow exact.
inline uint16_t f32_to_bf16(float f) {
  uint32_t b = f32_bits(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((b >> 16) | 0x0040u);
  return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
inline float bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }
inline uint16_t f32_to_f16(float f) {
  uint32_t b = f32_bits(f);
  uint32_t sign = (b >> 16) & 0x8000u, exp = (b >> 23) & 0xffu, mant = b & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(mant != 0 ? sign | 0x7e00u | (mant >> 13) : sign | 0x7c00u);
  int32_t e = (int32_t)exp - 127;
  if (e > 15) return (uint16_t)(sign | 0x7c00u);
  if (e >= -14) {
    uint32_t h = ((uint32_t)(e + 15) << 10) | (mant >> 13), rem = mant & 0x1fffu;
    return (uint16_t)(sign | (rem > 0x1000u || (rem == 0x1000u && (h & 1u)) ? h + 1 : h));
  }
  if (e < -25) return (uint16_t)sign;
  uint32_t m = mant | 0x800000u, shift = (uint32_t)(-e - 1), h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  return (uint16_t)(sign | (rem > half || (rem == half && (h & 1u)) ? h + 1 : h));
}
inline float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_f32(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) return bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0) return bits_f32(sign);
  uint32_t e = 113;
  while ((mant & 0x400u) == 0) { mant <<= 1; e--; }
  return bits_f32(sign | (e << 23) | ((mant & 0x3ffu) << 13));
}
}  // namespace detail

/** bfloat16 (torch::kBFloat16) as PyTorch's c10::BFloat16: the bits in x; converts to and from float. */
struct BFloat16 {
  uint16_t x;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float v) : x(detail::f32_to_bf16(v)) {}
  operator float() const { return detail::bf16_to_f32(x); }
  // As c10's: the operand becomes a BFloat16 first, the result is rounded to BFloat16 (buf[j] += 1.0f, buf[j] *= 2).
  BFloat16& operator+=(const BFloat16& b) { return *this = BFloat16((float)*this + (float)b); }
  BFloat16& operator-=(const BFloat16& b) { return *this = BFloat16((float)*this - (float)b); }
  BFloat16& operator*=(const BFloat16& b) { return *this = BFloat16((float)*this * (float)b); }
  BFloat16& operator/=(const BFloat16& b) { return *this = BFloat16((float)*this / (float)b); }
};

/** float16 (torch::kHalf) as PyTorch's c10::Half: the bits in x; converts to and from float. */
struct Half {
  uint16_t x;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float v) : x(detail::f32_to_f16(v)) {}
  operator float() const { return detail::f16_to_f32(x); }
  // As c10's: the operand becomes a Half first, the result is rounded to Half (buf[j] += 1.0f, buf[j] *= 2).
  Half& operator+=(const Half& b) { return *this = Half((float)*this + (float)b); }
  Half& operator-=(const Half& b) { return *this = Half((float)*this - (float)b); }
  Half& operator*=(const Half& b) { return *this = Half((float)*this * (float)b); }
  Half& operator/=(const Half& b) { return *this = Half((float)*this / (float)b); }
};

// Arithmetic as c10's: between two 16-bit floats (or one and an integer) the result is rounded back to 16 bits, so
// every step of `a * b + c` rounds as on the device; with a float or a double the result is a float or a double.
// (c10 takes int and int64_t; any integer type here, so that size_t or long is not an ambiguous call.)
#define GPSIMD_C10_ARITHMETIC(T, op)                                                          \
  inline T operator op(const T& a, const T& b) { return T((float)a op (float)b); }            \
  inline float operator op(T a, float b) { return (float)a op b; }                            \
  inline float operator op(float a, T b) { return a op (float)b; }                            \
  inline double operator op(T a, double b) { return (double)(float)a op b; }                  \
  inline double operator op(double a, T b) { return a op (double)(float)b; }                  \
  template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>     \
  inline T operator op(T a, I b) { return a op T((float)b); }                                 \
  template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>     \
  inline T operator op(I a, T b) { return T((float)a) op b; }
#define GPSIMD_C10_TYPE(T)                                                                    \
  GPSIMD_C10_ARITHMETIC(T, +) GPSIMD_C10_ARITHMETIC(T, -)                                     \
  GPSIMD_C10_ARITHMETIC(T, *) GPSIMD_C10_ARITHMETIC(T, /)                                     \
  inline T operator-(const T& a) { return T(-(float)a); }                                     \
  inline float& operator+=(float& a, const T& b) { return a += (float)b; }                    \
  inline float& operator-=(float& a, const T& b) { return a -= (float)b; }                    \
  inline float& operator*=(float& a, const T& b) { return a *= (float)b; }                    \
  inline float& operator/=(float& a, const T& b) { return a /= (float)b; }
GPSIMD_C10_TYPE(BFloat16)
GPSIMD_C10_TYPE(Half)
#undef GPSIMD_C10_TYPE
#undef GPSIMD_C10_ARITHMETIC

/** Whether T is one of the 16-bit floats, whose arithmetic is c10's (above). */
template <class T> struct is_reduced_float : std::false_type {};
template <> struct is_reduced_float<BFloat16> : std::true_type {};
template <> struct is_reduced_float<Half> : std::true_type {};
}  // namespace c10

namespace at { using c10::BFloat16; using c10::Half; }

namespace torch {
using c10::BFloat16;
using c10::Half;

/** Scalar types, numbered as in gpsimd (host/device/dtype.ts). */
enum class ScalarType : int32_t { Float = 0, BFloat16 = 1, Half = 2, Int = 3, Char = 4, Long = 5, Short = 6, Byte = 7 };
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float, kBFloat16 = ScalarType::BFloat16,
  kHalf = ScalarType::Half, kFloat16 = ScalarType::Half, kInt = ScalarType::Int, kInt32 = ScalarType::Int,
  kChar = ScalarType::Char, kInt8 = ScalarType::Char, kLong = ScalarType::Long, kInt64 = ScalarType::Long,
  kShort = ScalarType::Short, kInt16 = ScalarType::Short, kByte = ScalarType::Byte, kUInt8 = ScalarType::Byte;

/** A number argument: floating or integral, as torch::Scalar. */
class Scalar {
 public:
  Scalar(double v) : d_(v), i_((int64_t)v), integral_(false) {}
  Scalar(float v) : d_(v), i_((int64_t)v), integral_(false) {}
  Scalar(int v) : d_(v), i_(v), integral_(true) {}
  Scalar(unsigned v) : d_(v), i_(v), integral_(true) {}
  Scalar(long v) : d_((double)v), i_(v), integral_(true) {}
  Scalar(long long v) : d_((double)v), i_(v), integral_(true) {}
  Scalar(unsigned long v) : d_((double)v), i_((int64_t)v), integral_(true) {}
  Scalar(unsigned long long v) : d_((double)v), i_((int64_t)v), integral_(true) {}
  Scalar(c10::BFloat16 v) : Scalar((float)v) {}
  Scalar(c10::Half v) : Scalar((float)v) {}
  double toDouble() const { return d_; }
  float toFloat() const { return (float)d_; }
  int64_t toLong() const { return i_; }
  int32_t toInt() const { return (int32_t)i_; }
  bool isIntegral(bool = false) const { return integral_; }
  bool isFloatingPoint() const { return !integral_; }
  template <class T> T to() const { return integral_ ? (T)i_ : (T)d_; }
 private:
  double d_;
  int64_t i_;
  bool integral_;
};

namespace detail {
/** Element types the runtime has; any other (long included: 32 bits in WebAssembly, 64 on the device) is a compile error saying so. */
template <class T> struct Elem {
  static_assert(sizeof(T) == 0, "tensor element types are float, double, int64_t, int32_t, int16_t, int8_t, char, uint8_t, uint16_t, "
                                "c10::BFloat16 and c10::Half; 'long' is 32 bits in gpsimd's WebAssembly build (64 on the device): "
                                "write int64_t for int64 (kLong) elements");
};
#define GPSIMD_ELEM(C, S) template <> struct Elem<C> { \
  static void to_tcm(uint32_t t, const void* p, int64_t o, int64_t n) { gpsimd_to_tcm_##S(t, p, o, n); } \
  static void from_tcm(uint32_t t, const void* p, int64_t o, int64_t n) { gpsimd_from_tcm_##S(t, p, o, n); } \
  static uint32_t open(uint32_t t, int32_t rank) { return gpsimd_acc_open_##S(t, rank); } \
  static C get(uint32_t a, int64_t i) { return gpsimd_acc_get_##S(a, i); } \
  static void set(uint32_t a, int64_t i, C v) { gpsimd_acc_set_##S(a, i, v); } \
  static C row_get(uint32_t h, int64_t j) { return gpsimd_row_get_##S(h, j); } \
  static void row_set(uint32_t h, int64_t j, C v) { gpsimd_row_set_##S(h, j, v); } \
  static uint32_t read_open(uint32_t t) { return gpsimd_read_open_##S(t); } \
  static C read(uint32_t s) { return gpsimd_read_##S(s); } \
  static int32_t read_close(uint32_t s) { return gpsimd_read_close_##S(s); } \
  static uint32_t write_open(uint32_t t) { return gpsimd_write_open_##S(t); } \
  static void write(uint32_t s, C v) { gpsimd_write_##S(s, v); } \
  static int32_t write_close(uint32_t s) { return gpsimd_write_close_##S(s); } };
GPSIMD_ELEM(float, f32) GPSIMD_ELEM(double, f64) GPSIMD_ELEM(int64_t, i64) GPSIMD_ELEM(int32_t, i32)
GPSIMD_ELEM(int16_t, i16) GPSIMD_ELEM(uint16_t, u16) GPSIMD_ELEM(int8_t, i8) GPSIMD_ELEM(uint8_t, u8)
#undef GPSIMD_ELEM
/** bfloat16 and float16 elements: the runtime moves their bits (u16), as for an AssemblyScript kernel's u16. */
template <class H> struct Elem16 {
  static H of(uint16_t bits) { return H(bits, H::from_bits()); }
  static void to_tcm(uint32_t t, const void* p, int64_t o, int64_t n) { gpsimd_to_tcm_u16(t, p, o, n); }
  static void from_tcm(uint32_t t, const void* p, int64_t o, int64_t n) { gpsimd_from_tcm_u16(t, p, o, n); }
  static uint32_t open(uint32_t t, int32_t rank) { return gpsimd_acc_open_u16(t, rank); }
  static H get(uint32_t a, int64_t i) { return of(gpsimd_acc_get_u16(a, i)); }
  static void set(uint32_t a, int64_t i, H v) { gpsimd_acc_set_u16(a, i, v.x); }
  static H row_get(uint32_t h, int64_t j) { return of(gpsimd_row_get_u16(h, j)); }
  static void row_set(uint32_t h, int64_t j, H v) { gpsimd_row_set_u16(h, j, v.x); }
  static uint32_t read_open(uint32_t t) { return gpsimd_read_open_u16(t); }
  static H read(uint32_t s) { return of(gpsimd_read_u16(s)); }
  static int32_t read_close(uint32_t s) { return gpsimd_read_close_u16(s); }
  static uint32_t write_open(uint32_t t) { return gpsimd_write_open_u16(t); }
  static void write(uint32_t s, H v) { gpsimd_write_u16(s, v.x); }
  static int32_t write_close(uint32_t s) { return gpsimd_write_close_u16(s); }
};
template <> struct Elem<c10::BFloat16> : Elem16<c10::BFloat16> {};
template <> struct Elem<c10::Half> : Elem16<c10::Half> {};
template <class T> struct Elem<const T> : Elem<T> {};
template <> struct Elem<char> : Elem<int8_t> {};

/**
 * One element reached through an accessor: reads and writes go through the runtime's checks. It stands for the
 * element (as PyTorch's T& does), so it is not copied: `auto x = acc[i]` would keep a reference where PyTorch keeps
 * the value (a swap through it would write the new value back), and is a compile error saying to name the element
 * type; `T x = acc[i]`, `const auto& r = acc[i]`, std::swap, std::min/std::max with a T, ++ and printf work.
 */
template <class T, bool Row>
class ElementRef {
 public:
  typedef T gpsimd_element_type;  // printf records the element's value (gpsimd/printf.h)
  ElementRef(uint32_t h, int64_t i) : h_(h), i_(i) {}
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++26-extensions"
  ElementRef(const ElementRef&) = delete("an accessor element is a reference to the tensor's element, not a copy of its value: write the element type, float x = acc[i] (not auto x = acc[i]), or const auto& to mean the reference; in c ? acc[i] : acc[j] convert one side, (float)acc[i]");
#pragma clang diagnostic pop
  T value() const { return Row ? Elem<T>::row_get(h_, i_) : Elem<T>::get(h_, i_); }
  operator T() const { return value(); }
  /** A BFloat16 or Half element also reads as float, as PyTorch's accessors' Half& does (one conversion, not two). */
  template <class U = T, class = typename std::enable_if<std::is_class<U>::value>::type>
  operator float() const { return (float)value(); }
  ElementRef& operator=(T v) { if (Row) Elem<T>::row_set(h_, i_, v); else Elem<T>::set(h_, i_, v); return *this; }
  ElementRef& operator=(const ElementRef& o) { return *this = o.value(); }
  ElementRef& operator+=(T v) { return *this = T(value() + v); }
  ElementRef& operator-=(T v) { return *this = T(value() - v); }
  ElementRef& operator*=(T v) { return *this = T(value() * v); }
  ElementRef& operator/=(T v) { return *this = T(value() / v); }
  // Integral elements as PyTorch's int& are: acc[v]++ counts, acc[i] |= m sets bits.
  template <class U = T, class = typename std::enable_if<std::is_integral<U>::value>::type>
  ElementRef& operator%=(U v) { return *this = T(value() % v); }
  template <class U = T, class = typename std::enable_if<std::is_integral<U>::value>::type>
  ElementRef& operator&=(U v) { return *this = T(value() & v); }
  template <class U = T, class = typename std::enable_if<std::is_integral<U>::value>::type>
  ElementRef& operator|=(U v) { return *this = T(value() | v); }
  template <class U = T, class = typename std::enable_if<std::is_integral<U>::value>::type>
  ElementRef& operator^=(U v) { return *this = T(value() ^ v); }
  template <class U = T, class = typename std::enable_if<std::is_integral<U>::value>::type>
  ElementRef& operator<<=(int v) { return *this = T(value() << v); }
  template <class U = T, class = typename std::enable_if<std::is_integral<U>::value>::type>
  ElementRef& operator>>=(int v) { return *this = T(value() >> v); }
  template <class U = T, class = typename std::enable_if<std::is_arithmetic<U>::value>::type>
  ElementRef& operator++() { return *this = T(value() + 1); }
  template <class U = T, class = typename std::enable_if<std::is_arithmetic<U>::value>::type>
  ElementRef& operator--() { return *this = T(value() - 1); }
  template <class U = T, class = typename std::enable_if<std::is_arithmetic<U>::value>::type>
  T operator++(int) { T v = value(); *this = T(v + 1); return v; }
  template <class U = T, class = typename std::enable_if<std::is_arithmetic<U>::value>::type>
  T operator--(int) { T v = value(); *this = T(v - 1); return v; }
 private:
  uint32_t h_;
  int64_t i_;
};

/** A 16-bit float element as an operand: its value (an element of another type: its value too). */
template <class X> struct is_reduced_element : std::false_type {};
template <class T, bool R> struct is_reduced_element<ElementRef<T, R>> : c10::is_reduced_float<T> {};
template <class T, bool R> T operand(const ElementRef<T, R>& e) { return e.value(); }
template <class X> const X& operand(const X& x) { return x; }

// A BFloat16 or Half element reads both as its type and as float, so with c10's operators it would be an ambiguous
// operand: in arithmetic it is its value, and c10's operators decide the result (in[i] * 2.0f is a float,
// a[i] * b[i] + c[i] rounds to 16 bits at each step).
#define GPSIMD_ELEMENT_ARITHMETIC(op)                                                                              \
  template <class A, class B, class = typename std::enable_if<is_reduced_element<A>::value || is_reduced_element<B>::value>::type> \
  auto operator op(const A& a, const B& b) -> decltype(operand(a) op operand(b)) { return operand(a) op operand(b); }
GPSIMD_ELEMENT_ARITHMETIC(+)
GPSIMD_ELEMENT_ARITHMETIC(-)
GPSIMD_ELEMENT_ARITHMETIC(*)
GPSIMD_ELEMENT_ARITHMETIC(/)
#undef GPSIMD_ELEMENT_ARITHMETIC
template <class A, class = typename std::enable_if<is_reduced_element<A>::value>::type>
auto operator-(const A& a) -> decltype(-operand(a)) { return -operand(a); }
// And into a float or other number: sum += in[i] adds the element's value (c10's float += BFloat16 when it is one).
#define GPSIMD_ELEMENT_COMPOUND(op)                                                                                \
  template <class L, class A, class = typename std::enable_if<std::is_arithmetic<L>::value && is_reduced_element<A>::value>::type> \
  L& operator op(L& a, const A& b) { return a op operand(b); }
GPSIMD_ELEMENT_COMPOUND(+=)
GPSIMD_ELEMENT_COMPOUND(-=)
GPSIMD_ELEMENT_COMPOUND(*=)
GPSIMD_ELEMENT_COMPOUND(/=)
#undef GPSIMD_ELEMENT_COMPOUND

/** A partial index of an N-d accessor with M indexes left (acc[i] of a 2-d accessor has M = 1). */
template <class T, size_t M>
class RowRef {
 public:
  explicit RowRef(uint32_t h) : h_(h) {}
  RowRef<T, M - 1> operator[](int64_t j) const { return RowRef<T, M - 1>(gpsimd_row_next(h_, j)); }
 private:
  uint32_t h_;
};
template <class T>
class RowRef<T, 1> {
 public:
  explicit RowRef(uint32_t h) : h_(h) {}
  ElementRef<T, true> operator[](int64_t j) const { return {h_, j}; }  // braces: no copy of the element
 private:
  uint32_t h_;
};
}  // namespace detail

/** Element-wise accessor, accessor<T, N>(): acc[i] (N = 1) or acc[i][j]... Every access goes to HBM. Single-core only. */
template <class T, size_t N>
class TensorAccessor {
 public:
  explicit TensorAccessor(uint32_t a) : a_(a) {}
  detail::RowRef<T, N - 1> operator[](int64_t i) const { return detail::RowRef<T, N - 1>(gpsimd_acc_row(a_, i)); }
  /** Size and stride of dimension d of the accessor's tensor, as acc.size(0) in PyTorch. */
  int64_t size(int64_t d) const { return gpsimd_size(a_, (int32_t)d); }
  int64_t stride(int64_t d) const { return gpsimd_stride(a_, (int32_t)d); }
 private:
  uint32_t a_;
};
template <class T>
class TensorAccessor<T, 1> {
 public:
  explicit TensorAccessor(uint32_t a) : a_(a) {}
  detail::ElementRef<T, false> operator[](int64_t i) const { return {a_, i}; }  // braces: no copy of the element
  int64_t size(int64_t d) const { return gpsimd_size(a_, (int32_t)d); }
  int64_t stride(int64_t d) const { return gpsimd_stride(a_, (int32_t)d); }
 private:
  uint32_t a_;
};

/** Bulk copies between a tensor and TCM; offsets index the flattened tensor. The fast path; multicore-safe. */
class TensorTcmAccessor {
 public:
  explicit TensorTcmAccessor(uint32_t t) : t_(t) {}
  template <class T> void tensor_to_tcm(T* tcm_ptr, int64_t tensor_offset, int64_t num_elem) const {
    detail::Elem<T>::to_tcm(t_, tcm_ptr, tensor_offset, num_elem);
  }
  template <class T> void tcm_to_tensor(const T* tcm_ptr, int64_t tensor_offset, int64_t num_elem) const {
    detail::Elem<T>::from_tcm(t_, tcm_ptr, tensor_offset, num_elem);
  }
 private:
  uint32_t t_;
};

/**
 * A stream is closed by close() or by going out of scope, as on the device (the API guide's streaming example never
 * calls close()): the destructor closes a stream that is still open. Streams move and do not copy, so one stream is
 * closed once; a second close() is the runtime's closed-stream error, as in AssemblyScript.
 */
template <class T, bool Write>
class StreamHandle {
 public:
  explicit StreamHandle(uint32_t s) : s_(s), open_(true) {}
  StreamHandle(StreamHandle&& o) : s_(o.s_), open_(o.open_) { o.open_ = false; }
  StreamHandle(const StreamHandle&) = delete;
  StreamHandle& operator=(const StreamHandle&) = delete;
  ~StreamHandle() { if (open_) close(); }
  int close() { open_ = false; return Write ? detail::Elem<T>::write_close(s_) : detail::Elem<T>::read_close(s_); }
 protected:
  uint32_t s_;
 private:
  bool open_;
};

/** Sequential reader through a 4 KB TCM cache. Single-core only. */
template <class T>
class TensorReadStreamAccessor : public StreamHandle<T, false> {
 public:
  explicit TensorReadStreamAccessor(uint32_t s) : StreamHandle<T, false>(s) {}
  T read() { return detail::Elem<T>::read(this->s_); }
};

/** Sequential writer through a 4 KB TCM cache; close() (or the end of its scope) flushes. Single-core only. */
template <class T>
class TensorWriteStreamAccessor : public StreamHandle<T, true> {
 public:
  explicit TensorWriteStreamAccessor(uint32_t s) : StreamHandle<T, true>(s) {}
  void write(T v) { detail::Elem<T>::write(this->s_, v); }
};

/** How potentially incoherent accessor use on a tensor is treated. */
struct CoherencyEnforcer {
  enum class Policy : int32_t { COHERENT = 0, INCOHERENT_VERBOSE = 1, INCOHERENT_QUIET = 2 };
};

/** The sizes of a tensor: sizes()[d], size(). */
class IntArrayRef {
 public:
  explicit IntArrayRef(uint32_t t) : t_(t), list_(nullptr), n_(gpsimd_dim(t)) {}
  IntArrayRef(std::initializer_list<int64_t> l) : t_(0), list_(l.begin()), n_((int32_t)l.size()) {}
  /** Sizes in a std::vector<int64_t> (or std::array, or any container of int64_t with data() and size()). */
  template <class C, class = typename std::enable_if<std::is_convertible<decltype(std::declval<const C&>().data()), const int64_t*>::value>::type>
  IntArrayRef(const C& c) : t_(0), list_(c.data()), n_((int32_t)c.size()) {}
  int64_t operator[](size_t d) const { return list_ ? list_[d] : gpsimd_size(t_, (int32_t)d); }
  size_t size() const { return (size_t)n_; }
  bool empty() const { return n_ == 0; }
  int64_t front() const { return (*this)[0]; }
  int64_t back() const { return (*this)[size() - 1]; }
  /** A std::vector of the sizes, to change and pass to a factory: auto s = x.sizes().vec(); s.back() = 1. */
  std::vector<int64_t> vec() const {
    std::vector<int64_t> v(size());
    for (size_t d = 0; d < size(); d++) v[d] = (*this)[d];
    return v;
  }
  bool operator==(const IntArrayRef& o) const {
    if (size() != o.size()) return false;
    for (size_t d = 0; d < size(); d++) if ((*this)[d] != o[d]) return false;
    return true;
  }
  bool operator!=(const IntArrayRef& o) const { return !(*this == o); }
  /** for (int64_t s : t.sizes()): an iterator over the dimensions' sizes. */
  class iterator {
   public:
    iterator(const IntArrayRef* a, size_t d) : a_(a), d_(d) {}
    int64_t operator*() const { return (*a_)[d_]; }
    iterator& operator++() { d_++; return *this; }
    bool operator!=(const iterator& o) const { return d_ != o.d_; }
    bool operator==(const iterator& o) const { return d_ == o.d_; }
   private:
    const IntArrayRef* a_;
    size_t d_;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size()); }
  /** Copies the sizes into out (at least 8 entries); returns how many. */
  int32_t copy_to(int64_t* out) const { for (int32_t d = 0; d < n_ && d < 8; d++) out[d] = (*this)[d]; return n_; }
 private:
  uint32_t t_;
  const int64_t* list_;
  int32_t n_;
};

/**
 * The dtype of a factory, as torch::TensorOptions carries it: torch::TensorOptions().dtype(torch::kFloat),
 * torch::dtype(torch::kFloat), x.options(). TensorOptions() alone is float32, as in libtorch.
 */
class TensorOptions {
 public:
  TensorOptions(ScalarType d = ScalarType::Float) : dtype_(d) {}
  TensorOptions dtype(ScalarType d) const { return TensorOptions(d); }
  ScalarType dtype() const { return dtype_; }
  /** Accepted and ignored: gpsimd's tensors have no autograd. */
  TensorOptions requires_grad(bool = true) const { return *this; }
 private:
  ScalarType dtype_;
};
inline TensorOptions dtype(ScalarType d) { return TensorOptions(d); }

#define GPSIMD_NO_DATA_PTR(name) name "<T>(): a tensor's data is in the device's HBM, which a GpSimd kernel does not address: " \
  "copy a piece into TCM with t.tcm_accessor().tensor_to_tcm<float>(tcm_buffer, offset, count) (and back with tcm_to_tensor), " \
  "or read and write elements with auto a = t.accessor<float, 2>(); a[i][j]"

/** A tensor in device memory (HBM): an operator argument, the output, or one made by the kernel. */
class Tensor {
 public:
  Tensor() : t_(0) {}
  IntArrayRef sizes() const { return IntArrayRef(t_); }
  int64_t size(int64_t d) const { return gpsimd_size(t_, (int32_t)d); }
  int64_t stride(int64_t d) const { return gpsimd_stride(t_, (int32_t)d); }
  int64_t numel() const { return gpsimd_numel(t_); }
  int64_t dim() const { return gpsimd_dim(t_); }
  ScalarType scalar_type() const { return (ScalarType)gpsimd_scalar_type(t_); }
  ScalarType dtype() const { return scalar_type(); }
  TensorOptions options() const { return TensorOptions(scalar_type()); }
  int64_t element_size() const {
    switch (scalar_type()) {
      case ScalarType::Long: return 8;
      case ScalarType::Float: case ScalarType::Int: return 4;
      case ScalarType::Char: case ScalarType::Byte: return 1;
      default: return 2;
    }
  }
  template <class T, size_t N = 1> TensorAccessor<T, N> accessor() const {
    return TensorAccessor<T, N>(detail::Elem<T>::open(t_, (int32_t)N));
  }
  TensorTcmAccessor tcm_accessor() const { return TensorTcmAccessor(t_); }
  template <class T> TensorReadStreamAccessor<T> read_stream_accessor() const {
    return TensorReadStreamAccessor<T>(detail::Elem<T>::read_open(t_));
  }
  template <class T> TensorWriteStreamAccessor<T> write_stream_accessor() const {
    return TensorWriteStreamAccessor<T>(detail::Elem<T>::write_open(t_));
  }
  void set_accessor_coherence_policy(CoherencyEnforcer::Policy p) const { gpsimd_set_policy(t_, (int32_t)p); }
  CoherencyEnforcer::Policy get_accessor_coherence_policy() const { return (CoherencyEnforcer::Policy)gpsimd_get_policy(t_); }
  Tensor& fill_(Scalar v) { if (v.isIntegral()) gpsimd_fill_i(t_, v.toLong()); else gpsimd_fill(t_, v.toDouble()); return *this; }
  Tensor& zero_() { gpsimd_fill_i(t_, 0); return *this; }
  /** The value of a one-element tensor, converted to T (in a kernel; a shape function's tensors have no data). */
  template <class T> T item() const;
  /** Whether the elements lie in row-major order without gaps (gpsimd's tensors always do). */
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int64_t d = dim() - 1; d >= 0; d--) {
      if (size(d) != 1 && stride(d) != expected) return false;
      expected *= size(d);
    }
    return true;
  }
  /** The tensor itself when contiguous (always, in gpsimd); no copy is made. */
  Tensor contiguous() const {
    if (!is_contiguous()) c10::detail::check_failed("contiguous()", "is_contiguous()", __FILE__, __LINE__, "a non-contiguous tensor would be copied, which gpsimd's kernels do not do");
    return *this;
  }
  // A raw pointer to a tensor's data cannot work: the data is in the device's HBM, which a kernel reaches only through
  // accessors and TCM copies (on the device as here). A compile error says what to write instead.
  template <class T = void> T* data_ptr() const {
    static_assert(sizeof(T*) == 0, GPSIMD_NO_DATA_PTR("data_ptr"));
    return nullptr;
  }
  template <class T = void> T* mutable_data_ptr() const {
    static_assert(sizeof(T*) == 0, GPSIMD_NO_DATA_PTR("mutable_data_ptr"));
    return nullptr;
  }
  template <class T = void> const T* const_data_ptr() const {
    static_assert(sizeof(T*) == 0, GPSIMD_NO_DATA_PTR("const_data_ptr"));
    return nullptr;
  }

  /** The descriptor address (for gpsimd's own glue code). */
  uint32_t gpsimd_handle() const { return t_; }
  static Tensor gpsimd_from(uint32_t t) { Tensor x; x.t_ = t; return x; }
 private:
  uint32_t t_;
};

namespace detail {
inline Tensor T(uint32_t h) { return Tensor::gpsimd_from(h); }
}

// Factories: the data lives on the core's kernel heap until the launch ends.
inline Tensor empty(IntArrayRef s, ScalarType d) { int64_t v[8]; int32_t n = s.copy_to(v); return detail::T(gpsimd_empty(v, n, (int32_t)d)); }
inline Tensor zeros(IntArrayRef s, ScalarType d) { int64_t v[8]; int32_t n = s.copy_to(v); return detail::T(gpsimd_zeros(v, n, (int32_t)d)); }
inline Tensor ones(IntArrayRef s, ScalarType d) { int64_t v[8]; int32_t n = s.copy_to(v); return detail::T(gpsimd_ones(v, n, (int32_t)d)); }
inline Tensor full(IntArrayRef s, Scalar x, ScalarType d) {
  int64_t v[8]; int32_t n = s.copy_to(v);
  return detail::T(x.isIntegral() ? gpsimd_full_i(v, n, x.toLong(), (int32_t)d) : gpsimd_full(v, n, x.toDouble(), (int32_t)d));
}
inline Tensor eye(int64_t n, ScalarType d) { return detail::T(gpsimd_eye(n, n, (int32_t)d)); }
inline Tensor eye(int64_t n, int64_t m, ScalarType d) { return detail::T(gpsimd_eye(n, m, (int32_t)d)); }

namespace detail {
inline ScalarType dtype_of(const TensorOptions& o) { return o.dtype(); }
}  // namespace detail
inline Tensor empty(IntArrayRef s, const TensorOptions& o) { return empty(s, detail::dtype_of(o)); }
inline Tensor zeros(IntArrayRef s, const TensorOptions& o) { return zeros(s, detail::dtype_of(o)); }
inline Tensor ones(IntArrayRef s, const TensorOptions& o) { return ones(s, detail::dtype_of(o)); }
inline Tensor full(IntArrayRef s, Scalar x, const TensorOptions& o) { return full(s, x, detail::dtype_of(o)); }
inline Tensor eye(int64_t n, const TensorOptions& o) { return eye(n, detail::dtype_of(o)); }
inline Tensor eye(int64_t n, int64_t m, const TensorOptions& o) { return eye(n, m, detail::dtype_of(o)); }
// The _like factories: the sizes of t, its dtype unless one is given.
inline Tensor empty_like(const Tensor& t) { return empty(t.sizes(), t.scalar_type()); }
inline Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.scalar_type()); }
inline Tensor ones_like(const Tensor& t) { return ones(t.sizes(), t.scalar_type()); }
inline Tensor full_like(const Tensor& t, Scalar x) { return full(t.sizes(), x, t.scalar_type()); }
inline Tensor empty_like(const Tensor& t, const TensorOptions& o) { return empty(t.sizes(), detail::dtype_of(o)); }
inline Tensor zeros_like(const Tensor& t, const TensorOptions& o) { return zeros(t.sizes(), detail::dtype_of(o)); }
inline Tensor ones_like(const Tensor& t, const TensorOptions& o) { return ones(t.sizes(), detail::dtype_of(o)); }
inline Tensor full_like(const Tensor& t, Scalar x, const TensorOptions& o) { return full(t.sizes(), x, detail::dtype_of(o)); }

// Tensor operations (no broadcasting: shapes must match), each with an _out form.
#define GPSIMD_UNARY(op) \
  inline Tensor op(const Tensor& self) { return detail::T(gpsimd_##op(0, self.gpsimd_handle())); } \
  inline Tensor& op##_out(Tensor& result, const Tensor& self) { gpsimd_##op(result.gpsimd_handle(), self.gpsimd_handle()); return result; }
GPSIMD_UNARY(abs) GPSIMD_UNARY(ceil) GPSIMD_UNARY(floor) GPSIMD_UNARY(sin) GPSIMD_UNARY(cos) GPSIMD_UNARY(tan)
GPSIMD_UNARY(log) GPSIMD_UNARY(log2) GPSIMD_UNARY(log10) GPSIMD_UNARY(exp) GPSIMD_UNARY(bitwise_not)
#undef GPSIMD_UNARY
#define GPSIMD_BINARY(op) \
  inline Tensor op(const Tensor& self, const Tensor& other) { return detail::T(gpsimd_##op(0, self.gpsimd_handle(), other.gpsimd_handle())); } \
  inline Tensor& op##_out(Tensor& result, const Tensor& self, const Tensor& other) { gpsimd_##op(result.gpsimd_handle(), self.gpsimd_handle(), other.gpsimd_handle()); return result; }
GPSIMD_BINARY(mul) GPSIMD_BINARY(div) GPSIMD_BINARY(pow) GPSIMD_BINARY(bitwise_and) GPSIMD_BINARY(bitwise_or)
#undef GPSIMD_BINARY
// A Scalar as the runtime takes it: as double, as int64_t, and whether it is integral (gpsimd/abi.h).
#define GPSIMD_S(x) (x).toDouble(), (x).toLong(), (int32_t)(x).isIntegral()
#define GPSIMD_SCALAR(op) \
  inline Tensor op(const Tensor& self, Scalar other) { return detail::T(gpsimd_##op##_scalar(0, self.gpsimd_handle(), GPSIMD_S(other))); } \
  inline Tensor& op##_out(Tensor& result, const Tensor& self, Scalar other) { gpsimd_##op##_scalar(result.gpsimd_handle(), self.gpsimd_handle(), GPSIMD_S(other)); return result; }
GPSIMD_SCALAR(mul) GPSIMD_SCALAR(div) GPSIMD_SCALAR(pow) GPSIMD_SCALAR(bitwise_and) GPSIMD_SCALAR(bitwise_or)
#undef GPSIMD_SCALAR
// Scalar-first forms: torch::pow(2, t) is 2 to the power of each element; bitwise_and/or(Scalar, Tensor).
#define GPSIMD_SCALAR_FIRST(op) \
  inline Tensor op(Scalar self, const Tensor& other) { return detail::T(gpsimd_scalar_##op(0, GPSIMD_S(self), other.gpsimd_handle())); } \
  inline Tensor& op##_out(Tensor& result, Scalar self, const Tensor& other) { gpsimd_scalar_##op(result.gpsimd_handle(), GPSIMD_S(self), other.gpsimd_handle()); return result; }
GPSIMD_SCALAR_FIRST(pow) GPSIMD_SCALAR_FIRST(bitwise_and) GPSIMD_SCALAR_FIRST(bitwise_or)
#undef GPSIMD_SCALAR_FIRST
#define GPSIMD_ALPHA(op) \
  inline Tensor op(const Tensor& self, const Tensor& other, Scalar alpha = 1) { return detail::T(gpsimd_##op(0, self.gpsimd_handle(), other.gpsimd_handle(), GPSIMD_S(alpha))); } \
  inline Tensor& op##_out(Tensor& result, const Tensor& self, const Tensor& other, Scalar alpha = 1) { gpsimd_##op(result.gpsimd_handle(), self.gpsimd_handle(), other.gpsimd_handle(), GPSIMD_S(alpha)); return result; } \
  inline Tensor op(const Tensor& self, Scalar other, Scalar alpha = 1) { return detail::T(gpsimd_##op##_scalar(0, self.gpsimd_handle(), GPSIMD_S(other), GPSIMD_S(alpha))); } \
  inline Tensor& op##_out(Tensor& result, const Tensor& self, Scalar other, Scalar alpha = 1) { gpsimd_##op##_scalar(result.gpsimd_handle(), self.gpsimd_handle(), GPSIMD_S(other), GPSIMD_S(alpha)); return result; }
GPSIMD_ALPHA(add) GPSIMD_ALPHA(sub)
#undef GPSIMD_ALPHA
inline Tensor clamp(const Tensor& self, Scalar lo, Scalar hi) { return detail::T(gpsimd_clamp(0, self.gpsimd_handle(), GPSIMD_S(lo), GPSIMD_S(hi))); }
inline Tensor& clamp_out(Tensor& result, const Tensor& self, Scalar lo, Scalar hi) { gpsimd_clamp(result.gpsimd_handle(), self.gpsimd_handle(), GPSIMD_S(lo), GPSIMD_S(hi)); return result; }
#undef GPSIMD_S

}  // namespace torch

// Accessor elements take part in std::min, std::max and std::swap as PyTorch's T& does: std::max(acc[i], 0.0f) is a
// float (the same results as std's: max is a < b ? b : a, min is b < a ? b : a), std::swap(o[i], o[j]) swaps the elements.
namespace std {
template <class T, bool R> inline T max(const torch::detail::ElementRef<T, R>& a, const T& b) { T x = a; return x < b ? b : x; }
template <class T, bool R> inline T max(const T& a, const torch::detail::ElementRef<T, R>& b) { T y = b; return a < y ? y : a; }
template <class T, bool R> inline T min(const torch::detail::ElementRef<T, R>& a, const T& b) { T x = a; return b < x ? b : x; }
template <class T, bool R> inline T min(const T& a, const torch::detail::ElementRef<T, R>& b) { T y = b; return y < a ? y : a; }
template <class T, bool R1, bool R2, class = typename std::enable_if<R1 != R2>::type>
inline T max(const torch::detail::ElementRef<T, R1>& a, const torch::detail::ElementRef<T, R2>& b) { T x = a, y = b; return x < y ? y : x; }
template <class T, bool R1, bool R2, class = typename std::enable_if<R1 != R2>::type>
inline T min(const torch::detail::ElementRef<T, R1>& a, const torch::detail::ElementRef<T, R2>& b) { T x = a, y = b; return y < x ? y : x; }
template <class T, bool R1, bool R2>
inline void swap(torch::detail::ElementRef<T, R1>&& a, torch::detail::ElementRef<T, R2>&& b) { T x = a; a = T(b); b = x; }
}  // namespace std

namespace torch {
namespace neuron {
/** TCM from this core's 16 KB pool; nullptr when the pool cannot satisfy the request. */
inline void* tcm_malloc(size_t nbytes) { return (void*)(uintptr_t)gpsimd_tcm_malloc((uint32_t)nbytes); }
/** Frees a block from tcm_malloc (anything else is an error). */
inline void tcm_free(void* ptr) { gpsimd_tcm_free((uint32_t)(uintptr_t)ptr); }
}  // namespace neuron
}  // namespace torch

/** The operator's output tensor, allocated from the shape function: write the result here. */
inline torch::Tensor get_dst_tensor() { return torch::Tensor::gpsimd_from(gpsimd_dst()); }
/** Index of this core, in [0, get_cpu_count()). */
inline uint32_t get_cpu_id() { return gpsimd_cpu_id(); }
/** Number of cores running this kernel: 8 in a multicore library, 1 otherwise. */
inline uint32_t get_cpu_count() { return gpsimd_cpu_count(); }

namespace c10 {
namespace detail {
/** A dtype's name as libtorch prints it (toString(ScalarType)). */
inline const char* scalar_type_name(torch::ScalarType t) {
  switch (t) {
    case torch::ScalarType::Float: return "Float";
    case torch::ScalarType::BFloat16: return "BFloat16";
    case torch::ScalarType::Half: return "Half";
    case torch::ScalarType::Int: return "Int";
    case torch::ScalarType::Char: return "Char";
    case torch::ScalarType::Long: return "Long";
    case torch::ScalarType::Short: return "Short";
    case torch::ScalarType::Byte: return "Byte";
  }
  return "Unknown";
}
// Check messages print dtypes by name and sizes as [2, 3], as c10::str does.
inline void append(MessageBuffer& b, torch::ScalarType t) { b.put(scalar_type_name(t)); }
inline void append(MessageBuffer& b, const torch::IntArrayRef& s) {
  b.put('[');
  for (size_t d = 0; d < s.size(); d++) { if (d) b.put(", "); b.put_signed(s[d]); }
  b.put(']');
}
inline void append(MessageBuffer& b, c10::BFloat16 v) { b.put_double((float)v); }
inline void append(MessageBuffer& b, c10::Half v) { b.put_double((float)v); }

/** T from an element value (16-bit floats through float). */
template <class T, class S> inline T convert_element(S v) { return T(v); }
template <> inline c10::BFloat16 convert_element<c10::BFloat16, int64_t>(int64_t v) { return c10::BFloat16((float)v); }
template <> inline c10::Half convert_element<c10::Half, int64_t>(int64_t v) { return c10::Half((float)v); }
template <class T, class S> inline T read_item(uint32_t t) {
  S v = torch::detail::Elem<S>::get(torch::detail::Elem<S>::open(t, 0), 0);
  return convert_element<T>(typename std::conditional<std::is_class<S>::value, float, S>::type(v));
}
}  // namespace detail
inline const char* toString(torch::ScalarType t) { return detail::scalar_type_name(t); }

/** for (auto i : c10::irange(n)): the integers [begin, end) in end's type (an empty range when end <= begin). */
template <class I>
class integer_range {
 public:
  class iterator {
   public:
    explicit iterator(I v) : v_(v) {}
    I operator*() const { return v_; }
    iterator& operator++() { ++v_; return *this; }
    bool operator==(const iterator& o) const { return v_ == o.v_; }
    bool operator!=(const iterator& o) const { return v_ != o.v_; }
   private:
    I v_;
  };
  integer_range(I begin, I end) : begin_(begin), end_(end < begin ? begin : end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }
 private:
  I begin_, end_;
};
template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
inline integer_range<I> irange(I end) { return integer_range<I>(I(0), end); }
template <class B, class I, class = typename std::enable_if<std::is_integral<B>::value && std::is_integral<I>::value>::type>
inline integer_range<I> irange(B begin, I end) { return integer_range<I>(static_cast<I>(begin), end); }

using torch::ScalarType;
using torch::Scalar;
using torch::IntArrayRef;
}  // namespace c10

template <class T> T torch::Tensor::item() const {
  if (numel() != 1) c10::detail::check_failed("item()", "numel() == 1", __FILE__, __LINE__, "item() reads a tensor of one element; this one has ", numel(), " elements");
  switch (scalar_type()) {
    case ScalarType::Float: return c10::detail::read_item<T, float>(t_);
    case ScalarType::BFloat16: return c10::detail::read_item<T, c10::BFloat16>(t_);
    case ScalarType::Half: return c10::detail::read_item<T, c10::Half>(t_);
    case ScalarType::Int: return c10::detail::read_item<T, int32_t>(t_);
    case ScalarType::Char: return c10::detail::read_item<T, int8_t>(t_);
    case ScalarType::Long: return c10::detail::read_item<T, int64_t>(t_);
    case ScalarType::Short: return c10::detail::read_item<T, int16_t>(t_);
    case ScalarType::Byte: return c10::detail::read_item<T, uint8_t>(t_);
  }
  return T();
}

// at:: is torch:: (at::Tensor, at::zeros, at::kFloat), as in libtorch where torch:: re-exports ATen.
namespace at { using namespace torch; }

#include <gpsimd/dispatch.h>  // AT_DISPATCH_FLOATING_TYPES and the other AT_DISPATCH_* macros
