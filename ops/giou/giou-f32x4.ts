// GIOU of boxes in TCM, four pairs at a time: each group of four boxes
// [x1, y1, x2, y2] is transposed into four vectors (all x1, all y1, ...) with
// shuffles, and the W1 formula runs branch-free on f32x4. pmax/pmin are
// exactly the seed's std::max/std::min (a < b ? b : a), without NaN handling.

// @ts-ignore: decorator
@inline function lo_pairs(a: v128, b: v128): v128 { return v128.shuffle<f32>(a, b, 0, 4, 1, 5); }
// @ts-ignore: decorator
@inline function hi_pairs(a: v128, b: v128): v128 { return v128.shuffle<f32>(a, b, 2, 6, 3, 7); }
// @ts-ignore: decorator
@inline function lo_halves(a: v128, b: v128): v128 { return v128.shuffle<f32>(a, b, 0, 1, 4, 5); }
// @ts-ignore: decorator
@inline function hi_halves(a: v128, b: v128): v128 { return v128.shuffle<f32>(a, b, 2, 3, 6, 7); }

/**
 * out[i] = GIOU(pred box i, target box i) for i < n. Works in whole groups of
 * four: the buffers must have room for n rounded up to a multiple of 4 boxes,
 * and the boxes past n must be written (pad_to_group), as reading TCM nothing
 * wrote is an error (lanes past n compute from zeros; copy out only n).
 */
export function giou_f32x4(out: usize, pred: usize, target: usize, n: i64): void {
  const zero = f32x4.splat(0);
  const epsilon = f32x4.splat(<f32>1e-5);
  for (let i: i64 = 0; i < n; i += 4) {
    const p = pred + <usize>(i << 4), t = target + <usize>(i << 4);
    // Boxes 0..3 of pred: rows of a 4 x 4 matrix; transpose to coordinates.
    let r0 = v128.load(p), r1 = v128.load(p, 16), r2 = v128.load(p, 32), r3 = v128.load(p, 48);
    let a = lo_pairs(r0, r1), b = lo_pairs(r2, r3), c = hi_pairs(r0, r1), d = hi_pairs(r2, r3);
    const px1 = lo_halves(a, b), py1 = hi_halves(a, b), px2 = lo_halves(c, d), py2 = hi_halves(c, d);
    r0 = v128.load(t); r1 = v128.load(t, 16); r2 = v128.load(t, 32); r3 = v128.load(t, 48);
    a = lo_pairs(r0, r1); b = lo_pairs(r2, r3); c = hi_pairs(r0, r1); d = hi_pairs(r2, r3);
    const tx1 = lo_halves(a, b), ty1 = hi_halves(a, b), tx2 = lo_halves(c, d), ty2 = hi_halves(c, d);

    const area1 = f32x4.mul(f32x4.sub(px2, px1), f32x4.sub(py2, py1));
    const area2 = f32x4.mul(f32x4.sub(tx2, tx1), f32x4.sub(ty2, ty1));
    const inter_w = f32x4.pmax(f32x4.sub(f32x4.pmin(px2, tx2), f32x4.pmax(px1, tx1)), zero);
    const inter_h = f32x4.pmax(f32x4.sub(f32x4.pmin(py2, ty2), f32x4.pmax(py1, ty1)), zero);
    const inter_area = f32x4.mul(inter_w, inter_h);
    const union_area = f32x4.sub(f32x4.add(area1, area2), inter_area);
    const iou = f32x4.div(inter_area, f32x4.pmax(union_area, epsilon));
    const enclose_w = f32x4.pmax(f32x4.sub(f32x4.pmax(px2, tx2), f32x4.pmin(px1, tx1)), zero);
    const enclose_h = f32x4.pmax(f32x4.sub(f32x4.pmax(py2, ty2), f32x4.pmin(py1, ty1)), zero);
    const enclose_area = f32x4.pmax(f32x4.mul(enclose_w, enclose_h), epsilon);
    v128.store(out + <usize>(i << 2), f32x4.sub(iou, f32x4.div(f32x4.sub(enclose_area, union_area), enclose_area)));
  }
}

/**
 * Zeroes boxes n up to the next multiple of 4 of a TCM buffer of boxes, so giou_f32x4 reads only written bytes. Inline:
 * a kernel calls it twice per chunk, and only a chunk whose size is not a multiple of 4 has anything to zero.
 */
// @ts-ignore: decorator
@inline export function pad_to_group(boxes: usize, n: i64): void {
  if (n & 3) zero_tail(boxes, n);
}

/** pad_to_group's work: boxes [n, n rounded up to 4) set to 0. */
function zero_tail(boxes: usize, n: i64): void {
  memory.fill(boxes + <usize>(n << 4), 0, <usize>((((n + 3) & ~3) - n) << 4));
}
