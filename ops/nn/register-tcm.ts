import { NEURON_LIBRARY } from "gpsimd";
import { log_softmax_shape, log_softmax_backward_shape, nll_loss_shape, nll_loss_backward_shape } from "./shape";

NEURON_LIBRARY("nn_tcm", (m) => {
  m.def("log_softmax", log_softmax_shape, "log_softmax");
  m.def("log_softmax_backward", log_softmax_backward_shape, "log_softmax_backward");
  m.def("nll_loss", nll_loss_shape, "nll_loss");
  m.def("nll_loss_backward", nll_loss_backward_shape, "nll_loss_backward");
});
