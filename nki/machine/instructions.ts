// The step from NKI views to engine instructions: a view (with the sub-box a mask allows) becomes an
// engine Operand (byte address, dtype, shape, element strides, init-map address); inputs broadcast to
// the output's shape (numpy rules, right-aligned: size-1 axes get stride 0). Bounds checks run over
// the elements touched; an engine report of an unwritten element becomes UninitializedTileError.
import type { CallContext } from "../python/values.js";
import { NkiSyntaxError, TileShapeError, UninitializedTileError } from "../../host/checks/errors.js";
import type { EngineDType, Operand, UninitRead } from "./engine.js";
import { checkAccess, fullBox, type Box } from "./access.js";
import type { NkiArray } from "./tile.js";
import { unflatten } from "./kernel-run.js";
import { atSite, errorDetails, shortSite } from "./site.js";
import { noteInstruction, noteOperand } from "../checks/hooks.js";

/** An instruction's input as the engine saw it (null where the engine took a scalar): UninitRead.operand indexes these. */
export interface InputUse { readonly array: NkiArray; readonly op: Operand }

/** Numpy's broadcast of shapes; TileShapeError E_NKI_SHAPE naming the instruction when they do not broadcast. */
export function broadcastShapes(shapes: readonly (readonly number[])[], instruction: string, ctx: CallContext): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    const pad = rank - s.length;
    s.forEach((n, k) => {
      const o = out[pad + k];
      if (n === o || n === 1) return;
      if (o === 1) { out[pad + k] = n; return; }
      throw shapeError(instruction, `operand shapes ${shapes.map((x) => `(${x.join(", ")})`).join(" and ")} do not broadcast together`, ctx, { shapes: shapes.map((x) => [...x]) });
    });
  }
  return out;
}

export function shapeError(instruction: string, why: string, ctx: CallContext, details: Record<string, unknown> = {}): TileShapeError {
  return new TileShapeError("E_NKI_SHAPE", `${instruction}: ${why}${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { instruction, ...details }) });
}

/**
 * The operand for view `a` over the output box of an instruction whose output has shape `outShape`;
 * `a` broadcasts to outShape (a size-1 axis repeats). Runs a's bounds checks over the elements read.
 */
/**
 * The error for an operand whose shape does not fit the instruction's. A view that is itself outside
 * its tile or tensor (t[:, 0:600] of a [128, 512] tile) is reported as that, E_NKI_TILE_RANGE or
 * E_NKI_HBM_RANGE naming it: the shape mismatch is only its consequence.
 */
function misfit(a: NkiArray, why: string, outShape: readonly number[], instruction: string, ctx: CallContext): TileShapeError {
  checkAccess(a, fullBox(a.shape), instruction, ctx);
  const name = a.storage.name ? `'${a.storage.name}' ` : "";
  return shapeError(instruction, `the operand ${name}of shape (${a.shape.join(", ")}) ${why}`, ctx, { tile: a.storage.name, shapes: [[...a.shape], [...outShape]] });
}

export function operand(a: NkiArray, outShape: readonly number[], box: Box, instruction: string, ctx: CallContext, dtype?: EngineDType): Operand {
  const rank = outShape.length;
  if (a.shape.length > rank) throw misfit(a, `does not fit the output shape (${outShape.join(", ")})`, outShape, instruction, ctx);
  if (a.indirect) throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `${instruction}: a view indexed by a tile (indirect access) can only be loaded, stored or DMA-copied${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { instruction }) });
  if (a.shape.length < rank && a.shape.length > 0 && !a.storage.isHbm) a = partitionAligned(a, rank);
  const pad = rank - a.shape.length;
  const lo: number[] = [], hi: number[] = [];
  const strides: number[] = [];
  let first = a.offset;
  for (let k = 0; k < rank; k++) {
    const n = k < pad ? 1 : a.shape[k - pad];
    if (n === outShape[k]) {
      const s = k < pad ? 0 : a.strides[k - pad];
      strides.push(s);
      first += s * box.lo[k];
      if (k >= pad) { lo.push(box.lo[k]); hi.push(box.hi[k]); }
    } else if (n === 1) {
      strides.push(0);
      if (k >= pad) { lo.push(0); hi.push(1); }
    } else {
      throw misfit(a, `does not broadcast to (${outShape.join(", ")})`, outShape, instruction, ctx);
    }
  }
  checkAccess(a, { lo, hi }, instruction, ctx);
  const s = a.storage;
  return noteOperand(s, {
    addr: s.addr + first * s.dtype.bytes,
    dtype: (dtype ?? s.dtype.code) as EngineDType,
    shape: outShape.map((_, k) => box.hi[k] - box.lo[k]),
    strides,
    init: s.initAddr === 0 ? 0 : s.initAddr + first,
  });
}

