// nl functions the NKI API documents as one call but the engines run as several instructions:
// softmax, var, rms_norm, abs_max / abs_min, gelu_apprx_sigmoid, plus expand_dims (a view) and the
// buffer predicates. Each step is an ordinary engine instruction on a new SBUF tile, so the
// intermediate tiles are checked and counted like any other.
import { PyException, type CallContext, type PyValue } from "../python/values.js";
import type { NkiArray } from "../machine/tile.js";
import { float32, type NkiDType } from "../machine/nki-dtype.js";
import { native, intsArg } from "./args.js";
import { dtypeArg } from "./dtype-arg.js";
import { arrayArg, binaryOp, unaryOp, reduceOp, scalarOf } from "./compute.js";
import { toFloat } from "../python/builtins.js";
import { MemoryRegion } from "./constants.js";
import { where } from "./nl-math.js";
import { gatherInPartitions } from "./isa-gather.js";

/** A tile result of binaryOp (both operands here are tiles or a tile and a scalar). */
function tile(v: PyValue, instr: string, ctx: CallContext): NkiArray { return arrayArg(v, "result", instr, ctx); }

/** Free axes as numpy counts them (negative from the end). */
function axesOf(v: PyValue, rank: number, ctx: CallContext): number[] {
  return intsArg(v, "axis", ctx).map((a) => (a < 0 ? a + rank : a));
}

/** exp(x - max) / sum(exp(x - max)) along the axes, in float32, cast to dtype (default x's). */
function softmax(instr: string, x: NkiArray, axes: number[], dtype: NkiDType | null, ctx: CallContext): NkiArray {
  const mx = reduceOp(instr, "max", x, axes, float32, true, null, ctx);
  const e = unaryOp(instr, "exp", tile(binaryOp(instr, "subtract", x, mx, float32, null, ctx), instr, ctx), float32, null, ctx);
  const total = reduceOp(instr, "add", e, axes, float32, true, null, ctx);
  return tile(binaryOp(instr, "divide", e, total, dtype ?? x.dtype, null, ctx), instr, ctx);
}

/** The population variance (numpy's default, ddof=0) along the axes. */
function variance(instr: string, x: NkiArray, axes: number[], dtype: NkiDType | null, keepdims: boolean, ctx: CallContext): NkiArray {
  const mean = reduceOp(instr, "mean", x, axes, float32, true, null, ctx);
  const d = tile(binaryOp(instr, "subtract", x, mean, float32, null, ctx), instr, ctx);
  const sq = tile(binaryOp(instr, "multiply", d, d, float32, null, ctx), instr, ctx);
  return reduceOp(instr, "mean", sq, axes, dtype ?? x.dtype, keepdims, null, ctx);
}

/** x / sqrt(sum(x^2) / n + epsilon) * w, computed in compute_dtype (float32 by default). */
function rmsNorm(instr: string, x: NkiArray, w: PyValue, axes: number[], n: number, eps: number, dtype: NkiDType | null, compute: NkiDType, ctx: CallContext): NkiArray {
  const sq = tile(binaryOp(instr, "multiply", x, x, compute, null, ctx), instr, ctx);
  const ss = reduceOp(instr, "add", sq, axes, compute, true, null, ctx);
  const inv = unaryOp(instr, "rsqrt", tile(binaryOp(instr, "add", tile(binaryOp(instr, "divide", ss, n, compute, null, ctx), instr, ctx), eps, compute, null, ctx), instr, ctx), compute, null, ctx);
  const scaled = tile(binaryOp(instr, "multiply", x, inv, compute, null, ctx), instr, ctx);
  return tile(binaryOp(instr, "multiply", scaled, w, dtype ?? x.dtype, null, ctx), instr, ctx);
}

/** x where |x| > |y| (abs_max) or |x| < |y| (abs_min), else y: the signed value, ties going to y. */
function absPick(instr: string, x: PyValue, y: PyValue, larger: boolean, dtype: NkiDType | null, ctx: CallContext): NkiArray {
  const abs = (v: PyValue): PyValue => { const s = scalarOf(v); return s !== undefined ? Math.abs(s) : unaryOp(instr, "abs", v, null, null, ctx); };
  const ax = abs(x), ay = abs(y);
  const pick = binaryOp(instr, larger ? "greater" : "less", ax, ay, null, null, ctx);
  return where(pick, x, y, dtype, null, ctx);
}

/** A view of x with a new axis of size 1 at `axis` (no copy). */
function expandDims(x: NkiArray, axis: number, ctx: CallContext): NkiArray {
  const rank = x.shape.length + 1;
  const at = axis < 0 ? axis + rank : axis;
  if (at < 0 || at >= rank) throw new PyException("ValueError", `nl.expand_dims: axis ${axis} is out of bounds for a result of rank ${rank}`, ctx.site);
  const insert = <T>(v: readonly T[], item: T) => [...v.slice(0, at), item, ...v.slice(at)];
  return x.view(x.offset, insert(x.shape, 1), insert(x.strides, 0), x.checks.map((c) => ({ ...c, coeffs: insert(c.coeffs, 0) })));
}

function regionArg(v: PyValue, instr: string, ctx: CallContext): string {
  if (v instanceof MemoryRegion) return v.name;
  throw new PyException("TypeError", `${instr}: expected a buffer (nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm, ...)`, ctx.site);
}

