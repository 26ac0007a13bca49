// The blog's multicore C++ GIOU kernel
// ("Accelerating AI/ML Model Training with Custom Operators — Part 4")
// ported literally, bugs included:
// - both offsets add the right per-row stride (i*tcm_in_size for inputs,
//   i*tcm_out_size for the output) to partition*cpu_id, a count of rows
//   never scaled to elements: every core starts a few elements into row 0,
//   so the cores' parts overlap and boxes are read out of alignment;
// - num_samples % cpu_count rows are never computed (no remainder handling);
// - tcm_output (sized tcm_in_size, 4x what it needs) is never freed.
// C++ types are kept: size_t as u64, uint32_t as u32; std::max/std::min as
// the standard defines them.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free } from "gpsimd";

function std_max(a: f32, b: f32): f32 { return a < b ? b : a; }
function std_min(a: f32, b: f32): f32 { return b < a ? b : a; }

// input boxes of shape 1024x256x4
// output scores of shape 1024x256
export function giou(t_pred: Tensor, t_target: Tensor): Tensor {
  const num_samples: u64 = <u64>t_pred.sizes()[0];
  const num_boxes: u64 = <u64>t_pred.sizes()[1];
  const t_out = get_dst_tensor();
  // get the number of GpSimd processors (8 in NeuronCoreV2)
  const cpu_count: u32 = get_cpu_count();
  // get index of current processor
  const cpu_id: u32 = get_cpu_id();
  // divide the batch size into 8 partitions
  const partition: u32 = <u32>(num_samples / <u64>cpu_count);
  // use tcm buffers to load and write data
  const tcm_in_size: u64 = num_boxes * 4;
  const tcm_out_size: u64 = num_boxes;
  const tcm_pred = tcm_malloc(<usize>(<u64>sizeof<f32>() * tcm_in_size));
  const tcm_target = tcm_malloc(<usize>(<u64>sizeof<f32>() * tcm_in_size));
  const tcm_output = tcm_malloc(<usize>(<u64>sizeof<f32>() * tcm_in_size));
  const t_pred_tcm_acc = t_pred.tcm_accessor();
  const t_target_tcm_acc = t_target.tcm_accessor();
  const t_out_tcm_acc = t_out.tcm_accessor();
  // iterate over each of the entries in the partition
  for (let i: u64 = 0; i < <u64>partition; i++) {
    // load the pred and target boxes into local memory
    t_pred_tcm_acc.tensor_to_tcm<f32>(tcm_pred, <i64>(<u64>(partition * cpu_id) + i * tcm_in_size), <i64>tcm_in_size);
    t_target_tcm_acc.tensor_to_tcm<f32>(tcm_target, <i64>(<u64>(partition * cpu_id) + i * tcm_in_size), <i64>tcm_in_size);
    // iterate over each of the boxes in the entry
    for (let j: u64 = 0; j < num_boxes; j++) {
      const epsilon: f32 = 1e-5;
      const box1 = tcm_pred + <usize>(j * 4 * 4);
      const box2 = tcm_target + <usize>(j * 4 * 4);
      // Compute area of each box
      const area1: f32 = (load<f32>(box1, 8) - load<f32>(box1, 0)) * (load<f32>(box1, 12) - load<f32>(box1, 4));
      const area2: f32 = (load<f32>(box2, 8) - load<f32>(box2, 0)) * (load<f32>(box2, 12) - load<f32>(box2, 4));
      // Compute the intersection
      const left = std_max(load<f32>(box1, 0), load<f32>(box2, 0));
      const top = std_max(load<f32>(box1, 4), load<f32>(box2, 4));
      const right = std_min(load<f32>(box1, 8), load<f32>(box2, 8));
      const bottom = std_min(load<f32>(box1, 12), load<f32>(box2, 12));
      const inter_w = std_max(right - left, 0.0);
      const inter_h = std_max(bottom - top, 0.0);
      const inter_area = inter_w * inter_h;
      // Compute the union area
      const union_area = area1 + area2 - inter_area;
      // IoU
      const iou_val = inter_area / std_max(union_area, epsilon);
      // Compute the smallest enclosing box
      const enclose_left = std_min(load<f32>(box1, 0), load<f32>(box2, 0));
      const enclose_top = std_min(load<f32>(box1, 4), load<f32>(box2, 4));
      const enclose_right = std_max(load<f32>(box1, 8), load<f32>(box2, 8));
      const enclose_bottom = std_max(load<f32>(box1, 12), load<f32>(box2, 12));
      const enclose_w = std_max(enclose_right - enclose_left, 0.0);
      const enclose_h = std_max(enclose_bottom - enclose_top, 0.0);
      const enclose_area = std_max(enclose_w * enclose_h, epsilon);
      const result = iou_val - (enclose_area - union_area) / enclose_area;
      store<f32>(tcm_output + <usize>(j * 4), result);
    }
    // write the giou scores of all boxes in the current entry
    t_out_tcm_acc.tcm_to_tensor<f32>(tcm_output, <i64>(<u64>(partition * cpu_id) + i * tcm_out_size), <i64>tcm_out_size);
  }
  tcm_free(tcm_pred);
  tcm_free(tcm_target);
  return t_out;
}
