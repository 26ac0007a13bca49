// Tensor operations usable inside kernels (torch::abs, torch::add_out, ...):
// element-wise, no broadcasting, each in a plain form that returns a new
// tensor on the kernel heap (like zeros()) and an _out form that writes into
// a given tensor (get_dst_tensor() or one the kernel made) and returns it.
//
// AssemblyScript has no overloading, so the C++ overloads are named by form:
//   X(self, other)          Tensor-Tensor   add(a, b, alpha), pow(a, b), bitwise_and(a, b)
//   X_scalar(self, other)   Tensor-Scalar   add_scalar(a, 2, alpha), pow_scalar(t, 0.5), bitwise_or_scalar(t, 0xF0)
//   scalar_X(self, other)   Scalar-Tensor   scalar_pow(2.0, t), scalar_bitwise_and(0xFF, t)
// and X_out(result, ...) for each. A Scalar is any number: integer types (i32, i64: int64_t) act as an
// integral torch::Scalar, f32 and f64 (double) as a floating one.
//
// Dtypes (torch's rules, without promotion between tensors):
// - Tensor operands have the same shape and the same dtype.
// - The result has that dtype, except float32 where integral operands meet div (true division), sin, cos, tan, log,
//   log2, log10, exp, or a floating Scalar (add/sub/mul/div_scalar, pow_scalar, scalar_pow, clamp).
// - An _out result must have the operands' shape and exactly that dtype, and must not be an operator input.
// - An integral Scalar with an integral tensor is cast to its dtype (C++ static_cast: the low bits); a floating
//   alpha with integral operands is an error, as is an integral tensor to a negative integral Scalar power.
// - bitwise_and/or/not take integral tensors only; the Scalar is cast to the tensor's dtype (a floating one is
//   truncated toward zero, saturated to the int64 range, then wrapped).
// Arithmetic: floating dtypes compute in float32 and round to nearest even into bfloat16/float16; alpha*other is
// rounded before the add (no fused multiply-add). Integral dtypes wrap (abs(-128) in int8 is -128); ceil and floor
// copy them. Integer pow squares and multiplies with wrapping; a negative exponent from a tensor gives 1 for base 1,
// ±1 for base -1 and 0 otherwise (as torch). sin cos tan log log2 log10 exp pow compute in double precision
// (AssemblyScript's Math, musl) and round to float32: within 1 ulp of the exact result, almost always correctly rounded.
import {
  E_TENSOR_OP, TOP_SHAPES, TOP_DTYPES, TOP_RESULT_DTYPE, TOP_RESULT_FLOAT, TOP_NOT_INTEGRAL, TOP_READ_ONLY, TOP_NEGATIVE_POWER, TOP_FLOAT_ALPHA,
  OP_ABS, OP_CEIL, OP_FLOOR, OP_SIN, OP_COS, OP_TAN, OP_LOG, OP_LOG2, OP_LOG10, OP_EXP, OP_POW, OP_CLAMP, OP_ADD, OP_SUB, OP_MUL, OP_DIV,
  OP_BITWISE_AND, OP_BITWISE_OR, OP_BITWISE_NOT,
} from "./errors";
import { TD_SIZES } from "./layout";
import { fail, slot_of } from "./core";
import { is_floating, kFloat } from "./dtype";
import { Tensor } from "./tensor";
import { empty } from "./factories";
import { log_output_write } from "./writelog";
import {
  map_float, map_int, wrap_to, F_ABS, F_ADD, F_MUL, F_DIV, F_POW, F_ADD_S, F_MUL_S, F_DIV_S, F_POW_S, F_RPOW_S, F_CLAMP,
  I_ABS, I_COPY, I_NOT, I_ADD, I_MUL, I_POW, I_AND, I_OR, I_ADD_S, I_MUL_S, I_POW_S, I_RPOW_S, I_AND_S, I_OR_S, I_CLAMP,
} from "./tensor-ops-loops";

