import { NEURON_LIBRARY } from "gpsimd";
import { softmax_shape } from "./shape";

NEURON_LIBRARY("softmax_multicore", (m) => {
  m.def("softmax", softmax_shape, "softmax");
});