export function makeComposedFunctions(): Map<string, PyValue> {
  const out = new Map<string, PyValue>();
  out.set("softmax", native("nl.softmax", [["x"], ["axis", -1], ["dtype", null]], (a, ctx) => {
    const x = arrayArg(a.x, "x", "nl.softmax", ctx);
    return softmax("nl.softmax", x, axesOf(a.axis, x.shape.length, ctx), dtypeArg(a.dtype, ctx), ctx);
  }));
  out.set("var", native("nl.var", [["x"], ["axis"], ["dtype", null], ["keepdims", false], ["mask", null]], (a, ctx) => {
    const x = arrayArg(a.x, "x", "nl.var", ctx);
    if (a.mask !== null) throw new PyException("TypeError", "nl.var: mask= is not supported by gpsimd's nl.var", ctx.site);
    return variance("nl.var", x, axesOf(a.axis, x.shape.length, ctx), dtypeArg(a.dtype, ctx), a.keepdims === true, ctx);
  }));
  out.set("rms_norm", native("nl.rms_norm", [["x"], ["w"], ["axis"], ["n"], ["epsilon", 1e-6], ["dtype", null], ["compute_dtype", null]], (a, ctx) => {
    const x = arrayArg(a.x, "x", "nl.rms_norm", ctx);
    const n = toFloat(a.n, ctx).value, eps = toFloat(a.epsilon, ctx).value;
    return rmsNorm("nl.rms_norm", x, a.w, axesOf(a.axis, x.shape.length, ctx), n, eps, dtypeArg(a.dtype, ctx), dtypeArg(a.compute_dtype, ctx) ?? float32, ctx);
  }));
  out.set("abs_max", native("nl.abs_max", [["x"], ["y"], ["dtype", null], ["mask", null]], (a, ctx) => absPick("nl.abs_max", a.x, a.y, true, dtypeArg(a.dtype, ctx), ctx)));
  out.set("abs_min", native("nl.abs_min", [["x"], ["y"], ["dtype", null], ["mask", null]], (a, ctx) => absPick("nl.abs_min", a.x, a.y, false, dtypeArg(a.dtype, ctx), ctx)));
  out.set("gelu_apprx_sigmoid", native("nl.gelu_apprx_sigmoid", [["x"], ["dtype", null], ["mask", null]], (a, ctx) => {
    // x * sigmoid(1.702 x), the sigmoid approximation of GELU.
    const x = arrayArg(a.x, "x", "nl.gelu_apprx_sigmoid", ctx);
    const s = unaryOp("nl.gelu_apprx_sigmoid", "sigmoid", x, float32, null, ctx, {}, { scale: 1.702 });
    return tile(binaryOp("nl.gelu_apprx_sigmoid", "multiply", x, s, dtypeArg(a.dtype, ctx) ?? x.dtype, null, ctx), "nl.gelu_apprx_sigmoid", ctx);
  }));
  out.set("gelu_apprx_sigmoid_dx", native("nl.gelu_apprx_sigmoid_dx", [["x"], ["dtype", null], ["mask", null]], (a, ctx) => {
    // d/dx x s(1.702 x) = s + 1.702 x s (1 - s), s = sigmoid(1.702 x).
    const instr = "nl.gelu_apprx_sigmoid_dx";
    const x = arrayArg(a.x, "x", instr, ctx);
    const s = unaryOp(instr, "sigmoid", x, float32, null, ctx, {}, { scale: 1.702 });
    const oneMinus = tile(binaryOp(instr, "subtract", 1, s, float32, null, ctx), instr, ctx);
    const xs = tile(binaryOp(instr, "multiply", tile(binaryOp(instr, "multiply", x, 1.702, float32, null, ctx), instr, ctx), s, float32, null, ctx), instr, ctx);
    const slope = tile(binaryOp(instr, "multiply", xs, oneMinus, float32, null, ctx), instr, ctx);
    return tile(binaryOp(instr, "add", s, slope, dtypeArg(a.dtype, ctx) ?? x.dtype, null, ctx), instr, ctx);
  }));
  out.set("gather_flattened", native("nl.gather_flattened", [["data"], ["indices"], ["axis", 0], ["dtype", null]], (a, ctx) => {
    const instr = "nl.gather_flattened";
    return gatherInPartitions(instr, arrayArg(a.data, "data", instr, ctx), arrayArg(a.indices, "indices", instr, ctx), null, dtypeArg(a.dtype, ctx), ctx);
  }));
  out.set("expand_dims", native("nl.expand_dims", [["x"], ["axis"]], (a, ctx) => {
    const [axis] = intsArg(a.axis, "axis", ctx);
    return expandDims(arrayArg(a.x, "x", "nl.expand_dims", ctx), axis, ctx);
  }));
  const predicate = (name: string, test: (region: string) => boolean) =>
    out.set(name, native(`nl.${name}`, [["buffer"]], (a, ctx) => test(regionArg(a.buffer, `nl.${name}`, ctx))));
  predicate("is_hbm", (r) => r.endsWith("hbm"));
  predicate("is_on_chip", (r) => r === "sbuf" || r === "psum");
  predicate("is_psum", (r) => r === "psum");
  predicate("is_sbuf", (r) => r === "sbuf");
  return out;
}