// Forms, as E_TENSOR_OP reports count them (an _out form adds 1).
const FORM_TENSOR: i32 = 0;
const FORM_SCALAR: i32 = 2;
const FORM_SCALAR_FIRST: i32 = 4;

// ---- unary ----

/** abs(self): |x|, same dtype (integers wrap: abs(-128) in int8 is -128). */
export function abs(self: Tensor): Tensor { return unary(OP_ABS, 0, self); }
/** abs_out(result, self): |x| into result. */
export function abs_out(result: Tensor, self: Tensor): Tensor { return unary(OP_ABS, changetype<usize>(result), self); }
/** ceil(self): rounded up, same dtype (integers are copied). */
export function ceil(self: Tensor): Tensor { return unary(OP_CEIL, 0, self); }
/** ceil_out(result, self): rounded up into result. */
export function ceil_out(result: Tensor, self: Tensor): Tensor { return unary(OP_CEIL, changetype<usize>(result), self); }
/** floor(self): rounded down, same dtype (integers are copied). */
export function floor(self: Tensor): Tensor { return unary(OP_FLOOR, 0, self); }
/** floor_out(result, self): rounded down into result. */
export function floor_out(result: Tensor, self: Tensor): Tensor { return unary(OP_FLOOR, changetype<usize>(result), self); }
/** sin(self): sine; integral tensors give float32. */
export function sin(self: Tensor): Tensor { return unary(OP_SIN, 0, self); }
/** sin_out(result, self): sine into result. */
export function sin_out(result: Tensor, self: Tensor): Tensor { return unary(OP_SIN, changetype<usize>(result), self); }
/** cos(self): cosine; integral tensors give float32. */
export function cos(self: Tensor): Tensor { return unary(OP_COS, 0, self); }
/** cos_out(result, self): cosine into result. */
export function cos_out(result: Tensor, self: Tensor): Tensor { return unary(OP_COS, changetype<usize>(result), self); }
/** tan(self): tangent; integral tensors give float32. */
export function tan(self: Tensor): Tensor { return unary(OP_TAN, 0, self); }
/** tan_out(result, self): tangent into result. */
export function tan_out(result: Tensor, self: Tensor): Tensor { return unary(OP_TAN, changetype<usize>(result), self); }
/** log(self): natural logarithm; integral tensors give float32. */
export function log(self: Tensor): Tensor { return unary(OP_LOG, 0, self); }
/** log_out(result, self): natural logarithm into result. */
export function log_out(result: Tensor, self: Tensor): Tensor { return unary(OP_LOG, changetype<usize>(result), self); }
/** log2(self): base-2 logarithm; integral tensors give float32. */
export function log2(self: Tensor): Tensor { return unary(OP_LOG2, 0, self); }
/** log2_out(result, self): base-2 logarithm into result. */
export function log2_out(result: Tensor, self: Tensor): Tensor { return unary(OP_LOG2, changetype<usize>(result), self); }
/** log10(self): base-10 logarithm; integral tensors give float32. */
export function log10(self: Tensor): Tensor { return unary(OP_LOG10, 0, self); }
/** log10_out(result, self): base-10 logarithm into result. */
export function log10_out(result: Tensor, self: Tensor): Tensor { return unary(OP_LOG10, changetype<usize>(result), self); }
/** exp(self): e to the x; integral tensors give float32. */
export function exp(self: Tensor): Tensor { return unary(OP_EXP, 0, self); }
/** exp_out(result, self): e to the x into result. */
export function exp_out(result: Tensor, self: Tensor): Tensor { return unary(OP_EXP, changetype<usize>(result), self); }
/** bitwise_not(self): ~x of an integral tensor. */
export function bitwise_not(self: Tensor): Tensor { return unary(OP_BITWISE_NOT, 0, self); }
/** bitwise_not_out(result, self): ~x into result. */
export function bitwise_not_out(result: Tensor, self: Tensor): Tensor { return unary(OP_BITWISE_NOT, changetype<usize>(result), self); }

