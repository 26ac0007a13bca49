import { NEURON_LIBRARY } from "gpsimd";
import { tensor_add_shape } from "./shape";

NEURON_LIBRARY("add_tcm", (m) => {
  m.def("tensor_add", tensor_add_shape, "tensor_add_compute");
});
