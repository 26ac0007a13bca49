// The default mode's check windows on C++ kernels (the cases: test/tcm-windows-cases.ts).
import { fixturePath } from "../helpers.js";
import { describeWindowCases } from "../tcm-windows-cases.js";

describeWindowCases({
  language: "C++", name: "tcm_windows_cpp",
  computeSrc: fixturePath("cpp-tcm-windows", "windows.cpp"), shapeSrc: fixturePath("cpp-tcm-windows", "register.ts"),
  lines: {
    sumPastRead: "acc += buf[j]", sumOnePastMalloc: "float* buf = (float*)torch::neuron::tcm_malloc", bufMalloc: "volatile float* buf = (float*)torch::neuron::tcm_malloc",
    reallocRead: "acc += buf[0]; // the same address", readAgain: "acc += buf[0];",
    pastGuardStore: "buf[20] = 2.0f", freeTcmStore: "buf[2048] = 2.0f", storeAgain: "buf[0] = 2.0f",
  },
});
