// The language's instructions over tiles: element-wise unary and binary operations, selects,
// reductions, copies and fills, each one engine instruction (never a loop over elements here).
// Output tiles are new SBUF tiles unless the caller passes a destination view.
import { PyException, PyFloat, type CallContext, type PyValue } from "../python/values.js";
import { NkiDTypeError, TileShapeError } from "../../host/checks/errors.js";
import { tileEngine } from "../machine/engine.js";
import type { Operand, BinaryOp, UnaryOp, ReduceOp } from "../machine/engine.js";
import { NkiArray } from "../machine/tile.js";
import { currentRun } from "../machine/kernel-run.js";
import { float32, promote, bool_, uint8, type NkiDType } from "../machine/nki-dtype.js";
import { operand, broadcastShapes, alignedShapes, checkUninit, shapeError, type InputUse } from "../machine/instructions.js";
import { checkAccess, fullBox, type Box } from "../machine/access.js";
import { MaskExpr, maskBox } from "../machine/index-expr.js";
import { forEachIndirectRow, type OobMode } from "../machine/indirect.js";
import { atSite, errorDetails } from "../machine/site.js";
import { typeName } from "./args.js";

/** A Python int/float/bool as a number; undefined for anything else. */
export function scalarOf(v: PyValue): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "boolean") return v ? 1 : 0;
  return undefined;
}

export function isFloatScalar(v: PyValue): boolean { return v instanceof PyFloat; }

/** The tile argument `what` of `instruction`: a TypeError naming both otherwise. */
export function arrayArg(v: PyValue, what: string, instruction: string, ctx: CallContext): NkiArray {
  if (v instanceof NkiArray) return v;
  throw new PyException("TypeError", `${instruction}: ${what} must be a tile or tensor, not ${typeName(v)}`, ctx.site);
}

/** The box a mask= argument allows over an output shape (the whole output without one). */
export function boxOf(mask: PyValue, shape: readonly number[], ctx: CallContext): Box {
  if (mask === null || mask === undefined) return fullBox(shape);
  if (mask instanceof MaskExpr) return maskBox(mask, shape, ctx);
  if (mask === true) return fullBox(shape);
  throw new PyException("TypeError", `mask must be a comparison of index expressions such as (i_p < n), not ${typeName(mask)}`, ctx.site);
}

/** A new SBUF tile for an instruction's result; its name comes from the line that assigns it. */
export function newTile(shape: readonly number[], dtype: NkiDType, ctx: CallContext, buffer: "sbuf" | "psum" = "sbuf"): NkiArray {
  return currentRun(ctx.site).allocTile(buffer, shape, dtype, ctx.site, undefined);
}

/** Engine ops that compute transcendental functions: float inputs only. */
const FLOAT_ONLY = new Set(["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "arctan", "sigmoid", "gelu", "gelu_apprx_tanh",
  "gelu_dx", "silu", "silu_dx", "softplus", "mish", "erf", "erf_dx", "reciprocal"]);
