// avgpool2d on one core through TCM: every output row, in order.
import { Tensor, get_dst_tensor } from "gpsimd";
import { pool_rows } from "./pool-rows";

export function avgpool2d(t_in: Tensor, pool: i64): Tensor {
  const t_out = get_dst_tensor();
  const rows = t_in.size(0) * (t_in.size(1) / pool);
  pool_rows(t_in.tcm_accessor(), t_out.tcm_accessor(), t_in.size(2), pool, 0, rows);
  return t_out;
}
