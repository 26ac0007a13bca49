// nki.isa: the NeuronCore instructions. Two generations share the work: neuronxcc.nki.isa returns a
// new tile (nisa.tensor_tensor(a, b, op=nl.add)); the current nki.isa writes a destination given
// first (nisa.tensor_tensor(dst, a, b, op=nl.add)) and returns None.
import { NativeFunction, PyException, PyModule, type CallContext, type PyValue } from "../python/values.js";
import { NkiSyntaxError } from "../../host/checks/errors.js";
import { tileEngine, type Operand, type BinaryOp, type ReduceOp } from "../machine/engine.js";
import { IndexExpr, MaskExpr } from "../machine/index-expr.js";
import { NkiArray } from "../machine/tile.js";
import { int32, uint8, float32, type NkiDType } from "../machine/nki-dtype.js";
import { operand, checkUninit, type InputUse } from "../machine/instructions.js";
import { fullBox } from "../machine/access.js";
import { atSite, errorDetails } from "../machine/site.js";
import { native, intsArg, shapeArg, typeName, type Bound } from "./args.js";
import { dtypeArg, requiredDType } from "./dtype-arg.js";
import { arrayArg, binaryOp, boxOf, copyInto, fillView, indirectMove, newTile, reduceOp, reshapedView, scalarOf, unaryOp } from "./compute.js";
import type { OobMode } from "../machine/indirect.js";
import { bnAggr, bnStats, scanColumns, sequenceBounds, streamShuffle } from "./isa-composed.js";
import { max8, findIndex8, matchReplace8 } from "./isa-vector8.js";
import { gatherInPartitions } from "./isa-gather.js";
import { OP_OF_FUNCTION, REDUCE_OF_FUNCTION, matmul, transposedView } from "./nl-math.js";
import { currentRun, maybeCurrentRun } from "../machine/kernel-run.js";
import { enumNamespace, EnumValue } from "./constants.js";
import { transpose } from "./nl-memory.js";
import { hbm } from "../../host/device/hbm.js";
import { checkEngineArg } from "../checks/engines.js";

/**
 * Fills d with nisa.iota's pattern values: pattern [[step, num], ...] over the free axes (their
 * element counts multiply to d's per partition), value = offset + channel_multiplier * p + sum step_k * i_k.
 */
function fillPattern(instr: string, d: NkiArray, pattern: PyValue, offset: PyValue, channelMultiplier: PyValue, ctx: CallContext): void {
  const pat = (pattern as { items?: PyValue[] }).items?.map((x) => ((x as { items: PyValue[] }).items).map((y) => Number(scalarOf(y)))) ?? [];
  const coeffs = [Number(scalarOf(channelMultiplier) ?? 0), ...pat.map(([step]) => step)];
  const shape = [d.shape[0], ...pat.map(([, n]) => n)];
  const view = d.shape.length === shape.length ? d : d.view(d.offset, shape, [d.strides[0], ...shape.slice(1).map((_, k) => shape.slice(k + 2).reduce((p, q) => p * q, 1))], d.checks);
  checkUninit(tileEngine().affine(operand(view, shape, fullBox(shape), instr, ctx), Number(scalarOf(offset) ?? 0), coeffs), instr, [], ctx);
}

