// Access patterns of the NKI machine: subscripts of tiles and HBM tensors against hand-computed
// addresses, shapes and strides; masks as sub-boxes; bounds errors and their messages.
import { describe, expect, test } from "vitest";
import { PySlice, PyTuple, Ellipsis, type CallContext, type PyValue } from "../../nki/python/values.js";
import { Storage, wholeArray, type NkiArray } from "../../nki/machine/tile.js";
import { subscript, checkAccess, fullBox, DynSlice } from "../../nki/machine/access.js";
import { arange, GridMaker, IndexExpr, MaskExpr, maskBox } from "../../nki/machine/index-expr.js";
import { operand, partitionAligned } from "../../nki/machine/instructions.js";
import { float32, bfloat16, promote, int8, uint8, int16, float16 } from "../../nki/machine/nki-dtype.js";
import { HbmAccessError, NkiSyntaxError, TileShapeError } from "../../host/checks/errors.js";

const site = { file: "k.py", line: 7, column: 3, function: "kernel" };
const ctx: CallContext = { site, stack: [site] };
const s = (start: number | null, stop: number | null, step: number | null = null) => new PySlice(start, stop, step);
const t = (...items: PyValue[]) => new PyTuple(items);

/** An HBM tensor at address 4096 (no init map), named a. */
function hbmTensor(shape: number[], dtype = float32): NkiArray {
  return wholeArray(new Storage("input", 4096, 0, dtype, shape, undefined, "a"));
}
function tile(shape: number[]): NkiArray {
  return wholeArray(new Storage("sbuf", 65536, 8192, float32, shape, { ...site, line: 3 }, "in_tile"));
}
const op = (v: NkiArray) => operand(v, v.shape, fullBox(v.shape), "test", ctx);

describe("basic subscripts", () => {
  test("a[0:128, 512:1024] of a [256, 1024] float32 tensor", () => {
    const v = subscript(hbmTensor([256, 1024]), t(s(0, 128), s(512, 1024)), ctx);
    expect(v.shape).toEqual([128, 512]);
    const o = op(v);
    expect(o.addr).toBe(4096 + 512 * 4);
    expect(o.strides).toEqual([1024, 1]);
    expect(o.init).toBe(0);
  });

  test("ints drop their axis, negative ints count from the end", () => {
    const a = hbmTensor([4, 6]);
    expect(subscript(a, 1, ctx).shape).toEqual([6]);
    expect(op(subscript(a, 1, ctx)).addr).toBe(4096 + 6 * 4);
    expect(op(subscript(a, -1, ctx)).addr).toBe(4096 + 18 * 4);
    expect(op(subscript(a, t(2, -2), ctx)).addr).toBe(4096 + (2 * 6 + 4) * 4);
  });

  test("steps, negative steps, nl.ds, ... and None", () => {
    const a = hbmTensor([8, 10]);
    const stepped = subscript(a, t(s(null, null), s(0, 10, 2)), ctx);
    expect(stepped.shape).toEqual([8, 5]);
    expect(op(stepped).strides).toEqual([10, 2]);
    const reversed = subscript(a, s(null, null, -1), ctx);
    expect(reversed.shape).toEqual([8, 10]);
    expect(op(reversed).addr).toBe(4096 + 70 * 4);
    expect(op(reversed).strides).toEqual([-10, 1]);
    const ds = subscript(a, t(new DynSlice(3, 4), Ellipsis), ctx);
    expect(ds.shape).toEqual([4, 10]);
    expect(op(ds).addr).toBe(4096 + 30 * 4);
    const newAxis = subscript(a, t(Ellipsis, null), ctx);
    expect(newAxis.shape).toEqual([8, 10, 1]);
  });

  test("a view of a view composes offsets and strides", () => {
    const a = tile([128, 64]);
    const v = subscript(subscript(a, t(s(16, 48), s(8, 40, 2)), ctx), t(s(1, 3), 5), ctx);
    expect(v.shape).toEqual([2]);
    expect(op(v).addr).toBe(65536 + ((16 + 1) * 64 + 8 + 2 * 5) * 4);
    expect(op(v).strides).toEqual([64]);
    expect(op(v).init).toBe(8192 + (16 + 1) * 64 + 8 + 2 * 5);
  });
});