// ---- pow ----

/** pow(self, exponent): Tensor^Tensor, same dtype. */
export function pow(self: Tensor, exponent: Tensor): Tensor { return binary(OP_POW, 0, self, exponent, false, 1, 1); }
/** pow_out(result, self, exponent): Tensor^Tensor into result. */
export function pow_out(result: Tensor, self: Tensor, exponent: Tensor): Tensor {
  return binary(OP_POW, changetype<usize>(result), self, exponent, false, 1, 1);
}
/** pow_scalar(self, exponent): Tensor^Scalar (torch::pow(Tensor, Scalar)). */
export function pow_scalar<S>(self: Tensor, exponent: S): Tensor {
  return with_scalar(OP_POW, FORM_SCALAR, 0, self, is_float_scalar<S>(), <f64>exponent, <i64>exponent, false, 1, 1);
}
/** pow_scalar_out(result, self, exponent): Tensor^Scalar into result. */
export function pow_scalar_out<S>(result: Tensor, self: Tensor, exponent: S): Tensor {
  return with_scalar(OP_POW, FORM_SCALAR, changetype<usize>(result), self, is_float_scalar<S>(), <f64>exponent, <i64>exponent, false, 1, 1);
}
/** scalar_pow(self, exponent): Scalar^Tensor (torch::pow(Scalar, Tensor)). */
export function scalar_pow<S>(self: S, exponent: Tensor): Tensor {
  return with_scalar(OP_POW, FORM_SCALAR_FIRST, 0, exponent, is_float_scalar<S>(), <f64>self, <i64>self, false, 1, 1);
}
/** scalar_pow_out(result, self, exponent): Scalar^Tensor into result. */
export function scalar_pow_out<S>(result: Tensor, self: S, exponent: Tensor): Tensor {
  return with_scalar(OP_POW, FORM_SCALAR_FIRST, changetype<usize>(result), exponent, is_float_scalar<S>(), <f64>self, <i64>self, false, 1, 1);
}

// ---- clamp ----

/** clamp(self, min, max): min(max(x, min), max) (all max where min > max; NaN stays NaN). */
export function clamp<L, H>(self: Tensor, min: L, max: H): Tensor {
  return clamp_impl(0, self, is_float_scalar<L>(), <f64>min, <i64>min, is_float_scalar<H>(), <f64>max, <i64>max);
}
/** clamp_out(result, self, min, max): clamp into result. */
export function clamp_out<L, H>(result: Tensor, self: Tensor, min: L, max: H): Tensor {
  return clamp_impl(changetype<usize>(result), self, is_float_scalar<L>(), <f64>min, <i64>min, is_float_scalar<H>(), <f64>max, <i64>max);
}

// ---- add, sub ----

