// Element-wise operations on chunks of f64 values (float mode): each function switches on the
// operation once and runs a plain loop. Values are the inputs' exact values; the store rounds the
// result to float32 (and on to 16 bits), so + - * / sqrt agree with numpy float32 bit for bit.
import * as op from "./ops";
import { erf, erfc } from "./erf";

// The host's Math.sin, cos and tan: musl's (AssemblyScript's NativeMath) reduce huge arguments with a
// table that would be static data in the device memory, which this module must not have.
// @ts-ignore: decorator
@external("env", "sin") declare function hostSin(x: f64): f64;
// @ts-ignore: decorator
@external("env", "cos") declare function hostCos(x: f64): f64;
// @ts-ignore: decorator
@external("env", "tan") declare function hostTan(x: f64): f64;

const SQRT_HALF: f64 = 0.7071067811865476; // 1/sqrt(2)
const SQRT_2_OVER_PI: f64 = 0.7978845608028654; // sqrt(2/pi)
const INV_SQRT_2PI: f64 = 0.3989422804014327; // 1/sqrt(2*pi)
const TWO_OVER_SQRT_PI: f64 = 1.1283791670955126;

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): f64 { return load<f64>(p + (<usize>i << 3)); }
// @ts-ignore: decorator
@inline function put(p: usize, i: i32, v: f64): void { store<f64>(p + (<usize>i << 3), v); }

// @ts-ignore: decorator
@inline function sigmoid(x: f64): f64 { return 1 / (1 + Math.exp(-x)); }
/** log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) so that it neither overflows nor loses small values. */
// @ts-ignore: decorator
@inline function softplus(x: f64): f64 { return (x > 0 ? x : 0) + Math.log1p(Math.exp(-Math.abs(x))); }
/** numpy's maximum and minimum: a NaN in either operand is the result. */
// @ts-ignore: decorator
@inline export function maxNaN(a: f64, b: f64): f64 { return a >= b || a != a ? a : b; }
// @ts-ignore: decorator
@inline export function minNaN(a: f64, b: f64): f64 { return a <= b || a != a ? a : b; }

/** nl.abs_max: the operand of larger magnitude, with its sign (y on a tie). */
// @ts-ignore: decorator
@inline export function absMax(x: f64, y: f64): f64 { return Math.abs(x) > Math.abs(y) ? x : y; }
/** nl.abs_min: the operand of smaller magnitude, with its sign (y on a tie). */
// @ts-ignore: decorator
@inline export function absMin(x: f64, y: f64): f64 { return Math.abs(x) < Math.abs(y) ? x : y; }

/** numpy's remainder (the sign of the divisor). */
export function pyMod(a: f64, b: f64): f64 {
  let m = a % b; // fmod
  if (b == 0) return m;
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = b < 0 ? -0.0 : 0.0;
  }
  return m;
}

/** numpy's floor_divide (npy_floor_divide). */
export function pyFloorDiv(a: f64, b: f64): f64 {
  if (b == 0) return a / b;
  const m = a % b;
  let div = (a - m) / b;
  if (m != 0 && (b < 0) != (m < 0)) div -= 1;
  if (div == 0) return copysign<f64>(0.0, a / b);
  let fd = Math.floor(div);
  if (div - fd > 0.5) fd += 1;
  return fd;
}