/** Engine ops that treat elements as bit patterns: integer inputs only. */
const INT_ONLY = new Set(["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "left_shift", "right_shift"]);

export function dtypeError(instruction: string, why: string, ctx: CallContext, dtype: NkiDType): NkiDTypeError {
  return new NkiDTypeError("E_NKI_DTYPE", `${instruction}: ${why}${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { instruction, dtype: dtype.name }) });
}

function checkOpDType(op: string, instruction: string, inputs: NkiArray[], out: NkiDType, ctx: CallContext): void {
  for (const a of inputs) {
    if (FLOAT_ONLY.has(op) && !a.dtype.isFloat && !out.isFloat) {
      throw dtypeError(instruction, `takes a float tile (float32, bfloat16, float16); '${a.storage.name ?? "the input"}' is ${a.dtype.name} (pass dtype=nl.float32 to compute in float)`, ctx, a.dtype);
    }
    if (INT_ONLY.has(op) && a.dtype.isFloat) {
      throw dtypeError(instruction, `takes integer tiles (a bitwise operation); '${a.storage.name ?? "the input"}' is ${a.dtype.name}`, ctx, a.dtype);
    }
  }
}

/** The result dtype of an element-wise instruction without dtype=: NKI's promotion, scalars included. */
export function resultDType(inputs: PyValue[]): NkiDType {
  let t: NkiDType | null = null;
  let floatScalar = false;
  for (const v of inputs) {
    if (v instanceof NkiArray) t = t ? promote(t, v.dtype) : v.dtype;
    else if (isFloatScalar(v)) floatScalar = true;
  }
  if (!t) return float32;
  if (floatScalar && !t.isFloat) return float32;
  return t === bool_ ? uint8 : t;
}

interface Dest { out?: NkiArray; }

function destination(shape: readonly number[], dtype: NkiDType, ctx: CallContext, dest: Dest): NkiArray {
  if (dest.out) return dest.out;
  return newTile(shape, dtype, ctx);
}

/** out = op(x, y) element-wise (either may be a scalar); a new tile unless dest.out is given. */
export function binaryOp(instruction: string, op: string, x: PyValue, y: PyValue, dtype: NkiDType | null, mask: PyValue, ctx: CallContext, dest: Dest = {}): PyValue {
  const xs = scalarOf(x), ys = scalarOf(y);
  if (xs !== undefined && ys !== undefined) throw new PyException("TypeError", `${instruction} needs at least one tile operand`, ctx.site);
  const xa = xs === undefined ? arrayArg(x, "x", instruction, ctx) : null;
  const ya = ys === undefined ? arrayArg(y, "y", instruction, ctx) : null;
  const arrays = [xa, ya].filter((a): a is NkiArray => a !== null);
  const outDType = dtype ?? (dest.out ? dest.out.dtype : resultDType([x, y]));
  checkOpDType(op, instruction, arrays, outDType, ctx);
  const shape = dest.out ? [...dest.out.shape] : broadcastShapes(alignedShapes(arrays), instruction, ctx);
  const out = destination(shape, outDType, ctx, dest);
  const box = boxOf(mask, out.shape, ctx);
  const outOp = operand(out, out.shape, box, instruction, ctx);
  const used: (InputUse | null)[] = [];
  const opnd = (a: NkiArray | null, s: number | undefined): Operand | number => {
    if (a === null) { used.push(null); return s!; }
    const o = operand(a, out.shape, box, instruction, ctx);
    used.push({ array: a, op: o });
    return o;
  };
  const xo = opnd(xa, xs), yo = opnd(ya, ys);
  checkUninit(tileEngine().binary(op as BinaryOp, outOp, xo, yo), instruction, used, ctx);
  return out;
}

/** out = op(x) element-wise. */
export function unaryOp(instruction: string, op: string, x: PyValue, dtype: NkiDType | null, mask: PyValue, ctx: CallContext, dest: Dest = {}, params?: { scale?: number; bias?: Operand | number; alpha?: number }, extraInputs: (InputUse | null)[] = []): NkiArray {
  const xa = arrayArg(x, "x", instruction, ctx);
  const outDType = dtype ?? (dest.out ? dest.out.dtype : xa.dtype === bool_ ? uint8 : xa.dtype);
  checkOpDType(op, instruction, [xa], outDType, ctx);
  const out = destination(xa.shape, outDType, ctx, dest);
  const box = boxOf(mask, out.shape, ctx);
  const outOp = operand(out, out.shape, box, instruction, ctx);
  const xo = operand(xa, out.shape, box, instruction, ctx);
  checkUninit(tileEngine().unary(op as UnaryOp, outOp, xo, params), instruction, [{ array: xa, op: xo }, ...extraInputs], ctx);
  return out;
}

/** Copies `src` (broadcast) into the view `dst` over the mask's box, converting to dst's dtype. */
export function copyInto(instruction: string, dst: NkiArray, src: PyValue, mask: PyValue, ctx: CallContext, oob: OobMode = "error"): void {
  const s = scalarOf(src);
  const box = boxOf(mask, dst.shape, ctx);
  if (dst.indirect || (src instanceof NkiArray && src.indirect)) {
    indirectMove(instruction, dst, arrayArg(src, "value", instruction, ctx), box, oob, null, ctx);
    return;
  }
  const outOp = operand(dst, dst.shape, box, instruction, ctx);
  if (s !== undefined) {
    checkUninit(tileEngine().fill(outOp, s), instruction, [], ctx);
    return;
  }
  const a = arrayArg(src, "value", instruction, ctx);
  if (a.numel === dst.numel && !sameShape(a.shape, dst.shape) && (a.shape.length !== dst.shape.length || sameShapeModuloOnes(a.shape, dst.shape))) {
    // The same elements in another arrangement (a [128] reduction into a [128, 1] view, a [128, 1, 512]
    // tile into [128, 512]): copied element for element in row-major order, as NKI's stores do.
    const flat = reshapedView(a, dst.shape, instruction, ctx);
    const srcOp = operand(flat, dst.shape, box, instruction, ctx);
    checkUninit(tileEngine().unary("copy", outOp, srcOp), instruction, [{ array: flat, op: srcOp }], ctx);
    return;
  }
  const srcOp = operand(a, dst.shape, box, instruction, ctx);
  checkUninit(tileEngine().unary("copy", outOp, srcOp), instruction, [{ array: a, op: srcOp }], ctx);
}

/**
 * A copy (or, with rmwOp, dst = dst op src: a scatter-add) where dst or src is indexed by a tile:
 * row by row at the rows the index tile names (see machine/indirect.ts).
 */
export function indirectMove(instruction: string, dst: NkiArray, src: NkiArray, box: Box, oob: OobMode, rmwOp: string | null, ctx: CallContext): void {
  const viaDst = dst.indirect !== undefined;
  if (viaDst && src.indirect) throw shapeError(instruction, "both sides of a copy are indexed by tiles", ctx);
  forEachIndirectRow(viaDst ? dst : src, box, oob, instruction, ctx, (row, rowBox) => {
    const d = viaDst ? row : dst, x = viaDst ? src : row;
    const outOp = operand(d, dst.shape, rowBox, instruction, ctx);
    const srcOp = operand(x, dst.shape, rowBox, instruction, ctx);
    if (rmwOp === null) {
      checkUninit(tileEngine().unary("copy", outOp, srcOp), instruction, [{ array: x, op: srcOp }], ctx);
    } else {
      const oldOp = operand(d, dst.shape, rowBox, instruction, ctx);
      checkUninit(tileEngine().binary(rmwOp as BinaryOp, outOp, oldOp, srcOp), instruction, [{ array: d, op: oldOp }, { array: x, op: srcOp }], ctx);
    }
  });
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((n, k) => n === b[k]);
}

function sameShapeModuloOnes(a: readonly number[], b: readonly number[]): boolean {
  const x = a.filter((n) => n !== 1), y = b.filter((n) => n !== 1);
  return x.length === y.length && x.every((n, k) => n === y[k]);
}

/**
 * The view `a` seen with another shape of the same element count, when its strides allow it without a
 * copy (numpy's no-copy reshape); TileShapeError otherwise. a's subscript checks run first, over the
 * whole view.
 */
export function reshapedView(a: NkiArray, shape: readonly number[], instruction: string, ctx: CallContext): NkiArray {
  const strides = nocopyReshape(a.shape, a.strides, shape);
  if (!strides) throw shapeError(instruction, `a view of shape (${a.shape.join(", ")}) cannot be seen as (${shape.join(", ")}) without a copy`, ctx);
  checkAccess(a, fullBox(a.shape), instruction, ctx);
  return a.view(a.offset, shape, strides, []);
}

/** numpy's _attempt_nocopy_reshape: the strides of the new shape, or null when a copy would be needed. */
export function nocopyReshape(oldShape: readonly number[], oldStrides: readonly number[], newShape: readonly number[]): number[] | null {
  const count = (s: readonly number[]) => s.reduce((p, q) => p * q, 1);
  if (count(oldShape) !== count(newShape)) return null;
  const od: number[] = [], os: number[] = [];
  oldShape.forEach((n, k) => { if (n !== 1) { od.push(n); os.push(oldStrides[k]); } });
  const nd = newShape.length;
  const ns = new Array<number>(nd).fill(0);
  let oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < nd && oi < od.length) {
    let np = newShape[ni], op = od[oi];
    while (np !== op) {
      if (np < op) np *= newShape[nj++];
      else op *= od[oj++];
    }
    for (let ok = oi; ok < oj - 1; ok++) if (os[ok] !== od[ok + 1] * os[ok + 1]) return null;
    ns[nj - 1] = os[oj - 1];
    for (let nk = nj - 1; nk > ni; nk--) ns[nk - 1] = ns[nk] * newShape[nk];
    ni = nj++;
    oi = oj++;
  }
  return ns;
}

/** A scalar fill of a view. */
export function fillView(instruction: string, dst: NkiArray, value: number, ctx: CallContext, mask: PyValue = null): void {
  const box = boxOf(mask, dst.shape, ctx);
  checkUninit(tileEngine().fill(operand(dst, dst.shape, box, instruction, ctx), value), instruction, [], ctx);
}

/** Reduction axes as non-negative ints; axis 0 (the partition axis) is refused. */
export function reductionAxes(axes: number[], rank: number, instruction: string, ctx: CallContext): number[] {
  const out = axes.map((a) => (a < 0 ? a + rank : a));
  for (const a of out) {
    if (a === 0) {
      throw new TileShapeError("E_NKI_SHAPE", `${instruction}: axis 0 is the partition axis; reductions run along free axes (1..${rank - 1}) only${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { instruction, axis: 0 }) });
    }
    if (a < 0 || a >= rank) throw new PyException("ValueError", `${instruction}: axis ${a} is out of range for a tile of ${rank} dimensions`, ctx.site);
  }
  return [...new Set(out)].sort((p, q) => p - q);
}