describe("index expressions", () => {
  test("the seed's ix = 128 + arange(128)[:, None], iy = 512 + arange(512)[None, :]", () => {
    const ix = (arange(128).getItem(t(s(null, null), null), ctx) as IndexExpr).binary("+", 128, true, ctx) as IndexExpr;
    const iy = (arange(512).getItem(t(null, s(null, null)), ctx) as IndexExpr).binary("+", 512, false, ctx) as IndexExpr;
    expect(ix.shape).toEqual([128, 1]);
    const v = subscript(hbmTensor([256, 1024]), t(ix, iy), ctx);
    expect(v.shape).toEqual([128, 512]);
    const o = op(v);
    expect(o.addr).toBe(4096 + (128 * 1024 + 512) * 4);
    expect(o.strides).toEqual([1024, 1]);
  });

  test("avgpool's in_tile[i0, 2*i1+i2, 2*i3+i4] over mgrid[0:2, 0:3, 0:2, 0:3, 0:2] on a [2, 6, 6] tile", () => {
    const grid = new GridMaker(false).getItem(t(s(0, 2), s(0, 3), s(0, 2), s(0, 3), s(0, 2)), ctx) as unknown as { exprs: IndexExpr[] };
    const [i0, i1, i2, i3, i4] = grid.exprs;
    const rows = (i1.binary("*", 2, true, ctx) as IndexExpr).binary("+", i2, false, ctx) as IndexExpr;
    const cols = (i3.binary("*", 2, true, ctx) as IndexExpr).binary("+", i4, false, ctx) as IndexExpr;
    const v = subscript(tile([2, 6, 6]), t(i0, rows, cols), ctx);
    expect(v.shape).toEqual([2, 3, 2, 3, 2]);
    const o = op(v);
    expect(o.addr).toBe(65536);
    expect(o.strides).toEqual([36, 12, 6, 2, 1]);
  });

  test("ogrid gives open index expressions that broadcast", () => {
    const g = new GridMaker(true).getItem(t(s(0, 4), s(0, 5)), ctx) as unknown as { exprs: IndexExpr[] };
    expect(g.exprs[0].shape).toEqual([4, 1]);
    expect(g.exprs[1].shape).toEqual([1, 5]);
    expect(subscript(hbmTensor([4, 5]), t(...g.exprs), ctx).shape).toEqual([4, 5]);
  });

  test("a product of two index expressions is not affine: E_NKI_UNSUPPORTED", () => {
    const i = arange(4);
    expect(() => i.binary("*", i, false, ctx)).toThrow(NkiSyntaxError);
  });
});

