import { NEURON_LIBRARY } from "gpsimd";
import { giou_shape } from "./shape";

NEURON_LIBRARY("giou_multicore", (m) => {
  m.def("giou", giou_shape, "giou");
});
