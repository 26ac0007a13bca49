import { NEURON_LIBRARY } from "gpsimd";
import { relu_forward_shape, relu_backward_shape } from "./shape";

NEURON_LIBRARY("relu_elementwise", (m) => {
  m.def("relu_forward", relu_forward_shape, "relu_forward");
  m.def("relu_backward", relu_backward_shape, "relu_backward");
});
