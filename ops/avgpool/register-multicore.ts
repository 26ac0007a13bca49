import { NEURON_LIBRARY } from "gpsimd";
import { avgpool2d_shape } from "./shape";

NEURON_LIBRARY("avgpool_multicore", (m) => {
  m.def("avgpool2d", avgpool2d_shape, "avgpool2d");
});
