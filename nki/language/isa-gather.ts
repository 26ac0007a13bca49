// Gathers within partitions: nisa.nc_n_gather and nl.gather_flattened. out[p, ...j] =
// data[p, indices[p, ...j]], the index counting data's free elements of partition p in row-major
// order (the tile engine's gather); an index outside them is TileShapeError E_NKI_TILE_RANGE.
import type { CallContext } from "../python/values.js";
import { TileShapeError } from "../../host/checks/errors.js";
import type { NkiArray } from "../machine/tile.js";
import type { NkiDType } from "../machine/nki-dtype.js";
import { tileEngine } from "../machine/engine.js";
import { operand, checkUninit, shapeError } from "../machine/instructions.js";
import { fullBox } from "../machine/access.js";
import { atSite, errorDetails } from "../machine/site.js";
import { newTile, dtypeError } from "./compute.js";

export function gatherInPartitions(instr: string, data: NkiArray, indices: NkiArray, dest: NkiArray | null, dtype: NkiDType | null, ctx: CallContext): NkiArray {
  if (indices.dtype.isFloat) throw dtypeError(instr, `takes integer indices; '${indices.storage.name ?? "indices"}' is ${indices.dtype.name}`, ctx, indices.dtype);
  if (data.shape[0] !== indices.shape[0]) {
    throw shapeError(instr, `data has ${data.shape[0]} partitions and indices ${indices.shape[0]}; a gather stays within each partition`, ctx, { shapes: [[...data.shape], [...indices.shape]] });
  }
  const out = dest ?? newTile(indices.shape, dtype ?? data.dtype, ctx);
  if (out.numel !== indices.numel) throw shapeError(instr, `the output has shape (${out.shape.join(", ")}); it must hold the indices' (${indices.shape.join(", ")})`, ctx);
  const outView = out.shape.length === indices.shape.length ? out : out.view(out.offset, indices.shape, contiguous(indices.shape, out.strides[0]), out.checks);
  const d = operand(data, data.shape, fullBox(data.shape), instr, ctx);
  const i = operand(indices, indices.shape, fullBox(indices.shape), instr, ctx);
  const read = tileEngine().gather(operand(outView, indices.shape, fullBox(indices.shape), instr, ctx), d, i);
  if (read && "outOfRange" in read) {
    const name = indices.storage.name;
    throw new TileShapeError("E_NKI_TILE_RANGE",
      `${instr}: index ${read.value} at [${read.index.join(", ")}] of the indices${name ? ` '${name}'` : ""} is outside the ${read.size} free elements of each partition of data${data.storage.name ? ` '${data.storage.name}'` : ""} (allowed 0..${read.size - 1})${atSite(ctx.site)}`,
      { details: errorDetails(ctx.site, { instruction: instr, tile: name, index: read.index, value: read.value, allowed: [0, read.size - 1] }) });
  }
  checkUninit(read, instr, [{ array: data, op: d }, { array: indices, op: i }], ctx);
  return out;
}

/** Row-major strides of shape with the given partition stride (a contiguous destination seen as the indices' shape). */
function contiguous(shape: readonly number[], partitionStride: number): number[] {
  return shape.map((_, k) => (k === 0 ? partitionStride : shape.slice(k + 1).reduce((a, b) => a * b, 1)));
}
