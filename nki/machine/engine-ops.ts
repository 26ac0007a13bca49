// The names of the engine's operations, in the order of their codes in assembly/nki/ops.ts.

export const UNARY_OPS = [
  "copy", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "tanh", "arctan",
  "sigmoid", "relu", "gelu", "gelu_apprx_tanh", "gelu_dx", "silu", "silu_dx", "softplus", "mish", "erf", "erf_dx",
  "sign", "square", "floor", "ceil", "trunc", "logical_not", "bitwise_not", "softsign", "gelu_apprx_sigmoid",
  "gelu_apprx_sigmoid_dx", "prelu",
] as const;
export type UnaryOp = (typeof UNARY_OPS)[number];

export const BINARY_OPS = [
  "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "mod", "fmod", "floor_divide",
  "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor",
  "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "abs_max", "rsub", "rdivide", "abs_min",
] as const;
export type BinaryOp = (typeof BINARY_OPS)[number];

export const REDUCE_OPS = [
  "add", "max", "min", "multiply", "mean", "abs_max", "logical_and", "logical_or", "bitwise_and", "bitwise_or", "abs_min",
] as const;
export type ReduceOp = (typeof REDUCE_OPS)[number];

/** Unary operations with an exact integer form: on integer inputs they run in i64 (others convert to float). */
export const INTEGER_UNARY: ReadonlySet<UnaryOp> = new Set<UnaryOp>(["copy", "neg", "abs", "relu", "sign", "square", "floor", "ceil", "trunc", "logical_not", "bitwise_not"]);
/** Binary operations that are always true division, in float. */
export const FLOAT_ONLY_BINARY: ReadonlySet<BinaryOp> = new Set<BinaryOp>(["divide", "rdivide"]);

const codes = <T extends string>(names: readonly T[]): ReadonlyMap<string, number> => new Map(names.map((n, i) => [n, i]));
export const UNARY_CODES = codes(UNARY_OPS);
export const BINARY_CODES = codes(BINARY_OPS);
export const REDUCE_CODES = codes(REDUCE_OPS);
