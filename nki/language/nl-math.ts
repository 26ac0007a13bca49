// nl's element-wise functions, reductions, where and matmul. Each is one engine instruction on new
// SBUF (matmul: PSUM) tiles; dtype= overrides the result type, mask= restricts the elements touched.
import { HostObject, NativeFunction, PyException, type CallContext, type PyValue } from "../python/values.js";
import { TileShapeError } from "../../host/checks/errors.js";
import { tileEngine, type Operand } from "../machine/engine.js";
import type { NkiArray } from "../machine/tile.js";
import { float32, type NkiDType } from "../machine/nki-dtype.js";
import { operand, checkUninit, broadcastShapes, alignedShapes, type InputUse } from "../machine/instructions.js";
import { currentRun } from "../machine/kernel-run.js";
import { atSite, errorDetails } from "../machine/site.js";
import { native, intsArg } from "./args.js";
import { dtypeArg } from "./dtype-arg.js";
import { arrayArg, binaryOp, unaryOp, reduceOp, boxOf, newTile, resultDType, scalarOf, dtypeError } from "./compute.js";

/** nl binary functions and the engine op each runs. */
export const BINARY_OPS: Readonly<Record<string, string>> = {
  add: "add", subtract: "subtract", multiply: "multiply", divide: "divide", maximum: "maximum", minimum: "minimum",
  power: "power", mod: "mod", fmod: "fmod", floor_divide: "floor_divide",
  equal: "equal", not_equal: "not_equal", greater: "greater", greater_equal: "greater_equal", less: "less", less_equal: "less_equal",
  logical_and: "logical_and", logical_or: "logical_or", logical_xor: "logical_xor",
  bitwise_and: "bitwise_and", bitwise_or: "bitwise_or", bitwise_xor: "bitwise_xor", left_shift: "left_shift", right_shift: "right_shift",
};

/** nl unary functions and the engine op each runs. */
export const UNARY_OPS: Readonly<Record<string, string>> = {
  abs: "abs", square: "square", exp: "exp", log: "log", sqrt: "sqrt", rsqrt: "rsqrt", tanh: "tanh", sigmoid: "sigmoid", relu: "relu",
  gelu: "gelu", gelu_apprx_tanh: "gelu_apprx_tanh", gelu_dx: "gelu_dx", silu: "silu", silu_dx: "silu_dx", softplus: "softplus",
  mish: "mish", erf: "erf", erf_dx: "erf_dx", reciprocal: "reciprocal", sin: "sin", cos: "cos", tan: "tan", arctan: "arctan",
  ceil: "ceil", floor: "floor", trunc: "trunc", negative: "neg", sign: "sign", invert: "bitwise_not", bitwise_not: "bitwise_not",
  logical_not: "logical_not", copy: "copy",
};

/** Reductions: nl name -> engine reduce op. */
export const REDUCE_OPS: Readonly<Record<string, string>> = {
  sum: "add", max: "max", min: "min", prod: "multiply", mean: "mean", all: "logical_and",
};

/** nl.max, nl.sum... passed as a reduction op= (nisa.tensor_reduce(op=nl.max, ...)): the engine's reduce op. */
export const REDUCE_OF_FUNCTION = new Map<NativeFunction, string>();
function registerReduction(op: string, f: NativeFunction): NativeFunction { REDUCE_OF_FUNCTION.set(f, op); return f; }

/** Which engine op an nl/np function object stands for when passed as op= (nl.add, np.add, nl.exp...). */
export const OP_OF_FUNCTION = new Map<NativeFunction, { name: string; op: string; arity: 1 | 2 }>();

