// ops/giou's TCM kernel under its own name, built without the default mode's raw load and store checks (bench/suites/checks.ts).
import { NEURON_LIBRARY } from "gpsimd";
import { giou_shape } from "../../ops/giou/shape";

NEURON_LIBRARY("bench_giou_tcm_unchecked", (m) => {
  m.def("giou", giou_shape, "giou");
});
