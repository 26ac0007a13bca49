// giou through element-wise accessors on one core: the W1 formula per pair
// of boxes, reading acc[i][j][k] and writing get_dst_tensor()[i][j]. Same
// operations in the same order as the TCM kernels; fmax/fmin are
// branch-free, but every access is a checked trip to HBM.
import { Tensor, get_dst_tensor, fmax, fmin } from "gpsimd";

export function giou(t_pred: Tensor, t_target: Tensor): Tensor {
  const num_samples = t_pred.size(0);
  const num_boxes = t_pred.size(1);
  const t_out = get_dst_tensor();
  const pred = t_pred.accessor3<f32>();
  const target = t_target.accessor3<f32>();
  const out = t_out.accessor2<f32>();
  const epsilon: f32 = 1e-5;
  for (let i: i64 = 0; i < num_samples; i++) {
    for (let j: i64 = 0; j < num_boxes; j++) {
      const px1 = pred[i][j][0], py1 = pred[i][j][1], px2 = pred[i][j][2], py2 = pred[i][j][3];
      const tx1 = target[i][j][0], ty1 = target[i][j][1], tx2 = target[i][j][2], ty2 = target[i][j][3];
      const area1 = (px2 - px1) * (py2 - py1);
      const area2 = (tx2 - tx1) * (ty2 - ty1);
      const inter_w = fmax(fmin(px2, tx2) - fmax(px1, tx1), 0);
      const inter_h = fmax(fmin(py2, ty2) - fmax(py1, ty1), 0);
      const inter_area = inter_w * inter_h;
      const union_area = area1 + area2 - inter_area;
      const iou = inter_area / fmax(union_area, epsilon);
      const enclose_w = fmax(fmax(px2, tx2) - fmin(px1, tx1), 0);
      const enclose_h = fmax(fmax(py2, ty2) - fmin(py1, ty1), 0);
      const enclose_area = fmax(enclose_w * enclose_h, epsilon);
      out[i][j] = iou - (enclose_area - union_area) / enclose_area;
    }
  }
  return t_out;
}
