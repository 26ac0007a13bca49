// W1 GIOU three ways a TypeScript user would write it: composed from array
// operations (the seed's PyTorch torch_giou, one pass per operation), one
// fused loop, and the same composition in TensorFlow.js.
import type * as tf from "@tensorflow/tfjs-core";
import { column, add, sub, mul, div, maximum, minimum, clampMin } from "./array-ops.js";
import { readResult } from "./tfjs.js";

const EPSILON = 1e-5;

/** The seed's torch_giou over Float32Arrays: the four coordinates sliced apart, then one pass per operation. */
export function giouNaive(pred: Float32Array, target: Float32Array): Float32Array {
  const [px1, py1, px2, py2] = [0, 1, 2, 3].map((k) => column(pred, k, 4));
  const [tx1, ty1, tx2, ty2] = [0, 1, 2, 3].map((k) => column(target, k, 4));
  const area1 = mul(sub(px2, px1), sub(py2, py1));
  const area2 = mul(sub(tx2, tx1), sub(ty2, ty1));
  const interW = clampMin(sub(minimum(px2, tx2), maximum(px1, tx1)), 0);
  const interH = clampMin(sub(minimum(py2, ty2), maximum(py1, ty1)), 0);
  const inter = mul(interW, interH);
  const union = sub(add(area1, area2), inter);
  const iou = div(inter, clampMin(union, EPSILON));
  const encloseW = clampMin(sub(maximum(px2, tx2), minimum(px1, tx1)), 0);
  const encloseH = clampMin(sub(maximum(py2, ty2), minimum(py1, ty1)), 0);
  const enclose = clampMin(mul(encloseW, encloseH), EPSILON);
  return sub(iou, div(sub(enclose, union), enclose));
}

/** torch_giou in TensorFlow.js on [N, B, 4] tensors, result read back with dataSync. */
export function giouTfjs(t: typeof tf, pred: tf.Tensor3D, target: tf.Tensor3D): Float32Array {
  return readResult(t, () => {
    const [n, b] = pred.shape;
    const coord = (x: tf.Tensor3D, k: number, width: number) => t.slice(x, [0, 0, k], [n, b, width]);
    const area = (x: tf.Tensor3D) => t.mul(t.sub(coord(x, 2, 1), coord(x, 0, 1)), t.sub(coord(x, 3, 1), coord(x, 1, 1)));
    const area1 = area(pred), area2 = area(target);
    const lt = t.maximum(coord(pred, 0, 2), coord(target, 0, 2));
    const rb = t.minimum(coord(pred, 2, 2), coord(target, 2, 2));
    const wh = t.maximum(t.sub(rb, lt), 0);
    const inter = t.mul(t.slice(wh, [0, 0, 0], [n, b, 1]), t.slice(wh, [0, 0, 1], [n, b, 1]));
    const union = t.sub(t.add(area1, area2), inter);
    const iou = t.div(inter, t.maximum(union, EPSILON));
    const lti = t.minimum(coord(pred, 0, 2), coord(target, 0, 2));
    const rbi = t.maximum(coord(pred, 2, 2), coord(target, 2, 2));
    const whi = t.maximum(t.sub(rbi, lti), 0);
    const enclose = t.maximum(t.mul(t.slice(whi, [0, 0, 0], [n, b, 1]), t.slice(whi, [0, 0, 1], [n, b, 1])), EPSILON);
    return t.reshape(t.sub(iou, t.div(t.sub(enclose, union), enclose)), [n, b]);
  });
}
