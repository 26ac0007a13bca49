import { NEURON_LIBRARY } from "gpsimd";
import { softmax_shape } from "./shape";

NEURON_LIBRARY("softmax_tcm", (m) => {
  m.def("softmax", softmax_shape, "softmax");
});
