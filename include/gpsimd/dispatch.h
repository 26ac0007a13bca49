// AT_DISPATCH_* as libtorch's ATen/Dispatch.h spells them, for the dtypes
// gpsimd has: the lambda runs once with scalar_t the C++ type of the tensor's
// dtype; a dtype the macro does not cover fails as libtorch's does
// ("\"relu\" not implemented for 'Int'"), at the macro's line (a
// KernelAbortError in a kernel, a ShapeFunctionError in a shape function).
// gpsimd has no float64 tensors, so the floating lists are float32 (and the
// 16-bit floats where the macro's name says so). Included at the end of
// <torch/torch.h>.
#pragma once

namespace c10 {
namespace detail {
/** The C++ element type of a dtype (libtorch's ScalarTypeToCPPType). */
template <torch::ScalarType S> struct CppTypeOf;
template <> struct CppTypeOf<torch::ScalarType::Float> { using type = float; };
template <> struct CppTypeOf<torch::ScalarType::BFloat16> { using type = c10::BFloat16; };
template <> struct CppTypeOf<torch::ScalarType::Half> { using type = c10::Half; };
template <> struct CppTypeOf<torch::ScalarType::Int> { using type = int32_t; };
template <> struct CppTypeOf<torch::ScalarType::Char> { using type = int8_t; };
template <> struct CppTypeOf<torch::ScalarType::Long> { using type = int64_t; };
template <> struct CppTypeOf<torch::ScalarType::Short> { using type = int16_t; };
template <> struct CppTypeOf<torch::ScalarType::Byte> { using type = uint8_t; };

[[noreturn]] __attribute__((noinline, cold)) inline void dispatch_failed(const char* name, torch::ScalarType t, const char* file, int32_t line) {
  MessageBuffer b;
  b.put('"'); b.put(name); b.put("\" not implemented for '"); b.put(scalar_type_name(t)); b.put('\'');
  gpsimd_abort(b.text(), file, line);
}
}  // namespace detail
}  // namespace c10

/** One case of AT_DISPATCH_SWITCH: scalar_t is the C++ type of dtype `enum_type` (a torch::ScalarType constant). */
#define AT_DISPATCH_CASE(enum_type, ...)                                                          \
  case enum_type: {                                                                               \
    using scalar_t __attribute__((unused)) = typename ::c10::detail::CppTypeOf<enum_type>::type; \
    return __VA_ARGS__();                                                                         \
  }
/** Runs the case of TYPE's dtype; any other dtype fails naming NAME and the dtype. */
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                          \
  [&] {                                                                              \
    const ::torch::ScalarType gpsimd_dispatch_type = (TYPE);                         \
    switch (gpsimd_dispatch_type) {                                                  \
      __VA_ARGS__                                                                    \
      default:                                                                       \
        ::c10::detail::dispatch_failed(NAME, gpsimd_dispatch_type, __FILE__, __LINE__); \
    }                                                                                \
  }()

#define AT_DISPATCH_CASE_FLOATING_TYPES(...) AT_DISPATCH_CASE(::torch::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(...) \
  AT_DISPATCH_CASE(::torch::ScalarType::Half, __VA_ARGS__) AT_DISPATCH_CASE(::torch::ScalarType::BFloat16, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)                                                   \
  AT_DISPATCH_CASE(::torch::ScalarType::Byte, __VA_ARGS__) AT_DISPATCH_CASE(::torch::ScalarType::Char, __VA_ARGS__) \
  AT_DISPATCH_CASE(::torch::ScalarType::Int, __VA_ARGS__) AT_DISPATCH_CASE(::torch::ScalarType::Long, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::torch::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES(...) AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(::torch::ScalarType::Half, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__) AT_DISPATCH_CASE(S2, __VA_ARGS__))
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(S1, S2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__) AT_DISPATCH_CASE(S2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...) AT_DISPATCH_ALL_TYPES_AND(::torch::ScalarType::Half, TYPE, NAME, __VA_ARGS__)
