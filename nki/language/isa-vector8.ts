// The VectorE instructions over eight values per partition: max8 (the 8 largest, descending),
// nc_find_index8 (where each of 8 values first occurs) and nc_match_replace8 (replace them). The
// search runs in the tile engine (engine.max8 / findIndex8 / matchReplace8); here: shapes and operands.
import type { CallContext } from "../python/values.js";
import type { NkiArray } from "../machine/tile.js";
import { uint32, type NkiDType } from "../machine/nki-dtype.js";
import { tileEngine } from "../machine/engine.js";
import { operand, checkUninit, shapeError } from "../machine/instructions.js";
import { fullBox } from "../machine/access.js";
import { newTile } from "./compute.js";

function whole(a: NkiArray, instr: string, ctx: CallContext) {
  return operand(a, a.shape, fullBox(a.shape), instr, ctx);
}

/** A [P, 8] operand (dst, vals, dst_idx) of the same partitions as data. */
function requireEight(a: NkiArray, data: NkiArray, what: string, instr: string, ctx: CallContext): void {
  const perPartition = a.numel / Math.max(1, a.shape[0]);
  if (a.shape[0] !== data.shape[0] || perPartition !== 8) {
    throw shapeError(instr, `${what}${a.storage.name ? ` '${a.storage.name}'` : ""} has shape (${a.shape.join(", ")}); it must hold 8 elements in each of data's ${data.shape[0]} partitions`, ctx, { tile: a.storage.name });
  }
}

export function max8(instr: string, data: NkiArray, dest: NkiArray | null, dtype: NkiDType | null, ctx: CallContext): NkiArray {
  const out = dest ?? newTile([data.shape[0], 8], dtype ?? data.dtype, ctx);
  requireEight(out, data, "the output", instr, ctx);
  const d = whole(data, instr, ctx);
  checkUninit(tileEngine().max8(whole(out, instr, ctx), d), instr, [{ array: data, op: d }], ctx);
  return out;
}

export function findIndex8(instr: string, data: NkiArray, vals: NkiArray, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const out = dest ?? newTile([data.shape[0], 8], uint32, ctx);
  requireEight(out, data, "the output", instr, ctx);
  requireEight(vals, data, "vals", instr, ctx);
  const d = whole(data, instr, ctx), v = whole(vals, instr, ctx);
  checkUninit(tileEngine().findIndex8(whole(out, instr, ctx), d, v), instr, [{ array: data, op: d }, { array: vals, op: v }], ctx);
  return out;
}

export function matchReplace8(instr: string, data: NkiArray, vals: NkiArray, imm: number, indices: NkiArray | null, dest: NkiArray | null, ctx: CallContext): NkiArray {
  const out = dest ?? newTile(data.shape, data.dtype, ctx);
  requireEight(vals, data, "vals", instr, ctx);
  if (indices) requireEight(indices, data, "dst_idx", instr, ctx);
  const d = whole(data, instr, ctx), v = whole(vals, instr, ctx);
  const read = tileEngine().matchReplace8(operand(out, data.shape, fullBox(data.shape), instr, ctx), d, v, imm, indices ? whole(indices, instr, ctx) : undefined);
  checkUninit(read, instr, [{ array: data, op: d }, { array: vals, op: v }], ctx);
  return out;
}
