// Subscripts of tiles and HBM tensors: ints, slices (steps, negative indices as Python), nl.ds(start,
// size), ..., None, and index expressions (nl.arange / nl.mgrid, combined affinely). Each resolves to
// a view (element offset, shape, strides) whose shape follows numpy's rules: basic indexing when only
// ints/slices are given; with index expressions, their broadcast shape (placed as numpy places
// advanced-index dimensions). Slices are not clamped: a[0:200] on 128 rows asks for rows 128..199,
// which the bounds checks (run by the instruction, see checkAccess) report.
import { HostObject, PyException, PySlice, PyTuple, Ellipsis, type CallContext, type PyValue } from "../python/values.js";
import { HbmAccessError, NkiSyntaxError, TileShapeError } from "../../host/checks/errors.js";
import { IndexExpr, IndexGrid, asInt } from "./index-expr.js";
import { NkiArray, type DimCheck } from "./tile.js";
import { atSite, errorDetails } from "./site.js";

/** nl.ds(start, size): a dynamic slice of `size` elements from `start`. */
export class DynSlice extends HostObject {
  readonly typeName = "DynSlice";
  constructor(readonly start: number, readonly size: number, readonly step = 1) { super(); }
  override repr(): string { return `ds(${this.start}, ${this.size})`; }
}

/** How one view dimension maps onto the new view's axes. */
interface DimMap { dim: number; off: number; coeffs: number[]; }

type Item =
  | { kind: "int"; value: number }
  | { kind: "slice"; start: number; len: number; step: number }
  | { kind: "expr"; expr: IndexExpr }
  | { kind: "tile"; tile: NkiArray }
  | { kind: "none" };

function describe(v: PyValue): string {
  if (v instanceof HostObject) return v.typeName;
  if (v === null) return "None";
  return typeof v === "object" ? v.constructor.name : typeof v;
}

function toItem(v: PyValue, size: number, ctx: CallContext): Item {
  if (v === null) return { kind: "none" };
  if (typeof v === "number" || typeof v === "boolean") {
    const i = asInt(v, ctx);
    return { kind: "int", value: i < 0 ? i + size : i };
  }
  if (v instanceof PySlice) {
    const step = v.step === null ? 1 : asInt(v.step, ctx);
    if (step === 0) throw new PyException("ValueError", "slice step cannot be zero", ctx.site);
    const norm = (x: PyValue, dflt: number) => {
      if (x === null) return dflt;
      const i = asInt(x, ctx);
      return i < 0 ? i + size : i;
    };
    // Unclamped, so an access past the end is reported, not shortened.
    const start = norm(v.start, step > 0 ? 0 : size - 1);
    const stop = norm(v.stop, step > 0 ? size : -1);
    const len = Math.max(0, Math.ceil((stop - start) / step));
    return { kind: "slice", start, len, step };
  }
  if (v instanceof DynSlice) return { kind: "slice", start: v.start, len: v.size, step: v.step };
  if (v instanceof IndexExpr) return { kind: "expr", expr: v };
  if (v instanceof NkiArray && !v.storage.isHbm && !v.dtype.isFloat) return { kind: "tile", tile: v };
  throw new NkiSyntaxError(
    "E_NKI_UNSUPPORTED",
    `a tile or tensor index must be an int, a slice, nl.ds(...), ..., None or an index expression (nl.arange, nl.mgrid); got ${describe(v)}${atSite(ctx.site)}`,
    { details: errorDetails(ctx.site) },
  );
}

