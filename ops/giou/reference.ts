// Generalized IoU (W1) in plain TypeScript, independent of gpsimd: float64
// arithmetic, rounded to float32 once at the end.

const EPSILON = 1e-5;

/** GIOU of each pair of boxes [x1, y1, x2, y2]: pred and target are [n, b, 4] (row-major), the result [n, b]. */
export function giouOf(pred: Float32Array, target: Float32Array, n: number, b: number): Float32Array {
  if (pred.length !== n * b * 4 || target.length !== n * b * 4) {
    throw new Error(`giouOf: pred has ${pred.length} and target ${target.length} values; [${n}, ${b}, 4] needs ${n * b * 4}`);
  }
  const out = new Float32Array(n * b);
  for (let i = 0, j = 0; i < n * b; i++, j += 4) {
    const px1 = pred[j], py1 = pred[j + 1], px2 = pred[j + 2], py2 = pred[j + 3];
    const tx1 = target[j], ty1 = target[j + 1], tx2 = target[j + 2], ty2 = target[j + 3];
    const area1 = (px2 - px1) * (py2 - py1);
    const area2 = (tx2 - tx1) * (ty2 - ty1);
    const inter = Math.max(Math.min(px2, tx2) - Math.max(px1, tx1), 0) * Math.max(Math.min(py2, ty2) - Math.max(py1, ty1), 0);
    const union = area1 + area2 - inter;
    const iou = inter / Math.max(union, EPSILON);
    const enclose = Math.max(Math.max(Math.max(px2, tx2) - Math.min(px1, tx1), 0) * Math.max(Math.max(py2, ty2) - Math.min(py1, ty1), 0), EPSILON);
    out[i] = iou - (enclose - union) / enclose;
  }
  return out;
}

/** giou(t_pred [N, B, 4], t_target [N, B, 4]) as gpsimd check calls it: the values, then the tensors' sizes. */
export function giou(pred: Float32Array, target: Float32Array, [[n, b]]: number[][]): Float32Array {
  return giouOf(pred, target, n, b);
}
