// The default mode's check windows on AssemblyScript kernels (the cases: test/tcm-windows-cases.ts).
import { fixturePath } from "../helpers.js";
import { describeWindowCases } from "../tcm-windows-cases.js";

describeWindowCases({
  language: "AssemblyScript", name: "tcm_windows_as",
  computeSrc: fixturePath("tcm-windows", "windows.ts"), shapeSrc: fixturePath("tcm-windows", "shape.ts"),
  lines: {
    sumPastRead: "acc += load<f32>(buf", sumOnePastMalloc: "const buf = tcm_malloc", bufMalloc: "const buf = tcm_malloc",
    reallocRead: "acc += load<f32>(buf); // the same address", readAgain: "acc += load<f32>(buf);",
    pastGuardStore: "store<f32>(buf + 80", freeTcmStore: "store<f32>(buf + 8192", storeAgain: "store<f32>(buf, 2)",
  },
});
