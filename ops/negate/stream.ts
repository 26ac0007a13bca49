// tensor_negate through stream accessors (the API reference's streaming add,
// applied to negation): one sequential reader, one sequential writer into
// get_dst_tensor(), both closed so the writer flushes and TCM is returned.
import { Tensor, get_dst_tensor } from "gpsimd";

export function tensor_negate_compute(t_in: Tensor): Tensor {
  const num_elem = t_in.numel();
  const t_out = get_dst_tensor();
  const reader = t_in.read_stream_accessor<f32>();
  const writer = t_out.write_stream_accessor<f32>();
  for (let i: i64 = 0; i < num_elem; i++) {
    writer.write(-reader.read());
  }
  reader.close();
  writer.close();
  return t_out;
}