/** op-reduce x along axes (free axes only) into a new tile. */
export function reduceOp(instruction: string, op: string, x: PyValue, axesIn: number[], dtype: NkiDType | null, keepdims: boolean, mask: PyValue, ctx: CallContext, dest: Dest = {}): NkiArray {
  const xa = arrayArg(x, "x", instruction, ctx);
  const axes = reductionAxes(axesIn, xa.shape.length, instruction, ctx);
  const kept = xa.shape.map((n, k) => (axes.includes(k) ? 1 : n));
  const shape = keepdims ? kept : xa.shape.filter((_, k) => !axes.includes(k));
  const outDType = dtype ?? (dest.out ? dest.out.dtype : xa.dtype === bool_ ? uint8 : xa.dtype);
  if (INT_ONLY.has(op) && xa.dtype.isFloat) throw dtypeError(instruction, `takes integer tiles (a bitwise reduction); '${xa.storage.name ?? "the input"}' is ${xa.dtype.name}`, ctx, xa.dtype);
  const out = dest.out ?? newTile(shape, outDType, ctx);
  const box = boxOf(mask, xa.shape, ctx);
  // The output seen with the input's rank (reduced axes of size 1), as the engine takes it.
  const outKept = out.view(out.offset, kept, keptStrides(out, kept, axes), []);
  const outBox = { lo: box.lo.map((l, k) => (axes.includes(k) ? 0 : l)), hi: box.hi.map((h, k) => (axes.includes(k) ? 1 : h)) };
  const outOp = operand(outKept, kept, outBox, instruction, ctx);
  const xo = operand(xa, xa.shape, box, instruction, ctx);
  checkUninit(tileEngine().reduce(op as ReduceOp, outOp, xo, axes), instruction, [{ array: xa, op: xo }], ctx);
  return out;
}

function keptStrides(out: NkiArray, kept: readonly number[], axes: number[]): number[] {
  if (out.shape.length === kept.length) return [...out.strides];
  const strides: number[] = [];
  let j = 0;
  for (let k = 0; k < kept.length; k++) strides.push(axes.includes(k) ? 0 : out.strides[j++]);
  return strides;
}
