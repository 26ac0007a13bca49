// Counted loops whose accesses are tested once, over the loop's whole range (build/ownership-loops.ts), on real
// kernels: a range that is not all fine sends the loop back to each access's own check, so the read of the first
// unwritten byte and the first store outside the block fail at their lines, as before; a loop of stores marks exactly
// the bytes it writes (test/ownership-loops.test.ts counts the slow path's calls on hand-made modules).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { ops, tensor, custom_op, UninitializedTcmError, TcmRangeError, type Library, type Tensor } from "gpsimd";
import { fixturePath, expectFailureKeepsInputs, values, TEST_BUILD_DIR } from "../helpers.js";

const NAME = "tcm_loops";
const FILE = fixturePath("tcm-loops", "loops.ts");
/** 1-based line of the first line holding `text`, searching from the line holding `after`. */
const lineOf = (text: string, after: string) => {
  const lines = readFileSync(FILE, "utf8").split("\n");
  const from = lines.findIndex((l) => l.includes(after));
  return lines.findIndex((l, i) => i >= from && l.includes(text)) + 1;
};
type Ops = Record<string, (x: Tensor) => Tensor>;
const N = 64;
const xs = Array.from({ length: N }, (_, i) => i - 20.5);

describe("counted loops tested once per loop", () => {
  let lib: Library;
  let o: Ops;
  beforeAll(() => {
    lib = custom_op.load({ name: NAME, compute_srcs: [FILE], shape_srcs: [fixturePath("tcm-loops", "shape.ts")], build_directory: TEST_BUILD_DIR });
    o = ops[NAME] as unknown as Ops;
  }, 300_000);
  afterAll(() => lib?.unload());

  it("a loop of stores over a whole block (v128, then one by one), copied out: the values stored", () => {
    for (const n of [N, 7]) {
      const expected = Array.from({ length: n }, (_, j) => (j < (n & ~3) ? j - (j % 4) : j));
      expect(values(o.stores_read_back(tensor(xs.slice(0, n))))).toEqual(expected);
    }
  });

  it("a loop reading one element past what a copy wrote fails at its read, naming that element's bytes", () => {
    const x = tensor(xs);
    const line = lineOf("acc += load<f32>(buf", "sum_past_written");
    const e = expectFailureKeepsInputs([x], () => o.sum_past_written(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      `${NAME}::sum_past_written (core 0)`, `read of bytes [${(N - 1) * 4}, ${N * 4}) of the ${N * 4}-byte TCM block`,
      `byte ${(N - 1) * 4} was never written`, `its written part ends at byte ${(N - 1) * 4}`, `at sum_past_written (${FILE}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ range: [(N - 1) * 4, N * 4], firstUnwritten: (N - 1) * 4, line });
  });

  it("loops of stores mark exactly what they wrote: a read of the one element they left fails at its line", () => {
    const x = tensor(xs);
    const line = lineOf("acc += load<f32>(buf", "read_one_past_stores");
    const e = expectFailureKeepsInputs([x], () => o.read_one_past_stores(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      `${NAME}::read_one_past_stores (core 0)`, `read of bytes [${(N - 1) * 4}, ${N * 4})`, `its written part ends at byte ${(N - 1) * 4}`,
      `at read_one_past_stores (${FILE}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ range: [(N - 1) * 4, N * 4], writtenEnd: (N - 1) * 4, line });
  });

  it("a loop of stores running past its block is refused at its first store outside the block and its guard bytes", () => {
    const x = tensor(xs);
    const line = lineOf("store<f32>(buf", "store_loop_past_block");
    const at = N * 4 + 16;
    const e = expectFailureKeepsInputs([x], () => o.store_loop_past_block(x), TcmRangeError, "E_TCM_WRITE_OUTSIDE_BLOCK", [
      `${NAME}::store_loop_past_block (core 0)`, `store of 4 bytes at TCM+0x${at.toString(16)} is in no live tcm_malloc block`, `:${line}:`,
    ]);
    expect(e.details).toMatchObject({ bytes: 4, tcmOffset: at, line });
  });
});
