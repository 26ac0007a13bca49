// Row softmax on one core through TCM: every row, in order (rows.ts).
import { Tensor, get_dst_tensor } from "gpsimd";
import { softmax_rows } from "./rows";

export function softmax(x: Tensor): Tensor {
  const out = get_dst_tensor();
  softmax_rows(x.tcm_accessor(), out.tcm_accessor(), x.size(1), 0, x.size(0));
  return out;
}