describe("broadcasting and masks", () => {
  test("a [128, 1] operand broadcasts along the free axis with stride 0; a [128] tile aligns on its partition axis", () => {
    const col = subscript(tile([128, 4]), t(s(null, null), s(1, 2)), ctx);
    const o = operand(col, [128, 512], fullBox([128, 512]), "test", ctx);
    expect(o.strides).toEqual([4, 0]);
    expect(o.addr).toBe(65536 + 4);
    const flat = tile([128]);
    expect(partitionAligned(flat, 3).shape).toEqual([128, 1, 1]);
  });

  test("(i_p < 100) & (i_f >= 2) is the box [0, 100) x [2, 512)", () => {
    const ip = arange(128).getItem(t(s(null, null), null), ctx) as IndexExpr;
    const jf = arange(512).getItem(t(null, s(null, null)), ctx) as IndexExpr;
    const m = (ip.compare("<", 100, false, ctx) as MaskExpr).binary("&", jf.compare(">=", 2, false, ctx) as MaskExpr, false, ctx) as MaskExpr;
    expect(maskBox(m, [128, 512], ctx)).toEqual({ lo: [0, 2], hi: [100, 512] });
    // 64 + i_p <= 127 (an offset on the left), and a reflected comparison 10 > i_f.
    const m2 = ((ip.binary("+", 64, true, ctx) as IndexExpr).compare("<=", 127, false, ctx) as MaskExpr).binary("&", jf.compare(">", 10, true, ctx) as MaskExpr, false, ctx) as MaskExpr;
    expect(maskBox(m2, [128, 512], ctx)).toEqual({ lo: [0, 0], hi: [64, 10] });
  });

  test("a mask over two index variables at once is E_NKI_UNSUPPORTED naming the mask", () => {
    const ip = arange(128).getItem(t(s(null, null), null), ctx) as IndexExpr;
    const jf = arange(512).getItem(t(null, s(null, null)), ctx) as IndexExpr;
    const m = (ip.binary("+", jf, false, ctx) as IndexExpr).compare("<", 10, false, ctx) as MaskExpr;
    expect(() => maskBox(m, [128, 512], ctx)).toThrow(/mask: .*depends on 2 index variables.* at kernel \(k\.py:7:3\)/);
  });
});

describe("bounds", () => {
  test("a[0:200] on a 128-row tensor is HbmAccessError E_NKI_HBM_RANGE naming the tensor, dimension, ranges and line", () => {
    const v = subscript(hbmTensor([128, 512]), t(s(0, 200), s(null, null)), ctx);
    let err: unknown;
    try { op(v); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(HbmAccessError);
    const e = err as HbmAccessError;
    expect(e.code).toBe("E_NKI_HBM_RANGE");
    expect(e.message).toContain("indices 0..199 of dimension 0 of HBM tensor 'a'");
    expect(e.message).toContain("outside the allowed range 0..127");
    expect(e.message).toMatch(/ at kernel \(k\.py:7:3\)$/);
    expect(e.details).toMatchObject({ line: 7, dim: 0, asked: [0, 199], allowed: [0, 127], tensor: "a" });
  });

  test("the same access under a mask that keeps it inside is fine", () => {
    const v = subscript(hbmTensor([128, 512]), t(s(0, 200), s(null, null)), ctx);
    expect(() => checkAccess(v, { lo: [0, 0], hi: [128, 512] }, "test", ctx)).not.toThrow();
    expect(() => checkAccess(v, { lo: [0, 0], hi: [129, 512] }, "test", ctx)).toThrow(HbmAccessError);
  });

  test("an index expression past the end: the range of the affine expression is reported", () => {
    const ix = (arange(128).getItem(t(s(null, null), null), ctx) as IndexExpr).binary("+", 200, false, ctx) as IndexExpr;
    expect(() => op(subscript(hbmTensor([256, 4]), t(ix, 0), ctx))).toThrow(/indices 200\.\.327 of dimension 0/);
  });

  test("a tile subscript out of range is TileShapeError E_NKI_TILE_RANGE naming the tile and its allocation line", () => {
    let err: unknown;
    try { op(subscript(tile([128, 64]), t(s(null, null), 64), ctx)); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(TileShapeError);
    expect((err as TileShapeError).code).toBe("E_NKI_TILE_RANGE");
    expect((err as Error).message).toContain("index 64 of dimension 1 of tile 'in_tile' (sbuf float32[128, 64], allocated at k.py:3)");
  });

  test("too many indices is Python's IndexError", () => {
    expect(() => subscript(tile([4, 4]), t(0, 0, 0), ctx)).toThrow(/too many indices/);
  });
});

describe("dtypes", () => {
  test("NKI promotion: float wins over int, the wider float, bf16 with f16 is float32, int8 with uint8 is int16", () => {
    expect(promote(float32, bfloat16)).toBe(float32);
    expect(promote(bfloat16, float16)).toBe(float32);
    expect(promote(int8, bfloat16)).toBe(bfloat16);
    expect(promote(int8, uint8)).toBe(int16);
    expect(float32.str()).toBe("float32");
  });
});
