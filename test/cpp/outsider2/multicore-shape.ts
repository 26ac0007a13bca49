import { NEURON_LIBRARY, empty, kFloat, kLong, type Tensor } from "gpsimd";

NEURON_LIBRARY("outsider2_mc", (m) => {
  m.def("row_rsqrt_ms", (x: Tensor, _eps: number) => empty([x.size(0)], kFloat), "row_rsqrt_ms");
  m.def("scale_add_row", (x: Tensor, _s: number) => empty(x.sizes(), kFloat), "scale_add_row");
  m.def("abs_widen", (x: Tensor) => empty(x.sizes(), kLong), "abs_widen");
});
