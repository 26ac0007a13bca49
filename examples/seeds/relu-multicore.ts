// The seed's multicore relu_forward
// (aws-neuron-samples inference/customop_mlp/neuron-multicore/relu.cpp)
// ported literally, bugs included. The last core enlarges `partition` to take
// the remainder and then starts at the enlarged partition * cpu_id, so
// whenever numel % cpu_count != 0 its part is shifted: elements are skipped
// and it reads and writes past the end of the tensors. tcm_free also runs on
// a null buffer. C++ types are kept: size_t as u64, uint32_t as u32.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free } from "gpsimd";

export function relu_forward(t_in: Tensor): Tensor {
  const num_elem: u64 = <u64>t_in.numel();
  const t_out = get_dst_tensor();

  const cpu_id: u32 = get_cpu_id();
  const cpu_count: u32 = get_cpu_count();
  let partition: u32 = <u32>(num_elem / <u64>cpu_count);
  if (cpu_id == cpu_count - 1) {
    partition = <u32>(num_elem - <u64>(partition * (cpu_count - 1)));
  }

  const buffer_size: u64 = 1024;
  const tcm_buffer = tcm_malloc(<usize>(<u64>sizeof<f32>() * buffer_size));

  if (tcm_buffer != 0) {
    const t_in_tcm_acc = t_in.tcm_accessor();
    const t_out_tcm_acc = t_out.tcm_accessor();

    for (let i: u64 = 0; i < <u64>partition; i += buffer_size) {
      const remaining_elem: u64 = <u64>partition - i;
      const copy_size: u64 = remaining_elem > buffer_size ? buffer_size : remaining_elem;

      t_in_tcm_acc.tensor_to_tcm<f32>(tcm_buffer, <i64>(<u64>(partition * cpu_id) + i), <i64>copy_size);
      for (let j: u64 = 0; j < copy_size; j++) {
        const at = tcm_buffer + <usize>(j << 2);
        store<f32>(at, load<f32>(at) > 0.0 ? load<f32>(at) : 0.0);
      }
      t_out_tcm_acc.tcm_to_tensor<f32>(tcm_buffer, <i64>(<u64>(partition * cpu_id) + i), <i64>copy_size);
    }
  }
  tcm_free(tcm_buffer);
  return t_out;
}
