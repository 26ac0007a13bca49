import { NEURON_LIBRARY } from "gpsimd";
import { tensor_negate_shape } from "./shape";

NEURON_LIBRARY("negate_tcm", (m) => {
  m.def("tensor_negate", tensor_negate_shape, "tensor_negate_compute");
});
