// giou on all cores through TCM: the blog's multicore C++ kernel with its
// bugs fixed. Each core takes `partition` whole rows (samples) and the last
// core also the remainder; a row's input starts at (first row + i) *
// num_boxes*4 and its output at (first row + i) * num_boxes (the seed mixed
// the two and forgot to scale the core's start). A row of B boxes is done in
// pieces of at most 256 boxes so the three buffers fit the 16 KB pool
// whatever B is, and every buffer is freed.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free } from "gpsimd";
import { giou_f32x4, pad_to_group } from "./giou-f32x4";

/** Boxes per piece: a multiple of 4, as giou_f32x4 needs. */
const CHUNK: i64 = 256;

export function giou(t_pred: Tensor, t_target: Tensor): Tensor {
  const num_samples = t_pred.size(0);
  const num_boxes = t_pred.size(1);
  const t_out = get_dst_tensor();
  const cpu_count = <i64>get_cpu_count();
  const cpu_id = <i64>get_cpu_id();
  const partition = num_samples / cpu_count;
  const rows = cpu_id == cpu_count - 1 ? num_samples - partition * cpu_id : partition;

  const tcm_pred = tcm_malloc(<usize>(CHUNK * 4) * sizeof<f32>());
  const tcm_target = tcm_malloc(<usize>(CHUNK * 4) * sizeof<f32>());
  const tcm_output = tcm_malloc(<usize>CHUNK * sizeof<f32>());
  const pred = t_pred.tcm_accessor(), target = t_target.tcm_accessor(), out = t_out.tcm_accessor();
  for (let i: i64 = 0; i < rows; i++) {
    const row = partition * cpu_id + i;
    for (let j: i64 = 0; j < num_boxes; j += CHUNK) {
      const m = min(num_boxes - j, CHUNK);
      pred.tensor_to_tcm<f32>(tcm_pred, (row * num_boxes + j) * 4, m * 4);
      target.tensor_to_tcm<f32>(tcm_target, (row * num_boxes + j) * 4, m * 4);
      pad_to_group(tcm_pred, m);
      pad_to_group(tcm_target, m);
      giou_f32x4(tcm_output, tcm_pred, tcm_target, m);
      out.tcm_to_tensor<f32>(tcm_output, row * num_boxes + j, m);
    }
  }
  tcm_free(tcm_output);
  tcm_free(tcm_target);
  tcm_free(tcm_pred);
  return t_out;
}