export function unaryF64(code: i32, dst: usize, a: usize, n: i32): void {
  switch (code) {
    case op.U_COPY: for (let i = 0; i < n; i++) put(dst, i, at(a, i)); break;
    case op.U_NEG: for (let i = 0; i < n; i++) put(dst, i, -at(a, i)); break;
    case op.U_ABS: for (let i = 0; i < n; i++) put(dst, i, Math.abs(at(a, i))); break;
    case op.U_EXP: for (let i = 0; i < n; i++) put(dst, i, Math.exp(at(a, i))); break;
    case op.U_LOG: for (let i = 0; i < n; i++) put(dst, i, Math.log(at(a, i))); break;
    case op.U_SQRT: for (let i = 0; i < n; i++) put(dst, i, Math.sqrt(at(a, i))); break;
    case op.U_RSQRT: for (let i = 0; i < n; i++) put(dst, i, 1 / Math.sqrt(at(a, i))); break;
    case op.U_RECIPROCAL: for (let i = 0; i < n; i++) put(dst, i, 1 / at(a, i)); break;
    case op.U_SIN: for (let i = 0; i < n; i++) put(dst, i, hostSin(at(a, i))); break;
    case op.U_COS: for (let i = 0; i < n; i++) put(dst, i, hostCos(at(a, i))); break;
    case op.U_TAN: for (let i = 0; i < n; i++) put(dst, i, hostTan(at(a, i))); break;
    case op.U_TANH: for (let i = 0; i < n; i++) put(dst, i, Math.tanh(at(a, i))); break;
    case op.U_ARCTAN: for (let i = 0; i < n; i++) put(dst, i, Math.atan(at(a, i))); break;
    case op.U_SIGMOID: for (let i = 0; i < n; i++) put(dst, i, sigmoid(at(a, i))); break;
    // relu(x) = max(x, 0), NaN staying NaN.
    case op.U_RELU: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x > 0 || x != x ? x : 0); } break;
    // gelu(x) = 0.5 x (1 + erf(x/sqrt 2)), written 0.5 x erfc(-x/sqrt 2) (the same value, without cancellation for x << 0).
    case op.U_GELU: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, 0.5 * x * erfc(-x * SQRT_HALF)); } break;
    // gelu_apprx_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    case op.U_GELU_TANH:
      for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))); }
      break;
    // gelu'(x) = Phi(x) + x phi(x) = 0.5 erfc(-x/sqrt 2) + x exp(-x^2/2)/sqrt(2 pi).
    case op.U_GELU_DX:
      for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, 0.5 * erfc(-x * SQRT_HALF) + x * Math.exp(-0.5 * x * x) * INV_SQRT_2PI); }
      break;
    // silu(x) = x sigmoid(x).
    case op.U_SILU: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x * sigmoid(x)); } break;
    // silu'(x) = s (1 + x (1 - s)), s = sigmoid(x).
    case op.U_SILU_DX: for (let i = 0; i < n; i++) { const x = at(a, i); const s = sigmoid(x); put(dst, i, s * (1 + x * (1 - s))); } break;
    case op.U_SOFTPLUS: for (let i = 0; i < n; i++) put(dst, i, softplus(at(a, i))); break;
    // mish(x) = x tanh(softplus(x)).
    case op.U_MISH: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x * Math.tanh(softplus(x))); } break;
    case op.U_ERF: for (let i = 0; i < n; i++) put(dst, i, erf(at(a, i))); break;
    // erf'(x) = 2/sqrt(pi) exp(-x^2).
    case op.U_ERF_DX: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, TWO_OVER_SQRT_PI * Math.exp(-x * x)); } break;
    // sign: -1, 0 (keeping -0), 1, NaN.
    case op.U_SIGN: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x > 0 ? 1 : x < 0 ? -1 : x); } break;
    case op.U_SQUARE: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x * x); } break;
    case op.U_FLOOR: for (let i = 0; i < n; i++) put(dst, i, Math.floor(at(a, i))); break;
    case op.U_CEIL: for (let i = 0; i < n; i++) put(dst, i, Math.ceil(at(a, i))); break;
    case op.U_TRUNC: for (let i = 0; i < n; i++) put(dst, i, Math.trunc(at(a, i))); break;
    case op.U_LOGICAL_NOT: for (let i = 0; i < n; i++) put(dst, i, at(a, i) == 0 ? 1 : 0); break;
    // On floats: the complement of the value truncated to an integer.
    case op.U_BITWISE_NOT: for (let i = 0; i < n; i++) put(dst, i, <f64>(~(<i64>at(a, i)))); break;
    // softsign(x) = x / (1 + |x|).
    case op.U_SOFTSIGN: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x / (1 + Math.abs(x))); } break;
    // gelu_apprx_sigmoid(x) = x sigmoid(1.702 x).
    case op.U_GELU_SIGMOID: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x * sigmoid(1.702 * x)); } break;
    // its derivative: s + 1.702 x s (1 - s), s = sigmoid(1.702 x).
    case op.U_GELU_SIGMOID_DX:
      for (let i = 0; i < n; i++) { const x = at(a, i); const s = sigmoid(1.702 * x); put(dst, i, s + 1.702 * x * s * (1 - s)); }
      break;
    default: unreachable(); // prelu takes its alpha: preluF64
  }
}

/** prelu(x) = x for x > 0 (NaN too), else alpha x; alpha per element (a scalar or per-partition operand, broadcast). */
export function preluF64(dst: usize, a: usize, alpha: usize, n: i32): void {
  for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x > 0 || x != x ? x : at(alpha, i) * x); }
}

