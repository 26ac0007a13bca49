// ops/relu's TCM kernel under its own name, built without the default mode's raw load and store checks (bench/suites/checks.ts).
import { NEURON_LIBRARY } from "gpsimd";
import { relu_forward_shape, relu_backward_shape } from "../../ops/relu/shape";

NEURON_LIBRARY("bench_relu_tcm_unchecked", (m) => {
  m.def("relu_forward", relu_forward_shape, "relu_forward");
  m.def("relu_backward", relu_backward_shape, "relu_backward");
});
