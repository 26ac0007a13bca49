// Indirect access (data_tensor[idx_tile, i_f]): the DMA reads each row's index from the index tile
// and moves that row. Here each row is one engine copy at the address its index gives; the index is
// checked against the dimension (oob_mode error: HbmAccessError naming it; skip: the row is left as it
// was) and must have been written (UninitializedTileError otherwise).
import type { CallContext } from "../python/values.js";
import { HbmAccessError, TileShapeError, UninitializedTileError } from "../../host/checks/errors.js";
import { hbm } from "../../host/device/hbm.js";
import type { NkiArray } from "./tile.js";
import type { Box } from "./access.js";
import { ENGINE_CODE } from "./nki-dtype.js";
import { atSite, errorDetails, shortSite } from "./site.js";
import { unflatten } from "./kernel-run.js";

export type OobMode = "error" | "skip";

/** The index row p of an indirect view holds (its element [p, 0]), read as the DMA reads it. */
function indexAt(v: NkiArray, p: number, instruction: string, ctx: CallContext): number {
  const idx = v.indirect!.index;
  const s = idx.storage;
  const element = idx.offset + p * idx.strides[0];
  if (s.initAddr !== 0 && hbm().bytes()[s.initAddr + element] === 0) {
    throw new UninitializedTileError(
      "E_NKI_UNINIT",
      `${instruction} reads index element [${unflatten(element, s.shape).join(", ")}] of tile${s.name ? ` '${s.name}'` : ""} (${s.kind} ${s.dtype.name}[${s.shape.join(", ")}]${s.site ? `, allocated at ${shortSite(s.site)}` : ""}) before any instruction wrote it${atSite(ctx.site)}`,
      { details: errorDetails(ctx.site, { instruction, tile: s.name, index: unflatten(element, s.shape) }) },
    );
  }
  const view = hbm().view();
  const at = s.addr + element * s.dtype.bytes;
  switch (s.dtype.code) {
    case ENGINE_CODE.i32: return view.getInt32(at, true);
    case ENGINE_CODE.u32: return view.getUint32(at, true);
    case ENGINE_CODE.i16: return view.getInt16(at, true);
    case ENGINE_CODE.u16: return view.getUint16(at, true);
    case ENGINE_CODE.i8: return view.getInt8(at);
    case ENGINE_CODE.u8: return view.getUint8(at);
    case ENGINE_CODE.i64: return Number(view.getBigInt64(at, true));
  }
  throw new TileShapeError("E_NKI_SHAPE", `${instruction}: an index tile must hold integers; it is ${s.dtype.name}${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
}

/**
 * Runs `copyRow(view, rowBox)` for every row of `box` of the indirect view `v` (the others, `dst` or
 * `src`, use the same row box): the view's offset moved to the row's index. Out-of-range indices are
 * HbmAccessError (oob_mode error) or skipped rows (oob_mode skip).
 */
export function forEachIndirectRow(v: NkiArray, box: Box, oob: OobMode, instruction: string, ctx: CallContext, copyRow: (row: NkiArray, rowBox: Box) => void): void {
  const ind = v.indirect!;
  if (ind.index.shape[0] < v.shape[0]) {
    throw new TileShapeError("E_NKI_SHAPE", `${instruction}: the index tile has ${ind.index.shape[0]} rows for an access of ${v.shape[0]}${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
  }
  for (let p = box.lo[0]; p < box.hi[0]; p++) {
    const i = indexAt(v, p, instruction, ctx);
    if (i < 0 || i >= ind.size) {
      if (oob === "skip") continue;
      const s = v.storage;
      throw new HbmAccessError(
        "E_NKI_HBM_RANGE",
        `${instruction}: index ${i} (row ${p} of the index tile${ind.index.storage.name ? ` '${ind.index.storage.name}'` : ""}) of dimension ${ind.dim} of ${s.describe()} outside the allowed range 0..${ind.size - 1} (oob_mode=error)${atSite(ctx.site)}`,
        { details: errorDetails(ctx.site, { instruction, tensor: s.name, dim: ind.dim, asked: [i, i], allowed: [0, ind.size - 1], row: p }) },
      );
    }
    const row = v.view(v.offset + i * ind.stride, v.shape, v.strides, v.checks);
    copyRow(row, { lo: [p, ...box.lo.slice(1)], hi: [p + 1, ...box.hi.slice(1)] });
  }
}