// @ts-ignore: decorator
@inline function flag(b: bool): f64 { return b ? 1.0 : 0.0; }

export function binaryF64(code: i32, dst: usize, a: usize, b: usize, n: i32): void {
  switch (code) {
    case op.B_ADD: for (let i = 0; i < n; i++) put(dst, i, at(a, i) + at(b, i)); break;
    case op.B_SUBTRACT: for (let i = 0; i < n; i++) put(dst, i, at(a, i) - at(b, i)); break;
    case op.B_MULTIPLY: for (let i = 0; i < n; i++) put(dst, i, at(a, i) * at(b, i)); break;
    case op.B_DIVIDE: for (let i = 0; i < n; i++) put(dst, i, at(a, i) / at(b, i)); break;
    case op.B_MAXIMUM: for (let i = 0; i < n; i++) put(dst, i, maxNaN(at(a, i), at(b, i))); break;
    case op.B_MINIMUM: for (let i = 0; i < n; i++) put(dst, i, minNaN(at(a, i), at(b, i))); break;
    case op.B_POWER: for (let i = 0; i < n; i++) put(dst, i, Math.pow(at(a, i), at(b, i))); break;
    case op.B_MOD: for (let i = 0; i < n; i++) put(dst, i, pyMod(at(a, i), at(b, i))); break;
    case op.B_FMOD: for (let i = 0; i < n; i++) put(dst, i, at(a, i) % at(b, i)); break;
    case op.B_FLOOR_DIVIDE: for (let i = 0; i < n; i++) put(dst, i, pyFloorDiv(at(a, i), at(b, i))); break;
    case op.B_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) == at(b, i))); break;
    case op.B_NOT_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) != at(b, i))); break;
    case op.B_GREATER: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) > at(b, i))); break;
    case op.B_GREATER_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) >= at(b, i))); break;
    case op.B_LESS: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) < at(b, i))); break;
    case op.B_LESS_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) <= at(b, i))); break;
    case op.B_LOGICAL_AND: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) != 0 && at(b, i) != 0)); break;
    case op.B_LOGICAL_OR: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) != 0 || at(b, i) != 0)); break;
    case op.B_LOGICAL_XOR: for (let i = 0; i < n; i++) put(dst, i, flag((at(a, i) != 0) != (at(b, i) != 0))); break;
    // Bitwise operations and shifts on floats work on the values truncated to integers.
    case op.B_BITWISE_AND: for (let i = 0; i < n; i++) put(dst, i, <f64>(<i64>at(a, i) & <i64>at(b, i))); break;
    case op.B_BITWISE_OR: for (let i = 0; i < n; i++) put(dst, i, <f64>(<i64>at(a, i) | <i64>at(b, i))); break;
    case op.B_BITWISE_XOR: for (let i = 0; i < n; i++) put(dst, i, <f64>(<i64>at(a, i) ^ <i64>at(b, i))); break;
    case op.B_LEFT_SHIFT: for (let i = 0; i < n; i++) put(dst, i, <f64>shiftLeft(<i64>at(a, i), <i64>at(b, i))); break;
    case op.B_RIGHT_SHIFT: for (let i = 0; i < n; i++) put(dst, i, <f64>shiftRight(<i64>at(a, i), <i64>at(b, i))); break;
    case op.B_ABS_MAX: for (let i = 0; i < n; i++) put(dst, i, absMax(at(a, i), at(b, i))); break;
    case op.B_ABS_MIN: for (let i = 0; i < n; i++) put(dst, i, absMin(at(a, i), at(b, i))); break;
    case op.B_RSUB: for (let i = 0; i < n; i++) put(dst, i, at(b, i) - at(a, i)); break;
    case op.B_RDIVIDE: for (let i = 0; i < n; i++) put(dst, i, at(b, i) / at(a, i)); break;
    default: unreachable();
  }
}

/** a << b with numpy's meaning for counts outside 0..63: 0 (a negative count shifts nothing in). */
export function shiftLeft(a: i64, b: i64): i64 { return b < 0 || b > 63 ? 0 : a << b; }
/** a >> b (arithmetic): counts outside 0..63 leave the sign (numpy takes the count unsigned). */
export function shiftRight(a: i64, b: i64): i64 { return a >> (b < 0 || b > 63 ? 63 : b); }

/** Rounds every value of the chunk to float32 (an engine's fp32 intermediate). */
export function roundF32(p: usize, n: i32): void {
  for (let i = 0; i < n; i++) put(p, i, <f64><f32>at(p, i));
}
