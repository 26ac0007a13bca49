// Instructions composed of engine instructions: nisa.tensor_tensor_scan (a column at a time),
// nisa.sequence_bounds (two scans), nisa.bn_stats and nisa.bn_aggr (per-partition mean and variance
// statistics) and nisa.nc_stream_shuffle (partitions moved within quadrants), made of engine
// reductions and element-wise instructions on strided views (even and odd elements; the
// (count, mean, variance * count) triples), in float32 as VectorE computes them.
import { PySlice, PyTuple, type CallContext } from "../python/values.js";
import { NkiArray } from "../machine/tile.js";
import { subscript } from "../machine/access.js";
import { float32, type NkiDType } from "../machine/nki-dtype.js";
import { shapeError, operand, checkUninit, type InputUse } from "../machine/instructions.js";
import { fullBox } from "../machine/access.js";
import { tileEngine, type BinaryOp, type Operand } from "../machine/engine.js";
import { binaryOp, copyInto, fillView, newTile, reduceOp, reshapedView, unaryOp } from "./compute.js";

const cols = (t: NkiArray, start: number, step: number, ctx: CallContext) => subscript(t, new PyTuple([new PySlice(null, null, null), new PySlice(start, null, step)]), ctx);

/** x as [P, F] (its free axes flattened). */
function flat2d(x: NkiArray, instr: string, ctx: CallContext): NkiArray {
  if (x.shape.length === 2) return x;
  return reshapedView(x, [x.shape[0], x.numel / x.shape[0]], instr, ctx);
}

/** bn_stats: [P, 6] = (count, mean, variance * count) of the even elements, then of the odd ones. */
export function bnStats(instr: string, data: NkiArray, dtype: NkiDType | null, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const x = flat2d(data, instr, ctx);
  const [P, F] = x.shape;
  if (F > 512) throw shapeError(instr, `takes at most 512 elements per partition (nl.tile_size.bn_stats_fmax); this tile has ${F}`, ctx);
  const out = dest ?? newTile([P, 6], dtype ?? float32, ctx);
  const o = flat2d(out, instr, ctx);
  for (const parity of [0, 1]) {
    const part = cols(x, parity, 2, ctx);
    const n = part.shape[1];
    const col = (k: number) => cols(o, 3 * parity + k, 6, ctx);
    fillView(instr, col(0), n, ctx);
    if (n === 0) { fillView(instr, col(1), 0, ctx); fillView(instr, col(2), 0, ctx); continue; }
    const mean = reduceOp(instr, "mean", part, [1], float32, true, null, ctx);
    copyInto(instr, col(1), mean, null, ctx);
    const diff = binaryOp(instr, "subtract", part, mean, float32, null, ctx) as NkiArray;
    const sq = unaryOp(instr, "square", diff, float32, null, ctx);
    reduceOp(instr, "add", sq, [1], null, true, null, ctx, { out: col(2) });
  }
  return out;
}

/** bn_aggr: [P, 2] = (mean, variance) of the elements the (count, mean, variance * count) triples describe. */
export function bnAggr(instr: string, data: NkiArray, dtype: NkiDType | null, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const x = flat2d(data, instr, ctx);
  const [P, F] = x.shape;
  if (F % 3 !== 0) throw shapeError(instr, `takes (count, mean, variance * count) triples; ${F} elements per partition is not a multiple of 3`, ctx);
  const counts = cols(x, 0, 3, ctx), means = cols(x, 1, 3, ctx), m2s = cols(x, 2, 3, ctx);
  const total = reduceOp(instr, "add", counts, [1], float32, true, null, ctx);
  const weighted = binaryOp(instr, "multiply", counts, means, float32, null, ctx) as NkiArray;
  const mean = binaryOp(instr, "divide", reduceOp(instr, "add", weighted, [1], float32, true, null, ctx), total, float32, null, ctx) as NkiArray;
  const dev = binaryOp(instr, "subtract", means, mean, float32, null, ctx) as NkiArray;
  const spread = binaryOp(instr, "multiply", unaryOp(instr, "square", dev, float32, null, ctx), counts, float32, null, ctx) as NkiArray;
  const m2 = binaryOp(instr, "add", reduceOp(instr, "add", m2s, [1], float32, true, null, ctx), reduceOp(instr, "add", spread, [1], float32, true, null, ctx), float32, null, ctx) as NkiArray;
  const variance = binaryOp(instr, "divide", m2, total, float32, null, ctx) as NkiArray;
  const out = dest ?? newTile([P, 2], dtype ?? float32, ctx);
  const o = flat2d(out, instr, ctx);
  copyInto(instr, cols(o, 0, 2, ctx), mean, null, ctx);
  copyInto(instr, cols(o, 1, 2, ctx), variance, null, ctx);
  return out;
}

/**
 * nc_stream_shuffle: in every quadrant of 32 partitions, dst partition i takes src partition
 * shuffle_mask[i] of the same quadrant (255 leaves it as it was). src is copied first, so dst may be
 * src (an in-place shuffle); each partition then moves with one engine copy.
 */
export function streamShuffle(instr: string, dst: NkiArray, src: NkiArray, mask: readonly number[], ctx: CallContext): void {
  if (mask.length !== 32) throw shapeError(instr, `shuffle_mask has ${mask.length} elements; it has one per partition of a quadrant (32)`, ctx);
  const snapshot = newTile(src.shape, src.dtype, ctx);
  copyInto(instr, snapshot, src, null, ctx);
  const row = (t: NkiArray, p: number) => subscript(t, new PySlice(p, p + 1, null), ctx);
  for (let i = 0; i < dst.shape[0]; i++) {
    const m = mask[i % 32];
    if (m === 255) continue;
    const from = Math.floor(i / 32) * 32 + m;
    if (from >= snapshot.shape[0]) throw shapeError(instr, `dst partition ${i} takes src partition ${from}, but src has ${snapshot.shape[0]} partitions`, ctx);
    copyInto(instr, row(dst, i), row(snapshot, from), null, ctx);
  }
}

