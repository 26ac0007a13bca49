// Element-wise accessor kernels that write the output in order and out of
// order: a copy (in order) and a transpose (the output written a column at a
// time, each write a new interval). With checks on, what each write costs is
// the price of the checks and of recording which output elements were written.
import { Tensor, get_dst_tensor } from "gpsimd";

/** out[i][j] = in[i][j]: writes in order. */
export function copy2d(t_in: Tensor): Tensor {
  const t_out = get_dst_tensor();
  const a = t_in.accessor2<f32>(), o = t_out.accessor2<f32>();
  const rows = t_in.size(0), cols = t_in.size(1);
  for (let i: i64 = 0; i < rows; i++) for (let j: i64 = 0; j < cols; j++) o[i][j] = a[i][j];
  return t_out;
}

/** out[j][i] = in[i][j]: reads in order, writes with a stride of the output's row length. */
export function transpose2d(t_in: Tensor): Tensor {
  const t_out = get_dst_tensor();
  const a = t_in.accessor2<f32>(), o = t_out.accessor2<f32>();
  const rows = t_in.size(0), cols = t_in.size(1);
  for (let i: i64 = 0; i < rows; i++) for (let j: i64 = 0; j < cols; j++) o[j][i] = a[i][j];
  return t_out;
}
