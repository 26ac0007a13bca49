import { NEURON_LIBRARY } from "gpsimd";
import { empty_shape } from "./shape.js";

NEURON_LIBRARY("bench_empty_multicore_1core", (m) => {
  m.def("empty", empty_shape, "empty");
});
