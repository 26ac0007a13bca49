// giou on one core through TCM. The [N, B] pairs are contiguous, so the
// kernel walks all N * B of them in chunks of 256 boxes (pred and target
// 4 KB each, output 1 KB) and computes each chunk four pairs at a time.
import { Tensor, get_dst_tensor, tcm_malloc, tcm_free } from "gpsimd";
import { giou_f32x4, pad_to_group } from "./giou-f32x4";

/** Boxes per chunk: a multiple of 4, as giou_f32x4 needs. */
const CHUNK: i64 = 256;

export function giou(t_pred: Tensor, t_target: Tensor): Tensor {
  const boxes = t_pred.size(0) * t_pred.size(1);
  const t_out = get_dst_tensor();
  const tcm_pred = tcm_malloc(<usize>(CHUNK * 4) * sizeof<f32>());
  const tcm_target = tcm_malloc(<usize>(CHUNK * 4) * sizeof<f32>());
  const tcm_output = tcm_malloc(<usize>CHUNK * sizeof<f32>());
  const pred = t_pred.tcm_accessor(), target = t_target.tcm_accessor(), out = t_out.tcm_accessor();
  for (let i: i64 = 0; i < boxes; i += CHUNK) {
    const m = min(boxes - i, CHUNK);
    pred.tensor_to_tcm<f32>(tcm_pred, i * 4, m * 4);
    target.tensor_to_tcm<f32>(tcm_target, i * 4, m * 4);
    pad_to_group(tcm_pred, m);
    pad_to_group(tcm_target, m);
    giou_f32x4(tcm_output, tcm_pred, tcm_target, m);
    out.tcm_to_tensor<f32>(tcm_output, i, m);
  }
  tcm_free(tcm_output);
  tcm_free(tcm_target);
  tcm_free(tcm_pred);
  return t_out;
}