/**
 * A tile of lower rank seen with `rank` axes: its first axis stays the partition axis and size-1 axes
 * are inserted after it (a [128] tile is 128 partitions of one element, so it broadcasts along the
 * free axes of a [128, 512] one), where numpy would align it with the last axis.
 */
export function partitionAligned(a: NkiArray, rank: number): NkiArray {
  const extra = rank - a.shape.length;
  if (extra <= 0 || a.shape.length === 0 || a.storage.isHbm) return a;
  const ones = new Array<number>(extra).fill(1), zeros = new Array<number>(extra).fill(0);
  return a.view(a.offset, [a.shape[0], ...ones, ...a.shape.slice(1)], [a.strides[0], ...zeros, ...a.strides.slice(1)],
    a.checks.map((c) => ({ ...c, coeffs: [c.coeffs[0], ...zeros, ...c.coeffs.slice(1)] })));
}

/** The shapes of instruction inputs as they broadcast: tiles aligned on their partition axis (partitionAligned). */
export function alignedShapes(arrays: readonly NkiArray[]): (readonly number[])[] {
  const rank = Math.max(0, ...arrays.map((a) => a.shape.length));
  return arrays.map((a) => partitionAligned(a, rank).shape);
}

/** The operand for an output view over the box (no broadcasting: the view is the output). */
export function outOperand(out: NkiArray, box: Box, instruction: string, ctx: CallContext): Operand {
  return operand(out, out.shape, box, instruction, ctx);
}

/** The whole-view box of a shape. */
export { fullBox };

/**
 * Turns the engine's report of a read before any write into UninitializedTileError E_NKI_UNINIT naming
 * the instruction, the tile (its variable and allocation line) and the element's index in the tile.
 */
export function checkUninit(read: UninitRead | null | void, instruction: string, inputs: readonly (InputUse | null)[], ctx: CallContext): void {
  noteInstruction(instruction, inputs, ctx); // the checks and the profiler follow every instruction from here
  if (!read) return;
  const used = inputs[read.operand];
  if (!used) throw new Error(`engine reported an uninitialised read of operand ${read.operand} of ${instruction}, which has no such input`);
  const { array, op } = used;
  const s = array.storage;
  let flat = (op.addr - s.addr) / s.dtype.bytes;
  read.index.forEach((i, k) => { flat += op.strides[k] * i; });
  const index = unflatten(flat, s.shape);
  const what = s.isHbm ? "HBM tensor" : "tile";
  throw new UninitializedTileError(
    "E_NKI_UNINIT",
    `${instruction} reads element [${index.join(", ")}] of ${what}${s.name ? ` '${s.name}'` : ""} (${s.kind} ${s.dtype.name}[${s.shape.join(", ")}]` +
      `${s.site ? `, allocated at ${shortSite(s.site)}` : ""}) before any instruction wrote it${atSite(ctx.site)}`,
    { details: errorDetails(ctx.site, { instruction, tile: s.name, buffer: s.kind, index, shape: [...s.shape], allocated: s.site ? { file: s.site.file, line: s.site.line } : undefined }) },
  );
}
