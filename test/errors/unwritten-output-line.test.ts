// A single-core AssemblyScript kernel that leaves part of get_dst_tensor() unwritten: UnwrittenOutputError names the
// kernel, the output, the unwritten range and the writes nearest it (the last one that ended where the gap starts, the
// first one that starts where it ends) with their source lines, found by a rerun of the failed call on copies of its
// tensors (host/cores/locate-rerun.ts). A kernel that wrote nothing is told so. The expected lines are found in the
// kernel source by their markers; the ranges are worked out by hand from the kernels (N = 16). A multicore call's
// gap between two cores' parts names both neighbours the same way, with their cores.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { custom_op, ops, randn, shutdown, UnwrittenOutputError, type Library } from "gpsimd";
import { FIXTURES_DIR, TEST_BUILD_DIR, expectFailureKeepsInputs, expectGpsimdError } from "../helpers.js";

const DIR = path.join(FIXTURES_DIR, "unwritten-output");
const KERNELS = path.join(DIR, "kernels.ts");
const MULTICORE = path.join(DIR, "multicore.ts");

/** The 1-based line of `file` that carries `marker`. */
function lineOf(marker: string, file = KERNELS): number {
  const i = readFileSync(file, "utf8").split("\n").findIndex((l) => l.includes(`// ${marker}`));
  if (i < 0) throw new Error(`${file}: no line marked ${marker}`);
  return i + 1;
}

const N = 16;
const RULE = "the output is not initialised (as on the device): the kernel must write every element of get_dst_tensor()";
let lib: Library, multicore: Library;
beforeAll(() => {
  lib = custom_op.load({ name: "unwritten_line", compute_srcs: [KERNELS], shape_srcs: [path.join(DIR, "register.ts")], build_directory: TEST_BUILD_DIR });
  multicore = custom_op.load({
    name: "unwritten_line_mc", compute_srcs: [MULTICORE], shape_srcs: [path.join(DIR, "register-multicore.ts")],
    build_directory: TEST_BUILD_DIR, multicore: true, threads: 2,
  });
}, 120_000);
afterAll(async () => { lib?.unload(); multicore?.unload(); await shutdown(); });

describe("a single-core kernel's unwritten output names the writes nearest the gap", () => {
  it("skipping the tail (i < n - 3, element by element): the last write before [13, 16) is element 12's, at its line", () => {
    const x = randn([N], { seed: 1 });
    const e = expectFailureKeepsInputs([x], () => ops.unwritten_line.skip_tail(x), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
    const line = lineOf("WRITE_ELEMENT");
    expect(e.message).toMatch(new RegExp(`^unwritten_line::skip_tail: 3 output elements were never written: \\[13, 16\\) of float32\\[16\\]; ${escape(RULE)}\n`
      + `the last write before \\[13, 16\\): the kernel wrote \\[12, 13\\) at skip_tail \\(${escape(KERNELS)}:${line}:\\d+\\)$`));
    expect(e.details).toMatchObject({ tensor: "output (float32[16])", gaps: [[13, 16]], unwritten: 3, file: KERNELS, line, function: "skip_tail" });
    expect(e.details.places).toMatchObject([{ side: "before", core: 0, access: "write", start: 12, end: 13, file: KERNELS, line }]);
  });

  it("skipping a middle chunk between two copies: the copy before [5, 9) and the copy after it, each at its own line", () => {
    const x = randn([N], { seed: 2 });
    const e = expectFailureKeepsInputs([x], () => ops.unwritten_line.skip_middle(x), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
    const head = lineOf("WRITE_HEAD"), rest = lineOf("WRITE_REST");
    expect(e.message).toMatch(new RegExp(`^unwritten_line::skip_middle: 4 output elements were never written: \\[5, 9\\) of float32\\[16\\]; ${escape(RULE)}\n`
      + `the last write before \\[5, 9\\): the kernel wrote \\[0, 5\\) at skip_middle \\(${escape(KERNELS)}:${head}:\\d+\\); `
      + `the first write after it: the kernel wrote \\[9, 16\\) at skip_middle \\(${escape(KERNELS)}:${rest}:\\d+\\)$`));
    expect(e.details).toMatchObject({ gaps: [[5, 9]], unwritten: 4, file: KERNELS, line: head });
    expect(e.details.places).toMatchObject([
      { side: "before", start: 0, end: 5, file: KERNELS, line: head },
      { side: "after", start: 9, end: 16, file: KERNELS, line: rest },
    ]);
  });

  it("writing nothing at all: says so, and names the whole output as the gap", () => {
    const x = randn([N], { seed: 3 });
    const e = expectFailureKeepsInputs([x], () => ops.unwritten_line.write_nothing(x), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
    expect(e.message).toBe(`unwritten_line::write_nothing: 16 output elements were never written: [0, 16) of float32[16]; ${RULE}\nthe kernel made no write to get_dst_tensor() at all`);
    expect(e.details).toMatchObject({ gaps: [[0, 16]], unwritten: 16, places: [] });
  });

  it("the same call through .async (on a core thread) names the same writes", async () => {
    const e = await ops.unwritten_line.skip_middle.async(randn([N], { seed: 4 })).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(UnwrittenOutputError);
    expect((e as UnwrittenOutputError).message).toContain(`the first write after it: the kernel wrote [9, 16) at skip_middle (${KERNELS}:${lineOf("WRITE_REST")}:`);
  });
});

describe("a multicore call's unwritten output names the cores' writes nearest the gap", () => {
  const M = 1000; // 8 cores of 125 elements

  it("core 3 idle: no core wrote [375, 500); core 2's copy ends where it starts, core 4's begins where it ends", () => {
    const x = randn([M], { seed: 7 });
    const e = expectFailureKeepsInputs([x], () => ops.unwritten_line_mc.core_three_idle(x), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
    const line = lineOf("WRITE_PART", MULTICORE);
    expect(e.message).toMatch(new RegExp(`^unwritten_line_mc::core_three_idle: 125 output elements were written by no core: \\[375, 500\\) of float32\\[1000\\]; every element of get_dst_tensor\\(\\) must be written by exactly one core\n`
      + `the last write before \\[375, 500\\): core 2 wrote \\[250, 375\\) at core_three_idle \\(${escape(MULTICORE)}:${line}:\\d+\\); `
      + `the first write after it: core 4 wrote \\[500, 625\\) at core_three_idle \\(${escape(MULTICORE)}:${line}:\\d+\\)$`));
    expect(e.details.places).toMatchObject([
      { side: "before", core: 2, start: 250, end: 375, file: MULTICORE, line },
      { side: "after", core: 4, start: 500, end: 625, file: MULTICORE, line },
    ]);
  });

  it("no core writing: says so", () => {
    const e = expectGpsimdError(() => ops.unwritten_line_mc.all_idle(randn([M], { seed: 8 })), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT");
    expect(e.message).toBe("unwritten_line_mc::all_idle: 1000 output elements were written by no core: [0, 1000) of float32[1000]; every element of get_dst_tensor() must be written by exactly one core\nno core wrote to get_dst_tensor() at all");
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
