import { NEURON_LIBRARY } from "gpsimd";
import { gemm_shape, gemm_nt_shape, gemm_tn_shape, linear_shape, bias_grad_shape, pack_weights_shape, linear_packed_shape } from "./shape";

NEURON_LIBRARY("gemm_tcm", (m) => {
  m.def("gemm", gemm_shape, "gemm");
  m.def("gemm_nt", gemm_nt_shape, "gemm_nt");
  m.def("gemm_tn", gemm_tn_shape, "gemm_tn");
  m.def("linear", linear_shape, "linear");
  m.def("bias_grad", bias_grad_shape, "bias_grad");
  m.def("pack_weights", pack_weights_shape, "pack_weights");
  m.def("linear_packed", linear_packed_shape, "linear_packed");
});
