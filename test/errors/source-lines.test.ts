// Every kernel error names the kernel statement that caused it: the accessor,
// TCM, stream and coherence errors the kernel library reports name the line
// of the call in the kernel's own source (not the library's), and traps
// inside loops (where the build adds a stop poll) keep their line.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import { readFileSync } from "node:fs";
import {
  ops, tensor, zeros, kFloat,
  AccessorIndexError, TcmRangeError, TensorRangeError, TcmFreeError, TcmGuardError, StreamAccessorError, CoherenceError,
  KernelTrapError, type GpsimdError, type Library,
} from "gpsimd";
import { loadFixture, fixturePath, expectFailureKeepsInputs, expectNegateWorks, captureOutput, values } from "../helpers.js";

const LIB = "errors_lines";
const SOURCE = fixturePath("errors", "lines.ts");
const LINES = readFileSync(SOURCE, "utf8").split("\n");
const COHERENT = 0, INCOHERENT_VERBOSE = 1;

/** Line (1-based) of the fixture marked `// @marker`. */
function lineOf(marker: string): number {
  const index = LINES.findIndex((l) => l.includes(`// @${marker}`));
  if (index < 0) throw new Error(`no // @${marker} in ${SOURCE}`);
  return index + 1;
}

/** Column (1-based) of `token` on the line marked `// @marker`. */
function columnOf(marker: string, token: string): number {
  const column = LINES[lineOf(marker) - 1]!.indexOf(token);
  if (column < 0) throw new Error(`no ${token} on the line of @${marker}`);
  return column + 1;
}

/** Asserts that the error names the kernel function and the marked line (message and details). */
function expectLine(e: GpsimdError, fn: string, marker: string): void {
  const line = lineOf(marker);
  expect(e.message).toMatch(new RegExp(` at ${fn} \\(${SOURCE.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:${line}:\\d+\\)`));
  expect(e.details).toMatchObject({ function: fn, file: SOURCE, line });
}

describe("kernel library errors name the kernel's source line", () => {
  let lib: Library;
  const x = tensor([1, 2, 3, 4, 5, 6, 7, 8]);

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["lines.ts", "good.ts"], shape: ["register-lines.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[LIB].negate));

  it("the kernels succeed where they do not fail", () => {
    expect(values(ops[LIB].two_accessors(x, 0))).toEqual(values(x));
    expect(values(ops[LIB].tcm_blocks(x, 0))).toEqual(values(x));
    expect(values(ops[LIB].streams(x, 0))).toEqual(values(x));
    expect(values(ops[LIB].loop_traps(x, 0, -1))).toEqual([[1, 2, 3, 4, 5, 6, 7, 8].reduce((q, i) => q + Math.trunc(1000 / (i - 1 + 1)), 0)]);
  });

  it("an element-wise read out of range names the read, not the write beside it", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].two_accessors(x, 1), AccessorIndexError, "E_ACCESSOR_INDEX", ["index 8 is out of range"]);
    expectLine(e, "two_accessors", "read");
  });

  it("an element-wise write out of range names the write", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].two_accessors(x, 2), AccessorIndexError, "E_ACCESSOR_INDEX", ["the output"]);
    expectLine(e, "two_accessors", "write");
  });

  it("a TCM copy beyond its block names the copy", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].tcm_blocks(x, 1), TcmRangeError, "E_TCM_RANGE");
    expectLine(e, "tcm_blocks", "tcm-range");
  });

  it("a TCM copy beyond the tensor names the copy", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].tcm_blocks(x, 2), TensorRangeError, "E_TENSOR_RANGE");
    expectLine(e, "tcm_blocks", "tensor-range");
  });

  it("tcm_free of a pointer tcm_malloc did not return names the tcm_free", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].tcm_blocks(x, 4), TcmFreeError, "E_TCM_FREE_FOREIGN");
    expectLine(e, "tcm_blocks", "free-second");
  });

  it("overwritten guard bytes are found at the tcm_free of the block, and name it", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].tcm_blocks(x, 3), TcmGuardError, "E_TCM_GUARD", ["the first at byte 32 of the block, which has 32 bytes"]);
    expectLine(e, "tcm_blocks", "free-second");
  });

  it("a read stream past the end, inside a loop, names the read", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].streams(x, 1), StreamAccessorError, "E_STREAM_END");
    expectLine(e, "streams", "read-past-end");
  });

  it("an incoherent accessor names the line that opens it, its value unused; so does the INCOHERENT_VERBOSE warning", () => {
    // Opening an accessor stays a call in the optimised build (build/call-sites.ts): inlined, it left the statement,
    // whose value is unused, no source position of its own, and the error named the statement before.
    const e = expectFailureKeepsInputs([x], () => ops[LIB].coherence(x, COHERENT), CoherenceError, "E_INCOHERENT");
    expectLine(e, "coherence", "incoherent");
    expect(e.details).toMatchObject({ column: columnOf("incoherent", "out.accessor") });
    const line = lineOf("incoherent");
    const out = captureOutput(() => ops[LIB].coherence(x, INCOHERENT_VERBOSE));
    expect(values(out.result)).toEqual(values(x));
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toContain(` at coherence (${SOURCE}:${line}:`);
  });
});

describe("traps keep their source line, inside loops too", () => {
  let lib: Library;
  const x = tensor([1, 2, 3, 4, 5, 6, 7, 8]);
  afterEach(() => expectNegateWorks(ops[LIB].negate));

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["lines.ts", "good.ts"], shape: ["register-lines.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());

  it.each([
    [0, "for", 3, "1000 /"], [1, "while", 3, "2000 /"], [2, "do", 3, "3000 /"], [3, "nested", 5, "(4000 + j) /"], [4, "condition", 8, "5000 /"],
    // the division itself has no mapping: the line is its operands'
    [5, "after-accessor", 3, null], [6, "straight", 2, null],
  ] as const)("loop kind %i (%s): a division by zero names the division", (kind, marker, d, token) => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].loop_traps(x, kind, d), KernelTrapError, "E_TRAP", [
      `${LIB}::loop_traps (core 0): trap: divide by zero at loop_traps (${SOURCE}:${lineOf(marker)}:`,
    ]);
    expect(e.details).toMatchObject({ function: "loop_traps", file: SOURCE, line: lineOf(marker) });
    if (token) expect(e.details).toMatchObject({ column: columnOf(marker, token) });
  });

  it("a loop that does not trap runs to the end", () => {
    expect(values(ops[LIB].loop_traps(zeros([3], kFloat), 1, 7))).toEqual([Math.trunc(2000 / -7) + Math.trunc(2000 / -6) + Math.trunc(2000 / -5)]);
  });
});
