// The emptiest kernel that still passes the output checks: each core writes
// zeros to its own share of the output, straight from TCM, so a launch costs
// what the runtime costs and nothing else. Works on 1 core and on 8.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count, tcm_malloc, tcm_free } from "gpsimd";

export function empty(t_in: Tensor): Tensor {
  const t_out = get_dst_tensor();
  const n = t_in.numel();
  const count = <i64>get_cpu_count(), id = <i64>get_cpu_id();
  const start = n * id / count, end = n * (id + 1) / count;
  if (end > start) {
    const bytes = <usize>(end - start) * sizeof<f32>();
    const buf = tcm_malloc(bytes);
    memory.fill(buf, 0, bytes);
    t_out.tcm_accessor().tcm_to_tensor<f32>(buf, start, end - start);
    tcm_free(buf);
  }
  return t_out;
}