/** add(self, other, alpha = 1): self + alpha * other. */
export function add<A = i32>(self: Tensor, other: Tensor, alpha: A = <A>1): Tensor {
  return binary(OP_ADD, 0, self, other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}
/** add_out(result, self, other, alpha = 1): self + alpha * other into result. */
export function add_out<A = i32>(result: Tensor, self: Tensor, other: Tensor, alpha: A = <A>1): Tensor {
  return binary(OP_ADD, changetype<usize>(result), self, other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}
/** add_scalar(self, other, alpha = 1): self + alpha * other for a Scalar other. */
export function add_scalar<S, A = i32>(self: Tensor, other: S, alpha: A = <A>1): Tensor {
  return with_scalar(OP_ADD, FORM_SCALAR, 0, self, is_float_scalar<S>(), <f64>other, <i64>other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}
/** add_scalar_out(result, self, other, alpha = 1): self + alpha * other into result. */
export function add_scalar_out<S, A = i32>(result: Tensor, self: Tensor, other: S, alpha: A = <A>1): Tensor {
  return with_scalar(OP_ADD, FORM_SCALAR, changetype<usize>(result), self, is_float_scalar<S>(), <f64>other, <i64>other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}
/** sub(self, other, alpha = 1): self - alpha * other. */
export function sub<A = i32>(self: Tensor, other: Tensor, alpha: A = <A>1): Tensor {
  return binary(OP_SUB, 0, self, other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}
/** sub_out(result, self, other, alpha = 1): self - alpha * other into result. */
export function sub_out<A = i32>(result: Tensor, self: Tensor, other: Tensor, alpha: A = <A>1): Tensor {
  return binary(OP_SUB, changetype<usize>(result), self, other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}
/** sub_scalar(self, other, alpha = 1): self - alpha * other for a Scalar other. */
export function sub_scalar<S, A = i32>(self: Tensor, other: S, alpha: A = <A>1): Tensor {
  return with_scalar(OP_SUB, FORM_SCALAR, 0, self, is_float_scalar<S>(), <f64>other, <i64>other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}
/** sub_scalar_out(result, self, other, alpha = 1): self - alpha * other into result. */
export function sub_scalar_out<S, A = i32>(result: Tensor, self: Tensor, other: S, alpha: A = <A>1): Tensor {
  return with_scalar(OP_SUB, FORM_SCALAR, changetype<usize>(result), self, is_float_scalar<S>(), <f64>other, <i64>other, is_float_scalar<A>(), <f64>alpha, <i64>alpha);
}

// ---- mul, div ----

/** mul(self, other): self * other. */
export function mul(self: Tensor, other: Tensor): Tensor { return binary(OP_MUL, 0, self, other, false, 1, 1); }
/** mul_out(result, self, other): self * other into result. */
export function mul_out(result: Tensor, self: Tensor, other: Tensor): Tensor { return binary(OP_MUL, changetype<usize>(result), self, other, false, 1, 1); }
/** mul_scalar(self, other): self * other for a Scalar other. */
export function mul_scalar<S>(self: Tensor, other: S): Tensor {
  return with_scalar(OP_MUL, FORM_SCALAR, 0, self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}
/** mul_scalar_out(result, self, other): self * other into result. */
export function mul_scalar_out<S>(result: Tensor, self: Tensor, other: S): Tensor {
  return with_scalar(OP_MUL, FORM_SCALAR, changetype<usize>(result), self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}
/** div(self, other): true division, self / other; integral tensors give float32. */
export function div(self: Tensor, other: Tensor): Tensor { return binary(OP_DIV, 0, self, other, false, 1, 1); }
/** div_out(result, self, other): self / other into result (float32 for integral operands). */
export function div_out(result: Tensor, self: Tensor, other: Tensor): Tensor { return binary(OP_DIV, changetype<usize>(result), self, other, false, 1, 1); }
/** div_scalar(self, other): true division by a Scalar; integral tensors give float32. */
export function div_scalar<S>(self: Tensor, other: S): Tensor {
  return with_scalar(OP_DIV, FORM_SCALAR, 0, self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}
/** div_scalar_out(result, self, other): self / other into result (float32 for an integral self). */
export function div_scalar_out<S>(result: Tensor, self: Tensor, other: S): Tensor {
  return with_scalar(OP_DIV, FORM_SCALAR, changetype<usize>(result), self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}

// ---- bitwise_and, bitwise_or ----

/** bitwise_and(self, other): self & other, integral tensors only. */
export function bitwise_and(self: Tensor, other: Tensor): Tensor { return binary(OP_BITWISE_AND, 0, self, other, false, 1, 1); }
/** bitwise_and_out(result, self, other): self & other into result. */
export function bitwise_and_out(result: Tensor, self: Tensor, other: Tensor): Tensor {
  return binary(OP_BITWISE_AND, changetype<usize>(result), self, other, false, 1, 1);
}
/** bitwise_and_scalar(self, other): self & other, other cast to self's dtype. */
export function bitwise_and_scalar<S>(self: Tensor, other: S): Tensor {
  return with_scalar(OP_BITWISE_AND, FORM_SCALAR, 0, self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}
/** bitwise_and_scalar_out(result, self, other): self & other into result. */
export function bitwise_and_scalar_out<S>(result: Tensor, self: Tensor, other: S): Tensor {
  return with_scalar(OP_BITWISE_AND, FORM_SCALAR, changetype<usize>(result), self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}
/** scalar_bitwise_and(self, other): self & other for a Scalar self, cast to other's dtype. */
export function scalar_bitwise_and<S>(self: S, other: Tensor): Tensor {
  return with_scalar(OP_BITWISE_AND, FORM_SCALAR_FIRST, 0, other, is_float_scalar<S>(), <f64>self, <i64>self, false, 1, 1);
}
/** scalar_bitwise_and_out(result, self, other): self & other into result. */
export function scalar_bitwise_and_out<S>(result: Tensor, self: S, other: Tensor): Tensor {
  return with_scalar(OP_BITWISE_AND, FORM_SCALAR_FIRST, changetype<usize>(result), other, is_float_scalar<S>(), <f64>self, <i64>self, false, 1, 1);
}
/** bitwise_or(self, other): self | other, integral tensors only. */
export function bitwise_or(self: Tensor, other: Tensor): Tensor { return binary(OP_BITWISE_OR, 0, self, other, false, 1, 1); }
/** bitwise_or_out(result, self, other): self | other into result. */
export function bitwise_or_out(result: Tensor, self: Tensor, other: Tensor): Tensor {
  return binary(OP_BITWISE_OR, changetype<usize>(result), self, other, false, 1, 1);
}
/** bitwise_or_scalar(self, other): self | other, other cast to self's dtype. */
export function bitwise_or_scalar<S>(self: Tensor, other: S): Tensor {
  return with_scalar(OP_BITWISE_OR, FORM_SCALAR, 0, self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}
/** bitwise_or_scalar_out(result, self, other): self | other into result. */
export function bitwise_or_scalar_out<S>(result: Tensor, self: Tensor, other: S): Tensor {
  return with_scalar(OP_BITWISE_OR, FORM_SCALAR, changetype<usize>(result), self, is_float_scalar<S>(), <f64>other, <i64>other, false, 1, 1);
}
/** scalar_bitwise_or(self, other): self | other for a Scalar self, cast to other's dtype. */
export function scalar_bitwise_or<S>(self: S, other: Tensor): Tensor {
  return with_scalar(OP_BITWISE_OR, FORM_SCALAR_FIRST, 0, other, is_float_scalar<S>(), <f64>self, <i64>self, false, 1, 1);
}
/** scalar_bitwise_or_out(result, self, other): self | other into result. */
export function scalar_bitwise_or_out<S>(result: Tensor, self: S, other: Tensor): Tensor {
  return with_scalar(OP_BITWISE_OR, FORM_SCALAR_FIRST, changetype<usize>(result), other, is_float_scalar<S>(), <f64>self, <i64>self, false, 1, 1);
}

// ---- shared ----

/** True for a floating Scalar (f32, f64), false for an integral one; anything but a number does not compile. */
// @ts-ignore: decorator
@inline function is_float_scalar<S>(): bool {
  if (!isInteger<S>() && !isFloat<S>()) ERROR("a Scalar is a number: an integer type (i32, i64) or a float type (f32, f64)");
  return isFloat<S>();
}

/** The floating dtype an operation of dtype dt computes in: dt itself, or float32 for integral dtypes. */
function float_of(dt: i32): i32 { return is_floating(dt) ? dt : kFloat; }

/** Reports an E_TENSOR_OP violation about t; never returns. */
function reject(what: i32, op: i32, t: Tensor, detail: f64): void {
  fail(E_TENSOR_OP, slot_of(changetype<usize>(t)), what, op, detail);
}

/** True when a and b have the same sizes. */
function same_shape(a: Tensor, b: Tensor): bool {
  const n = a.dim();
  if (n != b.dim()) return false;
  for (let i = 0; i < n; i++) {
    if (load<i32>(changetype<usize>(a) + (<usize>i << 2), TD_SIZES) != load<i32>(changetype<usize>(b) + (<usize>i << 2), TD_SIZES)) return false;
  }
  return true;
}

/** Fails unless other has self's shape and dtype. */
function check_operand(op: i32, self: Tensor, other: Tensor): void {
  if (!same_shape(self, other)) reject(TOP_SHAPES, op, other, slot_of(changetype<usize>(self)));
  if (other.scalar_type() != self.scalar_type()) reject(TOP_DTYPES, op, other, slot_of(changetype<usize>(self)));
}

/** Fails unless t is integral (bitwise operations). */
function check_integral(op: i32, t: Tensor): void {
  if (is_floating(t.scalar_type())) reject(TOP_NOT_INTEGRAL, op, t, t.scalar_type());
}

/**
 * The tensor an operation on `like` writes: a new one of the given dtype (result 0, the plain form), or result
 * after checking that it is writable and has like's shape and exactly that dtype.
 */
function result_for(op: i32, result: usize, like: Tensor, dtype: i32): Tensor {
  if (result == 0) return empty(like.sizes(), dtype);
  const r = changetype<Tensor>(result);
  if (r.is_read_only()) reject(TOP_READ_ONLY, op, r, 0);
  if (!same_shape(like, r)) reject(TOP_SHAPES, op, r, slot_of(changetype<usize>(like)));
  if (r.scalar_type() != dtype) reject(dtype == like.scalar_type() ? TOP_RESULT_DTYPE : TOP_RESULT_FLOAT, op, r, dtype);
  log_output_write(result, 0, <u32>r.numel()); // an _out form into get_dst_tensor() writes all of it
  return r;
}

/** The number E_TENSOR_OP reports name an operation by: OP_* + 100 * form, plus 100 for an _out form. */
function op_code(op: i32, form: i32, result: usize): i32 { return op + 100 * (form + (result != 0 ? 1 : 0)); }

function unary(op: i32, result: usize, self: Tensor): Tensor {
  const code = op_code(op, FORM_TENSOR, result);
  const dt = self.scalar_type();
  if (op == OP_BITWISE_NOT) check_integral(code, self);
  const math = op >= OP_SIN && op <= OP_EXP;
  const r = result_for(code, result, self, math ? float_of(dt) : dt);
  if (is_floating(r.scalar_type())) map_float(F_ABS + (op - OP_ABS), r, self, 0, 0, 0);
  else map_int(op == OP_ABS ? I_ABS : op == OP_BITWISE_NOT ? I_NOT : I_COPY, r, self, 0, 0, 0);
  return r;
}

/** Tensor-Tensor operations; alpha (add, sub) is given as both f64 and i64, with its kind. */
function binary(op: i32, result: usize, self: Tensor, other: Tensor, alpha_float: bool, alpha_f: f64, alpha_i: i64): Tensor {
  const code = op_code(op, FORM_TENSOR, result);
  check_operand(code, self, other);
  const dt = self.scalar_type();
  if (op == OP_BITWISE_AND || op == OP_BITWISE_OR) check_integral(code, self);
  if (alpha_float && !is_floating(dt)) reject(TOP_FLOAT_ALPHA, code, self, alpha_f);
  const r = result_for(code, result, self, op == OP_DIV ? float_of(dt) : dt);
  const b = changetype<usize>(other);
  if (is_floating(r.scalar_type())) {
    const alpha = alpha_float ? <f32>alpha_f : <f32>alpha_i;
    switch (op) {
      case OP_ADD: map_float(F_ADD, r, self, b, alpha, 0); break;
      case OP_SUB: map_float(F_ADD, r, self, b, -alpha, 0); break;
      case OP_MUL: map_float(F_MUL, r, self, b, 0, 0); break;
      case OP_DIV: map_float(F_DIV, r, self, b, 0, 0); break;
      default: map_float(F_POW, r, self, b, 0, 0); break;
    }
  } else {
    switch (op) {
      case OP_ADD: map_int(I_ADD, r, self, b, alpha_i, 0); break;
      case OP_SUB: map_int(I_ADD, r, self, b, -alpha_i, 0); break;
      case OP_MUL: map_int(I_MUL, r, self, b, 0, 0); break;
      case OP_POW: map_int(I_POW, r, self, b, 0, 0); break;
      case OP_BITWISE_AND: map_int(I_AND, r, self, b, 0, 0); break;
      default: map_int(I_OR, r, self, b, 0, 0); break;
    }
  }
  return r;
}

/** Tensor-Scalar and Scalar-Tensor operations on t; the Scalar s and alpha come as f64 and i64, with their kinds. */
function with_scalar(op: i32, form: i32, result: usize, t: Tensor, s_float: bool, s_f: f64, s_i: i64, alpha_float: bool, alpha_f: f64, alpha_i: i64): Tensor {
  const code = op_code(op, form, result);
  const dt = t.scalar_type();
  const bitwise = op == OP_BITWISE_AND || op == OP_BITWISE_OR;
  if (bitwise) check_integral(code, t);
  const promote = !is_floating(dt) && !bitwise && (s_float || op == OP_DIV);
  if (!is_floating(dt) && !promote) {
    if (alpha_float) reject(TOP_FLOAT_ALPHA, code, t, alpha_f);
    if (op == OP_POW && form == FORM_SCALAR && s_i < 0) reject(TOP_NEGATIVE_POWER, code, t, <f64>s_i);
  }
  const r = result_for(code, result, t, promote ? kFloat : dt);
  if (is_floating(r.scalar_type())) {
    const s = s_float ? <f32>s_f : <f32>s_i;
    const alpha = alpha_float ? <f32>alpha_f : <f32>alpha_i;
    switch (op) {
      case OP_ADD: map_float(F_ADD_S, r, t, 0, alpha * s, 0); break;
      case OP_SUB: map_float(F_ADD_S, r, t, 0, -(alpha * s), 0); break;
      case OP_MUL: map_float(F_MUL_S, r, t, 0, s, 0); break;
      case OP_DIV: map_float(F_DIV_S, r, t, 0, s, 0); break;
      default: map_float(form == FORM_SCALAR ? F_POW_S : F_RPOW_S, r, t, 0, s, 0); break;
    }
  } else {
    const s = wrap_to(dt, s_i);
    switch (op) {
      case OP_ADD: map_int(I_ADD_S, r, t, 0, alpha_i * s, 0); break;
      case OP_SUB: map_int(I_ADD_S, r, t, 0, -(alpha_i * s), 0); break;
      case OP_MUL: map_int(I_MUL_S, r, t, 0, s, 0); break;
      case OP_BITWISE_AND: map_int(I_AND_S, r, t, 0, s, 0); break;
      case OP_BITWISE_OR: map_int(I_OR_S, r, t, 0, s, 0); break;
      default: map_int(form == FORM_SCALAR ? I_POW_S : I_RPOW_S, r, t, 0, s, 0); break;
    }
  }
  return r;
}

function clamp_impl(result: usize, self: Tensor, lo_float: bool, lo_f: f64, lo_i: i64, hi_float: bool, hi_f: f64, hi_i: i64): Tensor {
  const code = op_code(OP_CLAMP, FORM_TENSOR, result);
  const dt = self.scalar_type();
  const r = result_for(code, result, self, !is_floating(dt) && (lo_float || hi_float) ? kFloat : dt);
  if (is_floating(r.scalar_type())) {
    map_float(F_CLAMP, r, self, 0, lo_float ? <f32>lo_f : <f32>lo_i, hi_float ? <f32>hi_f : <f32>hi_i);
  } else {
    map_int(I_CLAMP, r, self, 0, wrap_to(dt, lo_i), wrap_to(dt, hi_i));
  }
  return r;
}