export function makeMathFunctions(): Map<string, PyValue> {
  const out = new Map<string, PyValue>();
  for (const [name, op] of Object.entries(BINARY_OPS)) {
    const f = native(`nl.${name}`, [["x"], ["y"], ["dtype", null], ["mask", null]],
      (a, ctx) => binaryOp(`nl.${name}`, op, a.x, a.y, dtypeArg(a.dtype, ctx), a.mask, ctx), true);
    OP_OF_FUNCTION.set(f, { name, op, arity: 2 });
    out.set(name, f);
  }
  for (const [name, op] of Object.entries(UNARY_OPS)) {
    const f = native(`nl.${name}`, [["x"], ["dtype", null], ["mask", null]],
      (a, ctx) => unaryOp(`nl.${name}`, op, a.x, dtypeArg(a.dtype, ctx), a.mask, ctx), true);
    OP_OF_FUNCTION.set(f, { name, op, arity: 1 });
    out.set(name, f);
  }
  for (const [name, op] of Object.entries(REDUCE_OPS)) {
    out.set(name, registerReduction(op, native(`nl.${name}`, [["x"], ["axis"], ["dtype", null], ["keepdims", false], ["mask", null]], (a, ctx) => {
      const axes = intsArg(a.axis, "axis", ctx);
      return reduceOp(`nl.${name}`, op, a.x, axes, dtypeArg(a.dtype, ctx), a.keepdims === true, a.mask, ctx);
    }, true)));
  }
  out.set("loop_reduce", native("nl.loop_reduce", [["x"], ["op"], ["loop_indices", null], ["dtype", null], ["mask", null]], (a, ctx) => {
    const f = a.op instanceof NativeFunction ? OP_OF_FUNCTION.get(a.op) : undefined;
    if (!f || f.arity !== 2) throw new PyException("TypeError", "nl.loop_reduce: op must be a binary operator such as np.add", ctx.site);
    return new LoopReduce(arrayArg(a.x, "x", "nl.loop_reduce", ctx), f.op, dtypeArg(a.dtype, ctx));
  }, true));
  out.set("where", native("nl.where", [["condition"], ["x"], ["y"], ["dtype", null], ["mask", null]], (a, ctx) => where(a.condition, a.x, a.y, dtypeArg(a.dtype, ctx), a.mask, ctx), true));
  out.set("matmul", native("nl.matmul", [["x"], ["y"], ["transpose_x", false], ["mask", null]], (a, ctx) => {
    const x = arrayArg(a.x, "x", "nl.matmul", ctx), y = arrayArg(a.y, "y", "nl.matmul", ctx);
    // TensorE contracts over partitions: x is [M, K] unless transpose_x says it is already [K, M].
    const stationary = a.transpose_x === true ? x : transposedView(x);
    return matmul("nl.matmul", stationary, y, null, false, ctx, a.transpose_x === true ? "x" : "x (transposed)");
  }, true));
  return out;
}

/**
 * What nl.loop_reduce(x, op, loop_indices) returns: x, to be combined with op into the tile it is
 * assigned to (t[...] = nl.loop_reduce(...) accumulates over the loop's iterations into t, which the
 * kernel initialised).
 */
export class LoopReduce extends HostObject {
  readonly typeName = "loop_reduce";
  constructor(readonly value: NkiArray, readonly op: string, readonly dtype: NkiDType | null) { super(); }
}

/** x with its two axes swapped (a strided view, no copy): [M, K] seen as [K, M]. */
export function transposedView(x: NkiArray): NkiArray {
  if (x.shape.length !== 2) return x;
  return x.view(x.offset, [x.shape[1], x.shape[0]], [x.strides[1], x.strides[0]], x.checks.map((c) => ({ ...c, coeffs: [c.coeffs[1], c.coeffs[0]] })));
}

/** where(condition, x, y): x where condition is non-zero, else y (each may be a scalar). */
export function where(condition: PyValue, x: PyValue, y: PyValue, dtype: NkiDType | null, mask: PyValue, ctx: CallContext): NkiArray {
  const instr = "nl.where";
  const cond = arrayArg(condition, "condition", instr, ctx);
  const tiles = [cond, x, y].filter((v): v is NkiArray => typeof v === "object" && v !== null && "storage" in (v as object)) as NkiArray[];
  const shape = broadcastShapes(alignedShapes(tiles), instr, ctx);
  const out = newTile(shape, dtype ?? resultDType([x, y]), ctx);
  const box = boxOf(mask, shape, ctx);
  const used: (InputUse | null)[] = [];
  const opnd = (v: PyValue, what: string): Operand | number => {
    const s = scalarOf(v);
    if (s !== undefined) { used.push(null); return s; }
    const arr = arrayArg(v, what, instr, ctx);
    const o = operand(arr, shape, box, instr, ctx);
    used.push({ array: arr, op: o });
    return o;
  };
  const c = opnd(cond, "condition") as Operand, xo = opnd(x, "x"), yo = opnd(y, "y");
  checkUninit(tileEngine().select(operand(out, shape, box, instr, ctx), c, xo, yo), instr, used, ctx);
  return out;
}

