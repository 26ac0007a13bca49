import { NEURON_LIBRARY } from "gpsimd";
import { giou_shape } from "./shape";

NEURON_LIBRARY("giou_elementwise", (m) => {
  m.def("giou", giou_shape, "giou");
});
