// A single-core C++ kernel that leaves part of get_dst_tensor() unwritten: UnwrittenOutputError names the kernel, the
// output, the unwritten range and the writes nearest it with their .cpp lines, as for AssemblyScript
// (test/errors/unwritten-output-line.test.ts), found by a rerun of the failed call on copies of its tensors. A kernel
// that wrote nothing is told so, and a kernel whose rerun does not make the same write says its statement was not
// found again. Expected lines are found in the source by their markers; the ranges are worked out by hand (N = 16).
import { it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { custom_op, ops, randn, shutdown, UnwrittenOutputError, type Library } from "gpsimd";
import { FIXTURES_DIR, TEST_BUILD_DIR, expectFailureKeepsInputs, expectGpsimdError } from "../helpers.js";

const DIR = path.join(FIXTURES_DIR, "cpp", "unwritten-output");
const KERNELS = path.join(DIR, "kernels.cpp");

/** The 1-based line of the kernel source that carries `marker`. */
function lineOf(marker: string): number {
  const i = readFileSync(KERNELS, "utf8").split("\n").findIndex((l) => l.includes(`// ${marker}`));
  if (i < 0) throw new Error(`no line marked ${marker}`);
  return i + 1;
}

const N = 16;
const RULE = "the output is not initialised (as on the device): the kernel must write every element of get_dst_tensor()";
let lib: Library;
beforeAll(() => {
  lib = custom_op.load({ name: "cpp_unwritten_line", compute_srcs: [KERNELS], shape_srcs: [path.join(DIR, "register.ts")], build_directory: TEST_BUILD_DIR });
}, 300_000);
afterAll(async () => { lib?.unload(); await shutdown(); });

it("skipping the tail (i < n - 3, element by element): the last write before [13, 16) is element 12's, at its .cpp line", () => {
  const x = randn([N], { seed: 11 });
  const e = expectFailureKeepsInputs([x], () => ops.cpp_unwritten_line.skip_tail(x), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
  const line = lineOf("WRITE_ELEMENT");
  expect(e.message).toMatch(new RegExp(`^cpp_unwritten_line::skip_tail: 3 output elements were never written: \\[13, 16\\) of float32\\[16\\]; ${escape(RULE)}\n`
    + `the last write before \\[13, 16\\): the kernel wrote \\[12, 13\\) at skip_tail \\(${escape(KERNELS)}:${line}:\\d+\\)$`));
  expect(e.details).toMatchObject({ tensor: "output (float32[16])", gaps: [[13, 16]], unwritten: 3, file: KERNELS, line, function: "skip_tail" });
  expect(e.details.places).toMatchObject([{ side: "before", core: 0, access: "write", start: 12, end: 13, file: KERNELS, line }]);
});

it("skipping a middle chunk between two copies: the copy before [5, 9) and the copy after it, each at its own .cpp line", () => {
  const x = randn([N], { seed: 12 });
  const e = expectFailureKeepsInputs([x], () => ops.cpp_unwritten_line.skip_middle(x), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
  const head = lineOf("WRITE_HEAD"), rest = lineOf("WRITE_REST");
  expect(e.message).toMatch(new RegExp(`^cpp_unwritten_line::skip_middle: 4 output elements were never written: \\[5, 9\\) of float32\\[16\\]; ${escape(RULE)}\n`
    + `the last write before \\[5, 9\\): the kernel wrote \\[0, 5\\) at skip_middle \\(${escape(KERNELS)}:${head}:\\d+\\); `
    + `the first write after it: the kernel wrote \\[9, 16\\) at skip_middle \\(${escape(KERNELS)}:${rest}:\\d+\\)$`));
  expect(e.details).toMatchObject({ gaps: [[5, 9]], unwritten: 4, file: KERNELS, line: head });
  expect(e.details.places).toMatchObject([
    { side: "before", start: 0, end: 5, file: KERNELS, line: head },
    { side: "after", start: 9, end: 16, file: KERNELS, line: rest },
  ]);
});

it("writing nothing at all: says so, and names the whole output as the gap", () => {
  const x = randn([N], { seed: 13 });
  const e = expectFailureKeepsInputs([x], () => ops.cpp_unwritten_line.write_nothing(x), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
  expect(e.message).toBe(`cpp_unwritten_line::write_nothing: 16 output elements were never written: [0, 16) of float32[16]; ${RULE}\nthe kernel made no write to get_dst_tensor() at all`);
  expect(e.details).toMatchObject({ gaps: [[0, 16]], unwritten: 16, places: [] });
});

it("a rerun that does not make the write next to the gap (it writes [0, 3), the call wrote [0, 5)): the element, and 'not found again'", () => {
  const e = expectGpsimdError(() => ops.cpp_unwritten_line.differs_on_rerun(randn([N], { seed: 14 })), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
  expect(e.message).toBe(`cpp_unwritten_line::differs_on_rerun: 11 output elements were never written: [5, 16) of float32[16]; ${RULE}\nthe last write before [5, 16): the kernel wrote element 4 (its statement was not found again in a rerun)`);
  expect(e.details.places).toEqual([{ side: "before", core: 0, access: "write" }]);
  expect(e.details.file).toBeUndefined();
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
