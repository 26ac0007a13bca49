// Shape function of giou(t_pred, t_target): two [N, B, 4] box tensors of the
// same sizes in, float32 [N, B] out.
import { zeros, kFloat, type Tensor } from "gpsimd";

/** giou(t_pred, t_target): float32 [N, B]; throws unless both are [N, B, 4] with the same sizes. */
export function giou_shape(t_pred: Tensor, t_target: Tensor): Tensor {
  if (t_pred.dim() !== 3 || t_pred.size(2) !== 4) throw new Error(`giou: t_pred must be [N, B, 4] (boxes x1, y1, x2, y2), got ${t_pred.describe()}`);
  if (t_pred.sizes().join() !== t_target.sizes().join()) {
    throw new Error(`giou: t_pred ${t_pred.describe()} and t_target ${t_target.describe()} must have the same sizes`);
  }
  return zeros([t_pred.size(0), t_pred.size(1)], kFloat);
}
