import { NEURON_LIBRARY, empty, kFloat, type Tensor } from "gpsimd";

NEURON_LIBRARY("bench_accessor_order", (m) => {
  m.def("copy2d", (t: Tensor) => empty(t.sizes(), kFloat), "copy2d");
  m.def("transpose2d", (t: Tensor) => empty([t.sizes()[1], t.sizes()[0]], kFloat), "transpose2d");
});
