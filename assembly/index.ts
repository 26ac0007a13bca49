// gpsimd for kernels: the names of the GpSimd C++ custom-operator API.
// import { Tensor, get_dst_tensor, tcm_malloc, tcm_free } from "gpsimd";
export { Tensor } from "./tensor";
export { get_cpu_id, get_cpu_count, get_dst_tensor } from "./core";
export { tcm_malloc, tcm_free, TcmAccessor } from "./tcm";
export { Accessor, Accessor2, Accessor3, Accessor4, Row1, Row2, Row3 } from "./accessor";
export { ReadStreamAccessor, WriteStreamAccessor } from "./stream";
export { COHERENT, INCOHERENT_VERBOSE, INCOHERENT_QUIET } from "./coherence";
export { printf } from "./printf";
export { empty, zeros, ones, full, eye, fill_ } from "./factories";
export {
  kFloat, kFloat32, kBFloat16, kHalf, kFloat16, kInt, kInt32, kChar, kInt8, kLong, kInt64, kShort, kInt16, kByte, kUInt8,
  element_size, f32_to_bf16, bf16_to_f32, f32_to_f16, f16_to_f32,
} from "./dtype";
export { relu_f32, relu_backward_f32, add_f32, neg_f32, fmax, fmin } from "./simd";
export {
  abs, abs_out, ceil, ceil_out, floor, floor_out, sin, sin_out, cos, cos_out, tan, tan_out,
  log, log_out, log2, log2_out, log10, log10_out, exp, exp_out,
  pow, pow_out, pow_scalar, pow_scalar_out, scalar_pow, scalar_pow_out, clamp, clamp_out,
  add, add_out, add_scalar, add_scalar_out, sub, sub_out, sub_scalar, sub_scalar_out,
  mul, mul_out, mul_scalar, mul_scalar_out, div, div_out, div_scalar, div_scalar_out,
  bitwise_and, bitwise_and_out, bitwise_and_scalar, bitwise_and_scalar_out, scalar_bitwise_and, scalar_bitwise_and_out,
  bitwise_or, bitwise_or_out, bitwise_or_scalar, bitwise_or_scalar_out, scalar_bitwise_or, scalar_bitwise_or_out,
  bitwise_not, bitwise_not_out,
} from "./tensor-ops";