/** The engine op an op= argument names (nl.add, np.add, nl.exp, nl.maximum ...). */
function opArg(v: PyValue, instr: string, ctx: CallContext): { name: string; op: string; arity: 1 | 2 } {
  if (v instanceof NativeFunction) {
    const found = OP_OF_FUNCTION.get(v);
    if (found) return found;
  }
  throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `${instr}: op=${v instanceof NativeFunction ? v.name : typeName(v)} is not an operator gpsimd knows (pass nl.add, np.add, nl.exp, ...)${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { instruction: instr }) });
}

/** The engine's reduce op for a reduction op= (np.add sums, nl.maximum takes the max). */
const REDUCE_OF: Record<string, string> = {
  add: "add", maximum: "max", minimum: "min", multiply: "multiply", bitwise_and: "bitwise_and", bitwise_or: "bitwise_or",
  logical_and: "logical_and", logical_or: "logical_or", subtract: "add",
};

function reduceOpArg(v: PyValue, instr: string, ctx: CallContext): string {
  const direct = v instanceof NativeFunction ? REDUCE_OF_FUNCTION.get(v) : undefined;
  if (direct) return direct;
  const { name } = opArg(v, instr, ctx);
  const r = REDUCE_OF[name];
  if (!r || name === "subtract") throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `${instr}: ${name} is not a reduction operator${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
  return r;
}

/** Operator with its operands swapped: subtract -> rsub, greater -> less, symmetric ones unchanged. */
const REVERSED: Record<string, string> = {
  subtract: "rsub", divide: "rdivide", add: "add", multiply: "multiply", maximum: "maximum", minimum: "minimum",
  equal: "equal", not_equal: "not_equal", greater: "less", less: "greater", greater_equal: "less_equal", less_equal: "greater_equal",
  logical_and: "logical_and", logical_or: "logical_or", logical_xor: "logical_xor", bitwise_and: "bitwise_and", bitwise_or: "bitwise_or", bitwise_xor: "bitwise_xor",
};

function scalarOrTile(v: PyValue, shape: readonly number[], instr: string, ctx: CallContext, used: (InputUse | null)[]): Operand | number {
  const s = scalarOf(v);
  if (s !== undefined) { used.push(null); return s; }
  const a = arrayArg(v, "operand", instr, ctx);
  const o = operand(a, shape, fullBox(shape), instr, ctx);
  used.push({ array: a, op: o });
  return o;
}

// ---- the shared implementations (dest = null: a new tile) ----

function tensorScalar(instr: string, a: Bound, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const data = arrayArg(a.data, "data", instr, ctx);
  const op0Arg = opArg(a.op0, instr, ctx), op1Arg = a.op1 === null || a.op1 === undefined ? null : opArg(a.op1, instr, ctx);
  const op0 = op0Arg.op, op1 = op1Arg === null ? null : op1Arg.op;
  if (a.engine !== undefined) {
    const ops = op1Arg === null ? [op0Arg.name] : [op0Arg.name, op1Arg.name];
    checkEngineArg(instr, a.engine, { operands: { dst: dest, data, operand0: a.operand0, operand1: a.operand1 ?? null }, ops }, ctx);
  }
  const rev = (op: string, r: PyValue) => {
    if (r !== true) return op;
    const x = REVERSED[op];
    if (!x) throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `${instr}: ${op} with reverse=True is not supported${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
    return x;
  };
  const out = dest ?? newTile(data.shape, dtypeArg(a.dtype, ctx) ?? (data.dtype.isFloat ? data.dtype : float32), ctx);
  const box = boxOf(a.mask ?? null, out.shape, ctx);
  const used: (InputUse | null)[] = [];
  const d = operand(data, out.shape, box, instr, ctx);
  used.push({ array: data, op: d });
  const s0 = scalarOrTile(a.operand0, out.shape, instr, ctx, used);
  const s1 = op1 === null ? undefined : scalarOrTile(a.operand1, out.shape, instr, ctx, used);
  const o = operand(out, out.shape, box, instr, ctx);
  checkUninit(tileEngine().tensorScalar(o, d, rev(op0, a.reverse0) as BinaryOp, s0, op1 === null ? undefined : (rev(op1, a.reverse1) as BinaryOp), s1), instr, used, ctx);
  return out;
}

function activation(instr: string, a: Bound, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const data = arrayArg(a.data, "data", instr, ctx);
  const { op } = opArg(a.op, instr, ctx);
  const used: (InputUse | null)[] = [];
  const out = dest ?? newTile(data.shape, dtypeArg(a.dtype, ctx) ?? data.dtype, ctx);
  const bias = a.bias === null || a.bias === undefined ? undefined : scalarOrTile(a.bias, out.shape, instr, ctx, used);
  const scale = scalarOf(a.scale ?? 1);
  if (scale !== undefined) unaryOp(instr, op, data, out.dtype, a.mask ?? null, ctx, { out }, { scale, bias }, used);
  else {
    // A per-partition scale tile: data * scale first (rounded to float32, as ScalarE rounds each step).
    const scaled = binaryOp(instr, "multiply", data, arrayArg(a.scale, "scale", instr, ctx), float32, a.mask ?? null, ctx) as NkiArray;
    unaryOp(instr, op, scaled, out.dtype, a.mask ?? null, ctx, { out }, { bias }, [null, ...used]);
  }
  reduceAlongFree(instr, a.reduce_op, out, a.reduce_res, a.reduce_cmd, ctx, "scalar");
  return out;
}

/**
 * The reduce step some instructions end with (activation on ScalarE; tensor_scalar_reduce,
 * range_select, select_reduce on VectorE): the result reduced along its free axes into the engine's
 * reduction register, per reduce_cmd — reset_reduce (the default) starts it from this result, reduce
 * accumulates into what earlier instructions left there, load_reduce starts from reduce_res, idle
 * leaves it — and, when reduce_res is given, the register written there (one value per partition).
 */
function reduceAlongFree(instr: string, reduceOpV: PyValue, result: NkiArray, res: PyValue, cmd: PyValue, ctx: CallContext, engine = "vector"): void {
  if (reduceOpV === null || reduceOpV === undefined) return;
  const mode = cmd instanceof EnumValue ? cmd.member : "reset_reduce";
  if (mode === "idle") return;
  const dest = res === null || res === undefined ? null : arrayArg(res, "reduce_res", instr, ctx);
  accumulate(instr, reduceOpArg(reduceOpV, instr, ctx), result, dest, mode, dest, ctx, engine);
}

/**
 * The engine's reduction register after an instruction whose result is `result`: reset_reduce starts
 * from this result's reduction along the free axes, reduce combines it with the register, load_reduce
 * with `loadFrom`; the register is copied to dest when there is one.
 */
function accumulate(instr: string, op: string, result: NkiArray, dest: NkiArray | null, mode: string, loadFrom: NkiArray | number | null, ctx: CallContext, engine: string): void {
  const combine = op === "max" ? "maximum" : op === "min" ? "minimum" : op === "multiply" ? "multiply" : "add";
  const partial = reduceOp(instr, op, result, result.shape.map((_, k) => k).slice(1), float32, true, null, ctx);
  const run = currentRun(ctx.site);
  const previous = run.accumulators.get(engine);
  let register = partial;
  const fits = (t: NkiArray | null | undefined): t is NkiArray => !!t && t.numel === partial.numel;
  if (mode === "reduce" && fits(previous)) register = binaryOp(instr, combine, previous, partial, float32, null, ctx) as NkiArray;
  if (mode === "load_reduce" && typeof loadFrom === "number") register = binaryOp(instr, combine, loadFrom, partial, float32, null, ctx) as NkiArray;
  else if (mode === "load_reduce" && typeof loadFrom !== "number" && fits(loadFrom)) register = binaryOp(instr, combine, reshapedView(loadFrom, partial.shape, instr, ctx), partial, float32, null, ctx) as NkiArray;
  run.accumulators.set(engine, register);
  if (dest) copyInto(instr, dest, register, null, ctx);
}

function tensorReduce(instr: string, a: Bound, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const op = reduceOpArg(a.op, instr, ctx);
  const axes = intsArg(a.axis, "axis", ctx);
  const out = reduceOp(instr, op, a.data, axes, dtypeArg(a.dtype, ctx), a.keepdims === true, a.mask ?? null, ctx, dest ? { out: dest } : {});
  if (a.negate === true) unaryOp(instr, "neg", out, null, null, ctx, { out });
  return out;
}

/** iota: the values of an index expression (nl.arange / nl.mgrid arithmetic) in a tile. */
function iota(instr: string, expr: PyValue, dtype: NkiDType, dest: NkiArray | null, ctx: CallContext): NkiArray {
  if (!(expr instanceof IndexExpr)) throw new PyException("TypeError", `${instr}: expr must be an index expression (nl.arange, nl.mgrid), not ${typeName(expr)}`, ctx.site);
  const shape = expr.shape.length === 1 ? [1, expr.shape[0]] : [...expr.shape];
  const e = expr.alignTo(shape.length);
  const out = dest ?? newTile(shape, dtype, ctx);
  const coeffs = e.coeffs.map((c, k) => (e.shape[k] > 1 ? c : 0));
  checkUninit(tileEngine().affine(operand(out, out.shape, fullBox(out.shape), instr, ctx), e.offset, coeffs), instr, [], ctx);
  return out;
}

/** A 0/1 uint8 tile of a mask's truth over `shape` (each term: iota, compare with 0, and-ed). */
function predicateTile(instr: string, pred: PyValue, shape: readonly number[], ctx: CallContext): NkiArray {
  if (pred instanceof NkiArray) return pred;
  if (!(pred instanceof MaskExpr) || pred.unsupported) throw new PyException("TypeError", `${instr}: pred must be a comparison of index expressions`, ctx.site);
  let acc: NkiArray | null = null;
  for (const term of pred.terms) {
    const values = iota(instr, term.expr.alignTo(shape.length), int32, null, ctx);
    const cmp = { "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal", "!=": "not_equal" }[term.op];
    const t = binaryOp(instr, cmp, values, 0, uint8, null, ctx) as NkiArray;
    acc = acc === null ? t : (binaryOp(instr, "logical_and", acc, t, uint8, null, ctx) as NkiArray);
  }
  if (acc === null) { acc = newTile(shape, uint8, ctx); fillView(instr, acc, 1, ctx); }
  return acc;
}

function select(instr: string, cond: NkiArray, onTrue: PyValue, onFalse: PyValue, out: NkiArray, ctx: CallContext): void {
  const used: (InputUse | null)[] = [];
  const c = operand(cond, out.shape, fullBox(out.shape), instr, ctx);
  used.push({ array: cond, op: c });
  const t = scalarOrTile(onTrue, out.shape, instr, ctx, used), f = scalarOrTile(onFalse, out.shape, instr, ctx, used);
  checkUninit(tileEngine().select(operand(out, out.shape, fullBox(out.shape), instr, ctx), c, t, f), instr, used, ctx);
}

const ENGINES = enumNamespace("engine", ["unknown", "tensor", "vector", "scalar", "gpsimd", "dma", "activation", "sync", "pool"]);

function transposeInto(instr: string, data: PyValue, engine: PyValue, dtype: NkiDType | null, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const vector = checkEngineArg(instr, engine, { operands: { data, dst: dest } }, ctx) === "vector";
  return transpose(instr, data, dtype, dest, ctx, vector ? "sbuf" : "psum");
}

/** neuronxcc.nki.isa: instructions that return their result. */
export function makeLegacyIsa(): Map<string, PyValue> {
  const m = new Map<string, PyValue>();
  const set = (name: string, params: [string, PyValue?][], body: (a: Bound, ctx: CallContext) => PyValue) => m.set(name, native(`nisa.${name}`, params, body, true));
  set("dma_copy", [["dst"], ["src"], ["mask", null], ["dst_rmw_op", null], ["oob_mode", null], ["dge_mode", null]], (a, ctx) => dmaCopy(a, ctx));
  set("tensor_copy", [["src"], ["mask", null], ["dtype", null], ["engine", null]], (a, ctx) => {
    const src = arrayArg(a.src, "src", "nisa.tensor_copy", ctx);
    checkEngineArg("nisa.tensor_copy", a.engine, { operands: { src } }, ctx);
    const t = newTile(src.shape, dtypeArg(a.dtype, ctx) ?? src.dtype, ctx);
    copyInto("nisa.tensor_copy", t, src, a.mask, ctx);
    return t;
  });
  set("memset", [["shape"], ["value"], ["dtype"], ["mask", null], ["engine", null]], (a, ctx) => {
    checkEngineArg("nisa.memset", a.engine, { operands: {} }, ctx);
    const t = newTile(shapeArg(a.shape, "shape", ctx), requiredDType(a.dtype, "nisa.memset", ctx), ctx);
    const v = scalarOf(a.value);
    if (v === undefined) throw new PyException("TypeError", "nisa.memset: value must be a number", ctx.site);
    fillView("nisa.memset", t, v, ctx, a.mask);
    return t;
  });
  const tileArg = (v: PyValue, what: string, instr: string, ctx: CallContext) => arrayArg(v, what, instr, ctx);
  set("max8", [["src"], ["mask", null], ["dtype", null]], (a, ctx) => max8("nisa.max8", tileArg(a.src, "src", "nisa.max8", ctx), null, dtypeArg(a.dtype, ctx), ctx));
  set("nc_find_index8", [["data"], ["vals"], ["mask", null], ["dtype", null]], (a, ctx) =>
    findIndex8("nisa.nc_find_index8", tileArg(a.data, "data", "nisa.nc_find_index8", ctx), tileArg(a.vals, "vals", "nisa.nc_find_index8", ctx), null, ctx));
  set("nc_match_replace8", [["data"], ["vals"], ["imm"], ["dst_idx", null], ["mask", null], ["dtype", null]], (a, ctx) =>
    matchReplace8("nisa.nc_match_replace8", tileArg(a.data, "data", "nisa.nc_match_replace8", ctx), tileArg(a.vals, "vals", "nisa.nc_match_replace8", ctx),
      Number(scalarOf(a.imm)), a.dst_idx === null ? null : tileArg(a.dst_idx, "dst_idx", "nisa.nc_match_replace8", ctx), null, ctx));
  set("iota", [["expr"], ["dtype"], ["mask", null]], (a, ctx) => iota("nisa.iota", a.expr, requiredDType(a.dtype, "nisa.iota", ctx), null, ctx));
  set("tensor_tensor", [["data1"], ["data2"], ["op"], ["dtype", null], ["mask", null], ["engine", null]], (a, ctx) => {
    const op = opArg(a.op, "nisa.tensor_tensor", ctx);
    checkEngineArg("nisa.tensor_tensor", a.engine, { operands: { data1: a.data1, data2: a.data2 }, ops: [op.name] }, ctx);
    return binaryOp("nisa.tensor_tensor", op.op, a.data1, a.data2, dtypeArg(a.dtype, ctx), a.mask, ctx);
  });
  set("tensor_scalar", [["data"], ["op0"], ["operand0"], ["reverse0", false], ["op1", null], ["operand1", null], ["reverse1", false], ["dtype", null], ["mask", null], ["engine", null]],
    (a, ctx) => tensorScalar("nisa.tensor_scalar", a, null, ctx));
  set("activation", [["op"], ["data"], ["bias", null], ["scale", 1], ["reduce_op", null], ["reduce_res", null], ["reduce_cmd", null], ["mask", null], ["dtype", null]],
    (a, ctx) => activation("nisa.activation", a, null, ctx));
  set("activation_reduce", [["op"], ["data"], ["reduce_op"], ["reduce_res"], ["bias", null], ["scale", 1], ["mask", null], ["dtype", null]],
    (a, ctx) => activation("nisa.activation_reduce", a, null, ctx));
  set("tensor_scalar_reduce", [["data"], ["op0"], ["operand0"], ["reduce_op"], ["reduce_res"], ["reverse0", false], ["dtype", null], ["mask", null]], (a, ctx) => {
    const out = tensorScalar("nisa.tensor_scalar_reduce", a, null, ctx);
    reduceAlongFree("nisa.tensor_scalar_reduce", a.reduce_op, out, a.reduce_res, null, ctx);
    return out;
  });
  set("tensor_reduce", [["op"], ["data"], ["axis"], ["mask", null], ["dtype", null], ["negate", false], ["keepdims", false]], (a, ctx) => tensorReduce("nisa.tensor_reduce", a, null, ctx));
  set("tensor_partition_reduce", [["op"], ["data"], ["mask", null], ["dtype", null]], (a, ctx) => partitionReduce("nisa.tensor_partition_reduce", a, null, ctx));
  set("nc_stream_shuffle", [["src"], ["dst"], ["shuffle_mask"], ["mask", null]], (a, ctx) => {
    streamShuffle("nisa.nc_stream_shuffle", arrayArg(a.dst, "dst", "nisa.nc_stream_shuffle", ctx), arrayArg(a.src, "src", "nisa.nc_stream_shuffle", ctx), intsArg(a.shuffle_mask, "shuffle_mask", ctx), ctx);
    return null;
  });
  set("sequence_bounds", [["segment_ids"], ["dtype", null]], (a, ctx) => sequenceBounds("nisa.sequence_bounds", arrayArg(a.segment_ids, "segment_ids", "nisa.sequence_bounds", ctx), dtypeArg(a.dtype, ctx), null, ctx));
  set("bn_stats", [["data"], ["mask", null], ["dtype", null]], (a, ctx) => bnStats("nisa.bn_stats", arrayArg(a.data, "data", "nisa.bn_stats", ctx), dtypeArg(a.dtype, ctx), null, ctx));
  set("bn_aggr", [["data"], ["mask", null], ["dtype", null]], (a, ctx) => bnAggr("nisa.bn_aggr", arrayArg(a.data, "data", "nisa.bn_aggr", ctx), dtypeArg(a.dtype, ctx), null, ctx));
  set("select_reduce", [["dst"], ["predicate"], ["on_true"], ["on_false"], ["reduce_res", null], ["reduce_cmd", null], ["reduce_op", null], ["reverse_pred", false], ["mask", null], ["dtype", null]],
    (a, ctx) => { selectReduce("nisa.select_reduce", a, arrayArg(a.dst, "dst", "nisa.select_reduce", ctx), ctx); return null; });
  set("range_select", [["on_true_tile"], ["comp_op0"], ["comp_op1"], ["bound0"], ["bound1"], ["reduce_cmd", null], ["reduce_res", null], ["reduce_op", null], ["range_start", 0], ["on_false_value", null], ["mask", null], ["dtype", null]],
    (a, ctx) => rangeSelect("nisa.range_select", a, null, ctx));
  set("tensor_tensor_scan", [["data0"], ["data1"], ["initial"], ["op0"], ["op1"], ["reverse0", false], ["reverse1", false], ["dtype", null], ["mask", null]],
    (a, ctx) => tensorTensorScan("nisa.tensor_tensor_scan", a, null, ctx));
  set("reciprocal", [["data"], ["dtype", null], ["mask", null]], (a, ctx) => unaryOp("nisa.reciprocal", "reciprocal", a.data, dtypeArg(a.dtype, ctx), a.mask, ctx));
  set("nc_matmul", [["stationary"], ["moving"], ["is_stationary_onezero", false], ["is_moving_onezero", false], ["mask", null], ["is_transpose", false], ["tile_position", null], ["tile_size", null], ["perf_mode", null]], (a, ctx) =>
    matmul("nisa.nc_matmul", arrayArg(a.stationary, "stationary", "nisa.nc_matmul", ctx), arrayArg(a.moving, "moving", "nisa.nc_matmul", ctx), null, false, ctx));
  set("nc_transpose", [["data"], ["mask", null], ["dtype", null], ["engine", null]], (a, ctx) => transposeInto("nisa.nc_transpose", a.data, a.engine, dtypeArg(a.dtype, ctx), null, ctx));
  set("dma_transpose", [["src"], ["axes", null], ["mask", null], ["dtype", null]], (a, ctx) => {
    const src = arrayArg(a.src, "src", "nisa.dma_transpose", ctx);
    const t = newTile([src.shape[1], src.shape[0]], dtypeArg(a.dtype, ctx) ?? src.dtype, ctx);
    copyInto("nisa.dma_transpose", t, transposedView(src), a.mask, ctx);
    return t;
  });
  set("affine_select", [["pred"], ["on_true_tile"], ["on_false_value"], ["mask", null], ["dtype", null]], (a, ctx) => {
    const onTrue = arrayArg(a.on_true_tile, "on_true_tile", "nisa.affine_select", ctx);
    const out = newTile(onTrue.shape, dtypeArg(a.dtype, ctx) ?? onTrue.dtype, ctx);
    select("nisa.affine_select", predicateTile("nisa.affine_select", a.pred, onTrue.shape, ctx), onTrue, a.on_false_value, out, ctx);
    return out;
  });
  set("tensor_copy_predicated", [["src"], ["dst"], ["predicate"], ["mask", null], ["reverse_pred", false]], (a, ctx) => {
    const dst = arrayArg(a.dst, "dst", "nisa.tensor_copy_predicated", ctx);
    const pred = arrayArg(a.predicate, "predicate", "nisa.tensor_copy_predicated", ctx);
    if (a.reverse_pred === true) select("nisa.tensor_copy_predicated", pred, dst, a.src, dst, ctx);
    else select("nisa.tensor_copy_predicated", pred, a.src, dst, dst, ctx);
    return null;
  });
  addEnums(m);
  return m;
}

/**
 * tensor_tensor_scan along the free axis: out[:, i] = op1(op0(data0[:, i], out[:, i-1]), data1[:, i]),
 * out[:, -1] = initial. One engine instruction per column (a tensor_scalar whose scalars are the
 * previous column and data1's column), as the recurrence runs column after column on VectorE too.
 */
function tensorTensorScan(instr: string, a: Bound, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const d0 = arrayArg(a.data0, "data0", instr, ctx), d1 = arrayArg(a.data1, "data1", instr, ctx);
  const rev = (op: string, r: PyValue) => (r === true ? REVERSED[op] ?? op : op);
  const op0 = rev(opArg(a.op0, instr, ctx).op, a.reverse0) as BinaryOp, op1 = rev(opArg(a.op1, instr, ctx).op, a.reverse1) as BinaryOp;
  const out = dest ?? newTile(d0.shape, dtypeArg(a.dtype, ctx) ?? d0.dtype, ctx);
  const initial = scalarOf(a.initial) ?? arrayArg(a.initial, "initial", instr, ctx);
  scanColumns(instr, d0, d1, initial, op0, op1, out, ctx);
  return out;
}

/** select_reduce: dst = predicate ? on_true : on_false (reverse_pred flips it), then the optional reduction. */
function selectReduce(instr: string, a: Bound, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const pred = arrayArg(a.predicate, "predicate", instr, ctx);
  const onTrue = arrayArg(a.on_true, "on_true", instr, ctx);
  const out = dest ?? newTile(onTrue.shape, dtypeArg(a.dtype, ctx) ?? onTrue.dtype, ctx);
  if (a.reverse_pred === true) select(instr, pred, a.on_false, onTrue, out, ctx);
  else select(instr, pred, onTrue, a.on_false, out, ctx);
  reduceAlongFree(instr, a.reduce_op, out, a.reduce_res, a.reduce_cmd ?? null, ctx);
  return out;
}

/**
 * range_select: keep on_true_tile's element where (range_start + its free index) comp_op0 bound0 and
 * comp_op1 bound1 (per-partition bounds), else on_false_value; then the optional reduction. The index
 * is an iota tile, the tests and the select engine instructions.
 */
function rangeSelect(instr: string, a: Bound, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const onTrue = arrayArg(a.on_true_tile, "on_true_tile", instr, ctx);
  const shape = onTrue.shape;
  const out = dest ?? newTile(shape, dtypeArg(a.dtype, ctx) ?? onTrue.dtype, ctx);
  const index = newTile(shape, float32, ctx);
  const start = scalarOf(a.range_start ?? 0) ?? 0;
  checkUninit(tileEngine().affine(operand(index, shape, fullBox(shape), instr, ctx), start, shape.map((_, k) => (k === shape.length - 1 ? 1 : 0))), instr, [], ctx);
  const c0 = binaryOp(instr, opArg(a.comp_op0, instr, ctx).op, index, a.bound0, uint8, null, ctx) as NkiArray;
  const c1 = binaryOp(instr, opArg(a.comp_op1, instr, ctx).op, index, a.bound1, uint8, null, ctx) as NkiArray;
  const cond = binaryOp(instr, "logical_and", c0, c1, uint8, null, ctx) as NkiArray;
  select(instr, cond, onTrue, a.on_false_value ?? -3.4028234663852886e38, out, ctx);
  reduceAlongFree(instr, a.reduce_op ?? null, out, a.reduce_res ?? null, a.reduce_cmd ?? null, ctx);
  return out;
}

function partitionReduce(instr: string, a: Bound, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const op = reduceOpArg(a.op, instr, ctx);
  const data = arrayArg(a.data, "data", instr, ctx);
  const shape = [1, ...data.shape.slice(1)];
  const out = dest ?? newTile(shape, dtypeArg(a.dtype, ctx) ?? data.dtype, ctx);
  const d = operand(data, data.shape, fullBox(data.shape), instr, ctx);
  checkUninit(tileEngine().reduce(op as ReduceOp, operand(out, shape, fullBox(shape), instr, ctx), d, [0]), instr, [{ array: data, op: d }], ctx);
  return out;
}

function dmaCopy(a: Bound, ctx: CallContext): PyValue {
  const instr = "nisa.dma_copy";
  const dst = arrayArg(a.dst, "dst", instr, ctx);
  if (a.engine !== undefined) checkEngineArg(instr, a.engine, { operands: {}, dgeMode: a.dge_mode instanceof EnumValue ? a.dge_mode.member : undefined }, ctx);
  const oob: OobMode = a.oob_mode instanceof EnumValue && a.oob_mode.member === "skip" ? "skip" : "error";
  if (a.dst_rmw_op !== null && a.dst_rmw_op !== undefined) {
    const { op } = opArg(a.dst_rmw_op, instr, ctx);
    const src = a.src;
    if (dst.indirect || (src instanceof NkiArray && src.indirect)) {
      indirectMove(instr, dst, arrayArg(src, "src", instr, ctx), boxOf(a.mask ?? null, dst.shape, ctx), oob, op, ctx);
    } else {
      binaryOp(instr, op, dst, src, null, a.mask ?? null, ctx, { out: dst });
    }
    return null;
  }
  copyInto(instr, dst, a.src, a.mask ?? null, ctx, oob);
  return null;
}

function addEnums(m: Map<string, PyValue>): void {
  m.set("engine", ENGINES);
  for (const e of ["tensor", "vector", "scalar", "gpsimd", "unknown"]) m.set(`${e}_engine`, ENGINES.attrs.get(e)!);
  m.set("oob_mode", enumNamespace("oob_mode", ["error", "skip"]));
  m.set("dge_mode", enumNamespace("dge_mode", ["unknown", "none", "swdge", "hwdge"]));
  m.set("reduce_cmd", enumNamespace("reduce_cmd", ["idle", "reset", "reduce", "reset_reduce", "load_reduce"]));
  m.set("matmul_perf_mode", enumNamespace("matmul_perf_mode", ["none", "double_row", "double_row_gen3"]));
  m.set("nc_version", enumNamespace("nc_version", ["gen2", "gen3", "gen4"]));
}

/** nki.isa (the current generation): destination first, result written there, None returned. */
export function makeCurrentIsa(): Map<string, PyValue> {
  const m = new Map<string, PyValue>();
  // The current API has no **kwargs: a misspelled keyword (acumulate=) is a TypeError, not ignored.
  const set = (name: string, params: [string, PyValue?][], body: (a: Bound, ctx: CallContext) => PyValue) => m.set(name, native(`nisa.${name}`, params, body));
  const dst = (a: Bound, instr: string, ctx: CallContext) => arrayArg(a.dst, "dst", instr, ctx);
  set("dma_copy", [["dst"], ["src"], ["priority", null], ["oob_mode", null], ["dge_mode", null], ["engine", null], ["name", null], ["dst_rmw_op", null], ["mask", null]], (a, ctx) => dmaCopy(a, ctx));
  set("tensor_copy", [["dst"], ["src"], ["engine", null], ["name", null]], (a, ctx) => {
    const d = dst(a, "nisa.tensor_copy", ctx);
    checkEngineArg("nisa.tensor_copy", a.engine, { operands: { dst: d, src: a.src } }, ctx);
    copyInto("nisa.tensor_copy", d, a.src, null, ctx);
    return null;
  });
  set("memset", [["dst"], ["value"], ["engine", null], ["name", null]], (a, ctx) => {
    const v = scalarOf(a.value);
    if (v === undefined) throw new PyException("TypeError", "nisa.memset: value must be a number", ctx.site);
    const d = dst(a, "nisa.memset", ctx);
    checkEngineArg("nisa.memset", a.engine, { operands: { dst: d } }, ctx);
    fillView("nisa.memset", d, v, ctx);
    return null;
  });
  set("iota", [["dst"], ["pattern"], ["offset", 0], ["channel_multiplier", 0], ["name", null]], (a, ctx) => {
    const d = dst(a, "nisa.iota", ctx);
    if (a.pattern instanceof IndexExpr) { iota("nisa.iota", a.pattern, d.dtype, d, ctx); return null; }
    fillPattern("nisa.iota", d, a.pattern, a.offset, a.channel_multiplier, ctx);
    return null;
  });
  set("tensor_tensor", [["dst"], ["data1"], ["data2"], ["op"], ["engine", null], ["name", null]], (a, ctx) => {
    const op = opArg(a.op, "nisa.tensor_tensor", ctx), d = dst(a, "nisa.tensor_tensor", ctx);
    checkEngineArg("nisa.tensor_tensor", a.engine, { operands: { dst: d, data1: a.data1, data2: a.data2 }, ops: [op.name] }, ctx);
    binaryOp("nisa.tensor_tensor", op.op, a.data1, a.data2, null, null, ctx, { out: d });
    return null;
  });
  set("tensor_scalar", [["dst"], ["data"], ["op0"], ["operand0"], ["reverse0", false], ["op1", null], ["operand1", null], ["reverse1", false], ["engine", null], ["name", null]],
    (a, ctx) => { tensorScalar("nisa.tensor_scalar", a, dst(a, "nisa.tensor_scalar", ctx), ctx); return null; });
  set("activation", [["dst"], ["op"], ["data"], ["bias", null], ["scale", 1], ["reduce_op", null], ["reduce_res", null], ["reduce_cmd", null], ["name", null]],
    (a, ctx) => { activation("nisa.activation", a, dst(a, "nisa.activation", ctx), ctx); return null; });
  set("activation_reduce", [["dst"], ["op"], ["data"], ["reduce_op"], ["reduce_res"], ["bias", null], ["scale", 1], ["name", null]],
    (a, ctx) => { activation("nisa.activation_reduce", a, dst(a, "nisa.activation_reduce", ctx), ctx); return null; });
  set("tensor_scalar_reduce", [["dst"], ["data"], ["op0"], ["operand0"], ["reduce_op"], ["reduce_res", null], ["reverse0", false], ["reduce_cmd", null], ["reduce_init", null], ["reduce_res_negate", false], ["name", null]], (a, ctx) => {
    const out = tensorScalar("nisa.tensor_scalar_reduce", a, dst(a, "nisa.tensor_scalar_reduce", ctx), ctx);
    reduceAlongFree("nisa.tensor_scalar_reduce", a.reduce_op, out, a.reduce_res, a.reduce_cmd, ctx);
    return null;
  });
  set("tensor_reduce", [["dst"], ["op"], ["data"], ["axis"], ["negate", false], ["keepdims", false], ["name", null]],
    (a, ctx) => { tensorReduce("nisa.tensor_reduce", a, dst(a, "nisa.tensor_reduce", ctx), ctx); return null; });
  set("nc_stream_shuffle", [["dst"], ["src"], ["shuffle_mask"], ["name", null]], (a, ctx) => {
    streamShuffle("nisa.nc_stream_shuffle", dst(a, "nisa.nc_stream_shuffle", ctx), arrayArg(a.src, "src", "nisa.nc_stream_shuffle", ctx), intsArg(a.shuffle_mask, "shuffle_mask", ctx), ctx);
    return null;
  });
  set("sequence_bounds", [["dst"], ["segment_ids"], ["name", null]], (a, ctx) => {
    sequenceBounds("nisa.sequence_bounds", arrayArg(a.segment_ids, "segment_ids", "nisa.sequence_bounds", ctx), null, dst(a, "nisa.sequence_bounds", ctx), ctx);
    return null;
  });
  set("bn_stats", [["dst"], ["data"], ["name", null]], (a, ctx) => { bnStats("nisa.bn_stats", arrayArg(a.data, "data", "nisa.bn_stats", ctx), null, dst(a, "nisa.bn_stats", ctx), ctx); return null; });
  set("bn_aggr", [["dst"], ["data"], ["name", null]], (a, ctx) => { bnAggr("nisa.bn_aggr", arrayArg(a.data, "data", "nisa.bn_aggr", ctx), null, dst(a, "nisa.bn_aggr", ctx), ctx); return null; });
  set("select_reduce", [["dst"], ["predicate"], ["on_true"], ["on_false"], ["reduce_res", null], ["reduce_cmd", null], ["reduce_op", null], ["reverse_pred", false], ["name", null]],
    (a, ctx) => { selectReduce("nisa.select_reduce", a, dst(a, "nisa.select_reduce", ctx), ctx); return null; });
  set("range_select", [["dst"], ["on_true_tile"], ["comp_op0"], ["comp_op1"], ["bound0"], ["bound1"], ["reduce_cmd", null], ["reduce_res", null], ["reduce_op", null], ["range_start", 0], ["on_false_value", null], ["name", null]],
    (a, ctx) => { rangeSelect("nisa.range_select", a, dst(a, "nisa.range_select", ctx), ctx); return null; });
  set("tensor_tensor_scan", [["dst"], ["data0"], ["data1"], ["initial"], ["op0"], ["op1"], ["reverse0", false], ["reverse1", false], ["name", null]],
    (a, ctx) => { tensorTensorScan("nisa.tensor_tensor_scan", a, dst(a, "nisa.tensor_tensor_scan", ctx), ctx); return null; });
  set("tensor_partition_reduce", [["dst"], ["op"], ["data"], ["name", null]], (a, ctx) => { partitionReduce("nisa.tensor_partition_reduce", a, dst(a, "nisa.tensor_partition_reduce", ctx), ctx); return null; });
  set("reciprocal", [["dst"], ["data"], ["name", null]], (a, ctx) => { unaryOp("nisa.reciprocal", "reciprocal", a.data, null, null, ctx, { out: dst(a, "nisa.reciprocal", ctx) }); return null; });
  set("nc_matmul", [["dst"], ["stationary"], ["moving"], ["is_stationary_onezero", false], ["is_moving_onezero", false], ["is_transpose", false], ["accumulate", null], ["tile_position", null], ["tile_size", null], ["perf_mode", null], ["name", null]], (a, ctx) => {
    const d = dst(a, "nisa.nc_matmul", ctx);
    // accumulate=None: accumulate into a PSUM destination (the hardware's default), overwrite SBUF.
    const acc = a.accumulate === null ? d.storage.kind === "psum" && isWritten(d) : a.accumulate === true;
    matmul("nisa.nc_matmul", arrayArg(a.stationary, "stationary", "nisa.nc_matmul", ctx), arrayArg(a.moving, "moving", "nisa.nc_matmul", ctx), d, acc, ctx);
    return null;
  });
  set("nc_transpose", [["dst"], ["data"], ["engine", null], ["name", null]], (a, ctx) => { transposeInto("nisa.nc_transpose", a.data, a.engine, null, dst(a, "nisa.nc_transpose", ctx), ctx); return null; });
  set("dma_transpose", [["dst"], ["src"], ["axes", null], ["priority", null], ["dge_mode", null], ["oob_mode", null], ["name", null]], (a, ctx) => {
    copyInto("nisa.dma_transpose", dst(a, "nisa.dma_transpose", ctx), transposedView(arrayArg(a.src, "src", "nisa.dma_transpose", ctx)), null, ctx);
    return null;
  });
  set("affine_select", [["dst"], ["pattern"], ["channel_multiplier"], ["on_true_tile"], ["on_false_value"], ["cmp_op", null], ["offset", 0], ["name", null]], (a, ctx) => {
    // The predicate cmp_op(offset + channel_multiplier * p + sum step_k * i_k, 0), made as nisa.iota
    // makes its values (float32 holds them exactly below 2^24), then a select.
    const instr = "nisa.affine_select", d = dst(a, instr, ctx);
    const values = newTile(d.shape, float32, ctx);
    fillPattern(instr, values, a.pattern, a.offset, a.channel_multiplier, ctx);
    const cmp = a.cmp_op === null ? "equal" : opArg(a.cmp_op, instr, ctx).op;
    const pred = arrayArg(binaryOp(instr, cmp, values, 0, uint8, null, ctx), "predicate", instr, ctx);
    select(instr, pred, arrayArg(a.on_true_tile, "on_true_tile", instr, ctx), a.on_false_value, d, ctx);
    return null;
  });
  set("exponential", [["dst"], ["src"], ["max_value", 0], ["reduce_res", null], ["reduce_cmd", null], ["reduce_init", 0], ["name", null]], (a, ctx) => {
    // dst = exp(src - max_value) on VectorE; with reduce_cmd, the sum of dst joins VectorE's register.
    const instr = "nisa.exponential", out = dst(a, instr, ctx);
    const used: (InputUse | null)[] = [];
    const m = scalarOf(a.max_value);
    const negMax = m !== undefined ? -m : unaryOp(instr, "neg", a.max_value, float32, null, ctx);
    unaryOp(instr, "exp", a.src, out.dtype, null, ctx, { out }, { scale: 1, bias: scalarOrTile(negMax, out.shape, instr, ctx, used) }, used);
    const mode = a.reduce_cmd instanceof EnumValue ? a.reduce_cmd.member : "idle";
    if (mode === "idle") return null;
    const res = a.reduce_res === null ? null : arrayArg(a.reduce_res, "reduce_res", instr, ctx);
    const init = scalarOf(a.reduce_init);
    accumulate(instr, "add", out, res, mode, init !== undefined ? init : arrayArg(a.reduce_init, "reduce_init", instr, ctx), ctx, "vector");
    return null;
  });
  set("nc_n_gather", [["dst"], ["data"], ["indices"], ["name", null]], (a, ctx) => {
    const instr = "nisa.nc_n_gather";
    gatherInPartitions(instr, arrayArg(a.data, "data", instr, ctx), arrayArg(a.indices, "indices", instr, ctx), dst(a, instr, ctx), null, ctx);
    return null;
  });
  set("max8", [["dst"], ["src"], ["name", null]], (a, ctx) => { max8("nisa.max8", arrayArg(a.src, "src", "nisa.max8", ctx), dst(a, "nisa.max8", ctx), null, ctx); return null; });
  set("nc_find_index8", [["dst"], ["data"], ["vals"], ["name", null]], (a, ctx) => {
    findIndex8("nisa.nc_find_index8", arrayArg(a.data, "data", "nisa.nc_find_index8", ctx), arrayArg(a.vals, "vals", "nisa.nc_find_index8", ctx), dst(a, "nisa.nc_find_index8", ctx), ctx);
    return null;
  });
  set("nc_match_replace8", [["dst"], ["data"], ["vals"], ["imm"], ["dst_idx", null], ["name", null]], (a, ctx) => {
    const instr = "nisa.nc_match_replace8";
    matchReplace8(instr, arrayArg(a.data, "data", instr, ctx), arrayArg(a.vals, "vals", instr, ctx), Number(scalarOf(a.imm)),
      a.dst_idx === null ? null : arrayArg(a.dst_idx, "dst_idx", instr, ctx), dst(a, instr, ctx), ctx);
    return null;
  });
  set("tensor_scalar_cumulative", [["dst"], ["src"], ["op0"], ["op1"], ["imm0"], ["imm1", null], ["reduce_cmd", null], ["name", null]], (a, ctx) => {
    // reg = op1(op0(src[i], imm0), reg); dst[i] = reg, along the free axis: op0 as one tensor-scalar
    // instruction, then the scan tensor_tensor_scan uses (one instruction per column) with data1 = 1.
    const instr = "nisa.tensor_scalar_cumulative", out = dst(a, instr, ctx);
    const op0 = opArg(a.op0, instr, ctx).op, op1 = opArg(a.op1, instr, ctx).op as BinaryOp;
    const src = arrayArg(a.src, "src", instr, ctx);
    const scaled = arrayArg(binaryOp(instr, op0, src, a.imm0, float32, null, ctx), "src", instr, ctx);
    const ones = newTile(scaled.shape, float32, ctx);
    fillView(instr, ones, 1, ctx);
    const mode = a.reduce_cmd instanceof EnumValue ? a.reduce_cmd.member : "reset_reduce";
    const run = currentRun(ctx.site);
    const P = scaled.shape[0];
    const held = run.accumulators.get("vector");
    const identity = op1 === "multiply" ? 1 : op1 === "maximum" ? -Infinity : op1 === "minimum" ? Infinity : 0;
    const initial: number | NkiArray = mode === "load_reduce" ? (scalarOf(a.imm1) ?? arrayArg(a.imm1, "imm1", instr, ctx))
      : mode === "reduce" && held && held.numel === P ? held : identity;
    scanColumns(instr, scaled, ones, initial, op1, "multiply", out, ctx);
    // The register holds the last column, as a tile of its own (dst may be overwritten later).
    const F = out.numel / P;
    const flat = out.shape.length === 2 ? out : reshapedView(out, [P, F], instr, ctx);
    const last = flat.view(flat.offset + (F - 1) * flat.strides[1], [P, 1], [flat.strides[0], 0], flat.checks.map((c) => ({ ...c, off: c.off + (F - 1) * c.coeffs[1] })));
    const register = newTile([P, 1], float32, ctx);
    copyInto(instr, register, last, null, ctx);
    run.accumulators.set("vector", register);
    return null;
  });
  set("scalar_tensor_tensor", [["dst"], ["data"], ["op0"], ["operand0"], ["op1"], ["operand1"], ["reverse0", false], ["reverse1", false], ["name", null]], (a, ctx) => {
    // dst = (data op0 operand0) op1 operand1; reverse swaps an operator's operands.
    const instr = "nisa.scalar_tensor_tensor";
    const op0 = opArg(a.op0, instr, ctx).op, op1 = opArg(a.op1, instr, ctx).op;
    const first = a.reverse0 === true ? binaryOp(instr, op0, a.operand0, a.data, float32, null, ctx) : binaryOp(instr, op0, a.data, a.operand0, float32, null, ctx);
    const out = { out: dst(a, instr, ctx) };
    if (a.reverse1 === true) binaryOp(instr, op1, a.operand1, first, null, null, ctx, out);
    else binaryOp(instr, op1, first, a.operand1, null, null, ctx, out);
    return null;
  });
  set("tensor_copy_predicated", [["dst"], ["src"], ["predicate"], ["reverse_pred", false], ["name", null]], (a, ctx) => {
    const d = dst(a, "nisa.tensor_copy_predicated", ctx);
    const pred = arrayArg(a.predicate, "predicate", "nisa.tensor_copy_predicated", ctx);
    if (a.reverse_pred === true) select("nisa.tensor_copy_predicated", pred, d, a.src, d, ctx);
    else select("nisa.tensor_copy_predicated", pred, a.src, d, d, ctx);
    return null;
  });
  addEnums(m);
  // The target's NeuronCore generation: trn1 (and inf2) is gen2, trn2 gen3; the first silicon revision.
  const versions = m.get("nc_version") as PyModule;
  m.set("get_nc_version", native("nisa.get_nc_version", [], () => versions.attrs.get((maybeCurrentRun()?.device.name ?? "trn1") === "trn2" ? "gen3" : "gen2")!));
  m.set("get_nc_sub_version", native("nisa.get_nc_sub_version", [], () => 0));
  return m;
}

/** accumulate=None: "first write overwrites, subsequent writes accumulate" — has the view's first element been written? */
function isWritten(v: NkiArray): boolean {
  return v.storage.initAddr !== 0 && hbm().bytes()[v.storage.initAddr + v.offset] !== 0;
}
