// Element-wise operations on chunks of i64 values (integer mode: every input has an integer type).
// Results are exact in i64 and wrap to the output's width when stored, so int32 * int32 wraps as
// numpy's int32 does. Division by zero gives 0 for mod, fmod and floor_divide (numpy's value, without
// its warning); a negative power of an integer gives 0 except for bases 1 and -1.
import * as op from "./ops";
import { shiftLeft, shiftRight } from "./float-ops";

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): i64 { return load<i64>(p + (<usize>i << 3)); }
// @ts-ignore: decorator
@inline function put(p: usize, i: i32, v: i64): void { store<i64>(p + (<usize>i << 3), v); }
// @ts-ignore: decorator
@inline function flag(b: bool): i64 { return b ? 1 : 0; }

function floorDiv(a: i64, b: i64): i64 {
  if (b == 0) return 0;
  if (b == -1) return -a; // i64.MIN / -1 wraps, as numpy's int64
  const q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
function pyMod(a: i64, b: i64): i64 {
  if (b == 0 || b == -1) return 0;
  const r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
function cMod(a: i64, b: i64): i64 { return b == 0 || b == -1 ? 0 : a % b; }
function ipow(base: i64, e: i64): i64 {
  if (e < 0) return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
  let r: i64 = 1;
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}
/** |x| as an unsigned magnitude (|i64.MIN| included). */
function iabs(x: i64): u64 { return <u64>(x < 0 ? -x : x); }

/** The unary operations with an integer form (for the others the host picks float mode). */
export function unaryI64(code: i32, dst: usize, a: usize, n: i32): void {
  switch (code) {
    case op.U_COPY: for (let i = 0; i < n; i++) put(dst, i, at(a, i)); break;
    case op.U_NEG: for (let i = 0; i < n; i++) put(dst, i, -at(a, i)); break;
    case op.U_ABS: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x < 0 ? -x : x); } break;
    case op.U_RELU: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x > 0 ? x : 0); } break;
    case op.U_SIGN: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x > 0 ? 1 : x < 0 ? -1 : 0); } break;
    case op.U_SQUARE: for (let i = 0; i < n; i++) { const x = at(a, i); put(dst, i, x * x); } break;
    case op.U_FLOOR: case op.U_CEIL: case op.U_TRUNC: for (let i = 0; i < n; i++) put(dst, i, at(a, i)); break;
    case op.U_LOGICAL_NOT: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) == 0)); break;
    case op.U_BITWISE_NOT: for (let i = 0; i < n; i++) put(dst, i, ~at(a, i)); break;
    default: unreachable();
  }
}

export function binaryI64(code: i32, dst: usize, a: usize, b: usize, n: i32): void {
  switch (code) {
    case op.B_ADD: for (let i = 0; i < n; i++) put(dst, i, at(a, i) + at(b, i)); break;
    case op.B_SUBTRACT: for (let i = 0; i < n; i++) put(dst, i, at(a, i) - at(b, i)); break;
    case op.B_MULTIPLY: for (let i = 0; i < n; i++) put(dst, i, at(a, i) * at(b, i)); break;
    case op.B_MAXIMUM: for (let i = 0; i < n; i++) { const x = at(a, i), y = at(b, i); put(dst, i, x >= y ? x : y); } break;
    case op.B_MINIMUM: for (let i = 0; i < n; i++) { const x = at(a, i), y = at(b, i); put(dst, i, x <= y ? x : y); } break;
    case op.B_POWER: for (let i = 0; i < n; i++) put(dst, i, ipow(at(a, i), at(b, i))); break;
    case op.B_MOD: for (let i = 0; i < n; i++) put(dst, i, pyMod(at(a, i), at(b, i))); break;
    case op.B_FMOD: for (let i = 0; i < n; i++) put(dst, i, cMod(at(a, i), at(b, i))); break;
    case op.B_FLOOR_DIVIDE: for (let i = 0; i < n; i++) put(dst, i, floorDiv(at(a, i), at(b, i))); break;
    case op.B_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) == at(b, i))); break;
    case op.B_NOT_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) != at(b, i))); break;
    case op.B_GREATER: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) > at(b, i))); break;
    case op.B_GREATER_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) >= at(b, i))); break;
    case op.B_LESS: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) < at(b, i))); break;
    case op.B_LESS_EQUAL: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) <= at(b, i))); break;
    case op.B_LOGICAL_AND: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) != 0 && at(b, i) != 0)); break;
    case op.B_LOGICAL_OR: for (let i = 0; i < n; i++) put(dst, i, flag(at(a, i) != 0 || at(b, i) != 0)); break;
    case op.B_LOGICAL_XOR: for (let i = 0; i < n; i++) put(dst, i, flag((at(a, i) != 0) != (at(b, i) != 0))); break;
    case op.B_BITWISE_AND: for (let i = 0; i < n; i++) put(dst, i, at(a, i) & at(b, i)); break;
    case op.B_BITWISE_OR: for (let i = 0; i < n; i++) put(dst, i, at(a, i) | at(b, i)); break;
    case op.B_BITWISE_XOR: for (let i = 0; i < n; i++) put(dst, i, at(a, i) ^ at(b, i)); break;
    case op.B_LEFT_SHIFT: for (let i = 0; i < n; i++) put(dst, i, shiftLeft(at(a, i), at(b, i))); break;
    case op.B_RIGHT_SHIFT: for (let i = 0; i < n; i++) put(dst, i, shiftRight(at(a, i), at(b, i))); break;
    case op.B_ABS_MAX: for (let i = 0; i < n; i++) { const x = at(a, i), y = at(b, i); put(dst, i, iabs(x) > iabs(y) ? x : y); } break;
    case op.B_ABS_MIN: for (let i = 0; i < n; i++) { const x = at(a, i), y = at(b, i); put(dst, i, iabs(x) < iabs(y) ? x : y); } break;
    case op.B_RSUB: for (let i = 0; i < n; i++) put(dst, i, at(b, i) - at(a, i)); break;
    default: unreachable(); // divide and rdivide are always true division (float mode)
  }
}