/**
 * stationary [K, M] and moving [K, N] into a PSUM tile [M, N] (float32): TensorE's rules are checked
 * first — contraction K on the partitions of both (at most 128), M at most 128 (gemm_stationary_fmax),
 * N at most 512 (gemm_moving_fmax), the result within one 2 KiB PSUM bank per partition.
 */
export function matmul(instr: string, stationary: NkiArray, moving: NkiArray, dest: NkiArray | null, accumulate: boolean, ctx: CallContext, stationaryName = "stationary", movingName = "moving"): NkiArray {
  const dev = currentRun(ctx.site).device;
  const fail = (code: string, why: string, details: Record<string, unknown>) => {
    throw new TileShapeError(code, `${instr}: ${why}${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { instruction: instr, ...details }) });
  };
  for (const [t, nm] of [[stationary, stationaryName], [moving, movingName]] as const) {
    if (t.shape.length !== 2) fail("E_NKI_MATMUL", `${nm} must be a 2-D tile [partition, free]; it has shape (${t.shape.join(", ")})`, { operand: nm, shape: [...t.shape] });
    if (!t.dtype.isFloat) throw dtypeError(instr, `TensorE multiplies float tiles; ${nm} is ${t.dtype.name}`, ctx, t.dtype);
  }
  const [K, M] = stationary.shape, [K2, N] = moving.shape;
  if (K !== K2) fail("E_NKI_MATMUL", `the contraction (partition) sizes differ: ${stationaryName} has shape (${K}, ${M}), ${movingName} (${K2}, ${N})`, { shapes: [[K, M], [K2, N]] });
  if (K > dev.partitions) fail("E_NKI_MATMUL", `the contraction dimension ${K} (the partition dimension of ${stationaryName} (${K}, ${M}) and ${movingName}) is over ${dev.partitions}`, { operand: stationaryName, shape: [K, M], limit: dev.partitions });
  if (M > dev.gemmStationaryFmax) fail("E_NKI_MATMUL", `${stationaryName} of shape (${K}, ${M}) has free size ${M}; the stationary operand's free size is at most ${dev.gemmStationaryFmax} (nl.tile_size.gemm_stationary_fmax)`, { operand: stationaryName, shape: [K, M], limit: dev.gemmStationaryFmax });
  if (N > dev.gemmMovingFmax) fail("E_NKI_MATMUL", `${movingName} of shape (${K2}, ${N}) has free size ${N}; the moving operand's free size is at most ${dev.gemmMovingFmax} (nl.tile_size.gemm_moving_fmax)`, { operand: movingName, shape: [K2, N], limit: dev.gemmMovingFmax });
  const out = dest ?? newTile([M, N], float32, ctx, "psum");
  if (out.shape.length !== 2 || out.shape[0] !== M || out.shape[1] !== N) fail("E_NKI_MATMUL", `the result has shape (${M}, ${N}) but the destination has shape (${out.shape.join(", ")})`, { shape: [...out.shape] });
  if (out.storage.kind === "psum" && N * out.dtype.bytes > dev.psumBankBytes) {
    throw new TileShapeError("E_NKI_PSUM_BANK", `${instr}: the PSUM result (${M}, ${N}) of ${out.dtype.name} takes ${N * out.dtype.bytes} bytes per partition; a matmul writes one PSUM bank of ${dev.psumBankBytes} bytes (${dev.psumFmax} float32)${atSite(ctx.site)}`,
      { details: errorDetails(ctx.site, { instruction: instr, shape: [M, N], bytes: N * out.dtype.bytes, limit: dev.psumBankBytes }) });
  }
  const box = { lo: [0, 0], hi: [M, N] };
  const so = operand(stationary, [K, M], { lo: [0, 0], hi: [K, M] }, instr, ctx);
  const mo = operand(moving, [K, N], { lo: [0, 0], hi: [K, N] }, instr, ctx);
  const oo = operand(out, [M, N], box, instr, ctx);
  const used: InputUse[] = [{ array: stationary, op: so }, { array: moving, op: mo }];
  if (accumulate) used.push({ array: out, op: oo });
  checkUninit(tileEngine().matmul(oo, so, mo, accumulate), instr, used, ctx);
  return out;
}

