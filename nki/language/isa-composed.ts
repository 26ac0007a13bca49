// VectorE instructions composed of engine instructions: nisa.bn_stats and nisa.bn_aggr (per-partition
// mean and variance statistics) and nisa.nc_stream_shuffle (partitions moved within quadrants), made of engine
// reductions and element-wise instructions on strided views (even and odd elements; the
// (count, mean, variance * count) triples), in float32 as VectorE computes them.
import { PySlice, PyTuple, type CallContext } from "../python/values.js";
import { NkiArray } from "../machine/tile.js";
import { subscript } from "../machine/access.js";
import { float32, type NkiDType } from "../machine/nki-dtype.js";
import { shapeError } from "../machine/instructions.js";
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