/**
 * The scan of tensor_tensor_scan along the free axis: out[:, i] = op1(op0(x0[:, i], out[:, i-1]),
 * x1[:, i]), out[:, -1] = initial (a number or a [P, 1] tile). One engine instruction per column (a
 * tensor_scalar whose scalars are the previous column and x1's column), as the recurrence runs column
 * after column on VectorE too. Views with negative strides scan backwards.
 */
export function scanColumns(instr: string, d0: NkiArray, d1: NkiArray, initial: number | NkiArray, op0: BinaryOp, op1: BinaryOp, out: NkiArray, ctx: CallContext): void {
  const P = d0.shape[0], F = d0.numel / Math.max(1, P);
  const flat = (t: NkiArray, what: string) => (t.shape.length === 2 ? t : reshapedView(t, [P, F], `${instr} (${what})`, ctx));
  const x0 = flat(d0, "data0"), x1 = flat(d1, "data1"), o = flat(out, "dst");
  const col = (t: NkiArray, i: number) => t.view(t.offset + i * t.strides[1], [P, 1], [t.strides[0], 0], t.checks.map((c) => ({ ...c, off: c.off + i * c.coeffs[1] })));
  const box = fullBox([P, 1]);
  for (let i = 0; i < F; i++) {
    const used: (InputUse | null)[] = [];
    const c0 = col(x0, i), c1 = col(x1, i);
    const a0 = operand(c0, [P, 1], box, instr, ctx);
    used.push({ array: c0, op: a0 });
    const prevArray = i > 0 ? col(o, i - 1) : typeof initial === "number" ? null : initial;
    const prev: Operand | number = prevArray ? operand(prevArray, [P, 1], box, instr, ctx) : (initial as number);
    used.push(prevArray ? { array: prevArray, op: prev as Operand } : null);
    const b1 = operand(c1, [P, 1], box, instr, ctx);
    used.push({ array: c1, op: b1 });
    checkUninit(tileEngine().tensorScalar(operand(col(o, i), [P, 1], box, instr, ctx), a0, op0, prev, op1, b1), instr, used, ctx);
  }
}

/** t seen backwards along its last axis (a negative stride). */
function reversed(t: NkiArray): NkiArray {
  const last = t.shape.length - 1, n = t.shape[last];
  return t.view(t.offset + (n - 1) * t.strides[last], t.shape, t.strides.map((s, k) => (k === last ? -s : s)), []);
}

/**
 * sequence_bounds of segment ids [P, N] (0 is padding): [P, 2, N] holding, per element, the index where
 * its segment starts and the index just past where it ends (padding: N and -1). A boundary mask (ids
 * differing from the neighbour), then one forward and one backward scan of
 * out[i] = (1 - boundary[i]) * out[i - 1] + boundary[i] * position[i], then the padding selected in.
 */
export function sequenceBounds(instr: string, ids: NkiArray, dtype: NkiDType | null, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const x = flat2d(ids, instr, ctx);
  const [P, N] = x.shape;
  const out = dest ?? newTile([P, 2, N], dtype ?? ids.dtype, ctx);
  const index = newTile([P, N], float32, ctx);
  tileEngine().affine(operand(index, [P, N], fullBox([P, N]), instr, ctx), 0, [0, 1]);
  const isPadding = binaryOp(instr, "equal", x, 0, float32, null, ctx) as NkiArray;
  const bound = (forward: boolean) => {
    // boundary[i]: the first element of a run (forward) or the last (backward).
    const boundary = newTile([P, N], float32, ctx);
    const edge = cols(boundary, forward ? 0 : N - 1, N, ctx);
    fillView(instr, edge, 1, ctx);
    if (N > 1) {
      const inner = forward ? subscript(boundary, new PyTuple([new PySlice(null, null, null), new PySlice(1, null, null)]), ctx) : subscript(boundary, new PyTuple([new PySlice(null, null, null), new PySlice(0, N - 1, null)]), ctx);
      const here = subscript(x, new PyTuple([new PySlice(null, null, null), forward ? new PySlice(1, null, null) : new PySlice(0, N - 1, null)]), ctx);
      const there = subscript(x, new PyTuple([new PySlice(null, null, null), forward ? new PySlice(0, N - 1, null) : new PySlice(1, null, null)]), ctx);
      binaryOp(instr, "not_equal", here, there, null, null, ctx, { out: inner });
    }
    const position = forward ? index : (binaryOp(instr, "add", index, 1, float32, null, ctx) as NkiArray);
    const keep = binaryOp(instr, "subtract", 1, boundary, float32, null, ctx) as NkiArray;
    const start = binaryOp(instr, "multiply", boundary, position, float32, null, ctx) as NkiArray;
    const raw = newTile([P, N], float32, ctx);
    if (forward) scanColumns(instr, keep, start, 0, "multiply", "add", raw, ctx);
    else scanColumns(instr, reversed(keep), reversed(start), 0, "multiply", "add", reversed(raw), ctx);
    const row = subscript(out, new PyTuple([new PySlice(null, null, null), forward ? 0 : 1, new PySlice(null, null, null)]), ctx);
    const selected = newTile([P, N], float32, ctx);
    tileEngine().select(operand(selected, [P, N], fullBox([P, N]), instr, ctx), operand(isPadding, [P, N], fullBox([P, N]), instr, ctx), forward ? N : -1, operand(raw, [P, N], fullBox([P, N]), instr, ctx));
    copyInto(instr, row, selected, null, ctx);
  };
  bound(true);
  bound(false);
  return out;
}