/** a[key]: the view key selects from `a` (checks are recorded, run later by checkAccess). */
export function subscript(a: NkiArray, key: PyValue, ctx: CallContext): NkiArray {
  const raw = key instanceof PyTuple ? [...key.items] : key instanceof IndexGrid ? [...key.exprs] : [key];
  const consuming = raw.filter((k) => k !== null && k !== Ellipsis).length;
  if (raw.filter((k) => k === Ellipsis).length > 1) throw new PyException("IndexError", "an index can only have a single ellipsis ('...')", ctx.site);
  if (consuming > a.shape.length) {
    throw new PyException("IndexError", `too many indices: ${a.typeName} of shape (${a.shape.join(", ")}) has ${a.shape.length} dimensions but ${consuming} were indexed`, ctx.site);
  }
  // Expand ... and the missing trailing dimensions into full slices.
  const full = new PySlice(null, null, null);
  const expanded: PyValue[] = [];
  for (const k of raw) {
    if (k === Ellipsis) for (let j = 0; j < a.shape.length - consuming; j++) expanded.push(full);
    else expanded.push(k);
  }
  let used = expanded.filter((k) => k !== null).length;
  while (used++ < a.shape.length) expanded.push(full);

  // Pair every item with the dimension it consumes.
  const items: { item: Item; dim: number }[] = [];
  let dim = 0;
  for (const k of expanded) {
    const size = k === null ? 1 : a.shape[dim];
    const item = toItem(k, size, ctx);
    items.push({ item, dim: item.kind === "none" ? -1 : dim });
    if (item.kind !== "none") dim++;
  }

  // An index tile is an advanced index of its shape whose values are known only when an instruction
  // runs: it contributes nothing to the affine pattern and is kept as the view's indirect index.
  let indirect: { tile: NkiArray; dim: number } | null = null;
  for (const x of items) {
    if (x.item.kind !== "tile") continue;
    if (indirect) throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `only one dimension may be indexed by a tile${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
    indirect = { tile: x.item.tile, dim: x.dim };
    const shape = x.item.tile.shape.length === 1 ? [x.item.tile.shape[0], 1] : [...x.item.tile.shape];
    x.item = { kind: "expr", expr: new IndexExpr(shape, 0, shape.map(() => 0)) };
  }
  const advanced = items.some((x) => x.item.kind === "expr");
  const maps: DimMap[] = [];
  let outShape: number[] = [];
  if (!advanced) {
    for (const { item, dim: d } of items) {
      if (item.kind === "none") { outShape.push(1); continue; }
      if (item.kind === "int") { maps.push({ dim: d, off: item.value, coeffs: [] }); continue; }
      if (item.kind === "slice") {
        const k = outShape.length;
        outShape.push(item.len);
        maps.push({ dim: d, off: item.start, coeffs: coeffAt(k, item.step) });
      }
    }
    const rank = outShape.length;
    for (const m of maps) m.coeffs = padTo(m.coeffs, rank);
  } else {
    // Advanced indexing: ints and index expressions broadcast together into shape B.
    const adv = items.filter((x) => x.item.kind === "expr" || x.item.kind === "int");
    const exprs = adv.map((x) => (x.item.kind === "expr" ? x.item.expr : new IndexExpr([], x.item.kind === "int" ? x.item.value : 0, [])));
    const bRank = Math.max(...exprs.map((e) => e.shape.length));
    const aligned = exprs.map((e) => e.alignTo(bRank));
    const B = new Array<number>(bRank).fill(1);
    for (const e of aligned) {
      e.shape.forEach((n, k) => {
        if (n === 1) return;
        if (B[k] !== 1 && B[k] !== n) {
          throw new PyException("IndexError", `shape mismatch: indexing arrays could not be broadcast together with shapes ${aligned.map((x) => `(${x.shape.join(",")})`).join(" ")}`, ctx.site);
        }
        B[k] = n;
      });
    }
    const positions = items.map((x, i) => (x.item.kind === "expr" || x.item.kind === "int" ? i : -1)).filter((i) => i >= 0);
    const contiguous = positions.every((p, j) => j === 0 || p === positions[j - 1] + 1);
    // Axes: basic ones before the advanced block (when contiguous), the block, the rest.
    const axisOf = new Map<number, number>(); // item index -> output axis (basic items)
    let bStart = 0;
    if (contiguous) {
      items.forEach((x, i) => { if (i < positions[0] && x.item.kind !== "expr" && x.item.kind !== "int") axisOf.set(i, outShape.push(x.item.kind === "slice" ? x.item.len : 1) - 1); });
      bStart = outShape.length;
      outShape.push(...B);
      items.forEach((x, i) => { if (i > positions[positions.length - 1] && x.item.kind !== "expr" && x.item.kind !== "int") axisOf.set(i, outShape.push(x.item.kind === "slice" ? x.item.len : 1) - 1); });
    } else {
      outShape = [...B];
      items.forEach((x, i) => { if (x.item.kind !== "expr" && x.item.kind !== "int") axisOf.set(i, outShape.push(x.item.kind === "slice" ? x.item.len : 1) - 1); });
    }
    const rank = outShape.length;
    let e = 0;
    items.forEach((x, i) => {
      if (x.item.kind === "expr" || x.item.kind === "int") {
        const ex = aligned[e++];
        const coeffs = new Array<number>(rank).fill(0);
        ex.shape.forEach((n, k) => { if (n > 1) coeffs[bStart + k] = ex.coeffs[k]; });
        maps.push({ dim: x.dim, off: ex.offset, coeffs });
      } else if (x.item.kind === "slice") {
        maps.push({ dim: x.dim, off: x.item.start, coeffs: coeffAt(axisOf.get(i)!, x.item.step, rank) });
      }
    });
  }

  // Compose with the view being subscripted.
  const rank = outShape.length;
  let offset = a.offset;
  const strides = new Array<number>(rank).fill(0);
  for (const m of maps) {
    offset += a.strides[m.dim] * m.off;
    for (let k = 0; k < rank; k++) strides[k] += a.strides[m.dim] * m.coeffs[k];
  }
  const byDim = new Map(maps.map((m) => [m.dim, m] as const));
  const checks: DimCheck[] = a.checks.map((c) => {
    let off = c.off;
    const coeffs = new Array<number>(rank).fill(0);
    c.coeffs.forEach((cd, d) => {
      if (cd === 0) return;
      const m = byDim.get(d)!;
      off += cd * m.off;
      for (let k = 0; k < rank; k++) coeffs[k] += cd * m.coeffs[k];
    });
    return { ...c, off, coeffs };
  });
  const root = a.checks.length === 0 && a.offset === 0 && a.shape.length === a.storage.shape.length;
  for (const m of maps) if (!indirect || m.dim !== indirect.dim) checks.push({ dim: m.dim, size: a.shape[m.dim], off: m.off, coeffs: m.coeffs, root });
  const v = a.view(offset, outShape, strides, checks);
  if (indirect) {
    if (a.indirect) throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `a view with a tile index cannot be indexed by a tile again${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
    if (!root) throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `a tile index must index a whole tensor or tile, not a view of one${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
    v.indirect = { index: indirect.tile, dim: indirect.dim, size: a.shape[indirect.dim], stride: a.strides[indirect.dim] };
  } else if (a.indirect) {
    throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `a view with a tile index cannot be subscripted again; index the tensor once${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
  }
  return v;
}

function coeffAt(k: number, c: number, rank = k + 1): number[] {
  const out = new Array<number>(rank).fill(0);
  out[k] = c;
  return out;
}

function padTo(v: number[], rank: number): number[] {
  while (v.length < rank) v.push(0);
  return v;
}

/** The elements an instruction touches: [lo, hi) per axis of the view (the whole view without a mask). */
export interface Box { readonly lo: readonly number[]; readonly hi: readonly number[]; }

export function fullBox(shape: readonly number[]): Box { return { lo: shape.map(() => 0), hi: [...shape] }; }
export function boxIsEmpty(b: Box): boolean { return b.hi.some((h, k) => h <= b.lo[k]); }

/**
 * Runs a view's bounds checks over the elements `box` selects: an HBM access outside the tensor is
 * HbmAccessError E_NKI_HBM_RANGE, a tile access outside the tile TileShapeError E_NKI_TILE_RANGE,
 * naming the tensor or tile, the dimension, the index range asked and the range allowed.
 */
export function checkAccess(a: NkiArray, box: Box, instruction: string, ctx: CallContext): void {
  if (boxIsEmpty(box)) return;
  for (const c of a.checks) {
    let lo = c.off, hi = c.off;
    c.coeffs.forEach((k, axis) => {
      if (k === 0 || axis >= box.lo.length) return;
      const first = k * box.lo[axis], last = k * (box.hi[axis] - 1);
      lo += Math.min(first, last); hi += Math.max(first, last);
    });
    if (lo >= 0 && hi < c.size) continue;
    const s = a.storage;
    const whose = c.dim < 0 ? `the elements of ${s.describe()} (an explicit access pattern)`
      : c.root ? `dimension ${c.dim} of ${s.describe()}` : `dimension ${c.dim} (size ${c.size}) of a view of ${s.describe()}`;
    const asked = lo === hi ? `index ${lo}` : `indices ${lo}..${hi}`;
    const message = `${instruction}: ${asked} of ${whose} outside the allowed range 0..${c.size - 1}${atSite(ctx.site)}`;
    const details = errorDetails(ctx.site, {
      instruction, tensor: s.name, buffer: s.kind, dim: c.dim, asked: [lo, hi], allowed: [0, c.size - 1], shape: [...s.shape],
      allocated: s.site ? { file: s.site.file, line: s.site.line } : undefined,
    });
    if (s.isHbm) throw new HbmAccessError("E_NKI_HBM_RANGE", message, { details });
    throw new TileShapeError("E_NKI_TILE_RANGE", message, { details: { ...details, tile: s.name } });
  }
}
