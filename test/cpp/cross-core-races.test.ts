// Cross-core errors of multicore C++ kernels name both cores, both statements (their .cpp lines), the tensor and the
// element range, as for AssemblyScript (test/errors/cross-core-races.test.ts): a core reading output elements another
// core writes, the blog's giou.cpp whose cores overlap, and output elements no core wrote. One library holds every
// kernel (one C++ build). Expected lines are found in the sources by their markers; the function named is the one the
// statement's code ended up in (clang inlines the static helper double_into into each kernel).
import { it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  custom_op, ops, randn, shutdown, tensor, setOutput, type Library,
  CrossCoreRaceError, CrossCoreWriteError, UnwrittenOutputError, ReadOnlyTensorError,
} from "gpsimd";
import { FIXTURES_DIR, REPO, TEST_BUILD_DIR, expectGpsimdError, snapshot } from "../helpers.js";

const DIR = path.join(FIXTURES_DIR, "cpp", "cross-core-races");
const RACES = path.join(DIR, "races.cpp");
const GIOU = path.join(REPO, "examples", "seeds-cpp", "giou.cpp");

/** The 1-based line of `file` that contains `text`. */
function lineOf(file: string, text: string): number {
  const i = readFileSync(file, "utf8").split("\n").findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${file}: no line with ${text}`);
  return i + 1;
}

type Places = { core: number; access: string; start?: number; end?: number; file?: string; line?: number }[];

const N = 1000; // 8 cores of 125 elements
let lib: Library;
beforeAll(() => {
  lib = custom_op.load({
    name: "cpp_cc_races", compute_srcs: [RACES, GIOU], shape_srcs: [path.join(DIR, "register.ts")],
    build_directory: TEST_BUILD_DIR, multicore: true, threads: 2,
  });
}, 300_000);
afterAll(async () => { lib?.unload(); await shutdown(); });

it("a core reading back only what it wrote (a second pass) is no race, and the result is right", () => {
  const x = randn([N], { seed: 13 });
  const want = (x.data() as Float32Array).map((v) => Math.fround(Math.fround(v * 2) + 1));
  expect(ops.cpp_cc_races.own_second_pass(x).data()).toEqual(want);
});

it("core c reading an element core c + 1 wrote: CrossCoreRaceError with both cores, both .cpp lines, the output and the range", () => {
  const x = randn([N], { seed: 14 });
  const before = snapshot(x);
  const read = lineOf(RACES, "// READ_NEIGHBOUR"), write = lineOf(RACES, "// WRITE_PART");
  const e = expectGpsimdError(() => ops.cpp_cc_races.neighbour_second_pass(x), CrossCoreRaceError, "E_CROSS_CORE_RACE", [
    "cpp_cc_races::neighbour_second_pass: core 0 read output elements [125, 126) of float32[1000], which core 1 wrote in the same call",
    new RegExp(`core 0 read \\[125, 126\\) at neighbour_second_pass \\(${RACES}:${read}:\\d+\\); core 1 wrote \\[125, 250\\) at \\w+ \\(${RACES}:${write}:\\d+\\)`),
  ]);
  expect(e.core).toBe(0);
  expect(e.details).toMatchObject({ tensor: "output (float32[1000])", reader: 0, writer: 1, start: 125, end: 126, file: RACES, line: read });
  expect(e.details.places as Places).toMatchObject([{ core: 0, access: "read", line: read }, { core: 1, access: "write", line: write }]);
  expect(snapshot(x)).toEqual(before);
});

it("a core writing an input (which another core reads) is stopped at the write: ReadOnlyTensorError at its .cpp line", () => {
  const e = expectGpsimdError(() => ops.cpp_cc_races.writes_input(randn([N], { seed: 15 })), ReadOnlyTensorError, "E_READ_ONLY", [`${RACES}:${lineOf(RACES, "// WRITE_INPUT")}:`]);
  expect(e.core).toBe(1);
});

it("the blog's giou.cpp: CrossCoreWriteError naming giou.cpp's tcm_to_tensor line for both cores", () => {
  const boxes = () => tensor(Float32Array.from({ length: 16 * 8 * 4 }, (_, i) => [0, 0, 4, 4][i % 4] + (i % 7)), [16, 8, 4]);
  const restore = setOutput({ warn: () => undefined }); // its leaked tcm_output is warned about (test/cpp/seeds.test.ts)
  try {
    const write = lineOf(GIOU, "t_out_tcm_acc.tcm_to_tensor<float>(tcm_output,");
    // partition = 2 rows; core k writes 8 elements at 2k + 8i for i = 0, 1: core 0 [0, 8) and [8, 16), core 1 [2, 10) and [10, 18).
    const e = expectGpsimdError(() => ops.cpp_cc_races.giou(boxes(), boxes()), CrossCoreWriteError, "E_CROSS_CORE_OVERLAP", [
      /^cpp_cc_races::giou: cores 0 and 1 both wrote output elements \[2, 16\) of float32\[16, 8\]/,
      new RegExp(`\ncore 0 wrote \\[0, 8\\) at giou \\(${GIOU}:${write}:\\d+\\); core 1 wrote \\[2, 10\\) at giou \\(${GIOU}:${write}:\\d+\\)`),
    ]);
    expect(e.details.places as Places).toMatchObject([{ core: 0, access: "write", file: GIOU, line: write }, { core: 1, access: "write", file: GIOU, line: write }]);
    expect(e.details).toMatchObject({ file: GIOU, line: write });
  } finally {
    restore();
  }
});

it("output elements no core wrote: UnwrittenOutputError naming the last write before the gap", () => {
  expectGpsimdError(() => ops.cpp_cc_races.short_last(randn([N], { seed: 16 })), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT", [
    "5 output elements were written by no core: [995, 1000)",
    new RegExp(`the last write before \\[995, 1000\\): core 7 wrote \\[875, 995\\) at \\w+ \\(${RACES}:${lineOf(RACES, "// WRITE_PART")}:\\d+\\)`),
  ]);
});
