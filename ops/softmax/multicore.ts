// Row softmax on all cores through TCM: core k takes rows [M*k/n, M*(k+1)/n),
// so the parts differ by at most one row and cover every row.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count } from "gpsimd";
import { softmax_rows } from "./rows";

export function softmax(x: Tensor): Tensor {
  const out = get_dst_tensor();
  const M = x.size(0);
  const count = <i64>get_cpu_count();
  const id = <i64>get_cpu_id();
  softmax_rows(x.tcm_accessor(), out.tcm_accessor(), x.size(1), M * id / count, M * (id + 1) / count);
  return out;
}
