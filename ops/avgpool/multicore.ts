// avgpool2d on all cores through TCM. The C * H/p output rows (all channels)
// are dealt out evenly: core k takes rows [rows*k/n, rows*(k+1)/n), so the
// parts differ by at most one row and cover every row whatever the count.
import { Tensor, get_dst_tensor, get_cpu_id, get_cpu_count } from "gpsimd";
import { pool_rows } from "./pool-rows";

export function avgpool2d(t_in: Tensor, pool: i64): Tensor {
  const t_out = get_dst_tensor();
  const rows = t_in.size(0) * (t_in.size(1) / pool);
  const count = <i64>get_cpu_count();
  const id = <i64>get_cpu_id();
  pool_rows(t_in.tcm_accessor(), t_out.tcm_accessor(), t_in.size(2), pool, rows * id / count, rows * (id + 1) / count);
  return t_out;
}
