// The copies' and helpers' shortcuts for a buffer used chunk after chunk (assembly/ownership.ts's known-written
// ranges, assembly/tcm.ts's known-clean range) excuse only what is still written and clean: a block freed and handed
// out again in the same place, or a read past the range the earlier chunks wrote, fails as it did without them.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { ops, tensor, custom_op, UninitializedTcmError, type Library, type Tensor } from "gpsimd";
import { fixturePath, expectFailureKeepsInputs, values, TEST_BUILD_DIR } from "../helpers.js";

const NAME = "tcm_known_ranges";
const FILE = fixturePath("tcm-known-ranges", "kernels.ts");
/** 1-based line of the first line of the kernel file holding `text`. */
const lineOf = (text: string) => readFileSync(FILE, "utf8").split("\n").findIndex((l) => l.includes(text)) + 1;
type Ops = Record<string, (...args: Tensor[]) => Tensor>;

/** 64 floats of both signs, none zero: 256 bytes, four 64-byte summary granules. */
const xs = Array.from({ length: 64 }, (_, i) => (i % 3 === 0 ? -1 : 1) * (i + 0.5));
const relu = (v: number[]) => v.map((x) => Math.max(x, 0));

describe("known-written and known-clean TCM ranges", () => {
  let lib: Library;
  let o: Ops;
  beforeAll(() => {
    lib = custom_op.load({ name: NAME, compute_srcs: [FILE], shape_srcs: [fixturePath("tcm-known-ranges", "shape.ts")], build_directory: TEST_BUILD_DIR });
    o = ops[NAME] as unknown as Ops;
  }, 120_000);
  afterAll(() => lib?.unload());

  it("chunk after chunk through one buffer (the shortcuts' case) runs clean and right, launch after launch", () => {
    for (const v of [xs, xs.slice(0, 10), xs.map((x) => -x)]) {
      expect(Array.from(o.relu_chunks(tensor(v)).data() as Float32Array)).toEqual(relu(v));
    }
  });

  it("a helper's read of a block freed and handed out again in the same place: its first byte, at the helper's call", () => {
    const x = tensor(xs);
    const line = lineOf("relu_f32(again, again");
    const e = expectFailureKeepsInputs([x], () => o.relu_after_realloc(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      `${NAME}::relu_after_realloc (core 0)`, "read of bytes [0, 256) of the 256-byte TCM block", "byte 0 was never written",
      `at relu_after_realloc (${FILE}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ range: [0, 256], firstUnwritten: 0, line });
  });

  it("a helper's read past the range two chunks wrote (that range read clean just before): the first byte past it", () => {
    const x = tensor(xs);
    const line = lineOf("relu_f32(buf, buf, <usize>n)");
    const e = expectFailureKeepsInputs([x], () => o.relu_past_known(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      `${NAME}::relu_past_known (core 0)`, "read of bytes [0, 256) of the 256-byte TCM block", "byte 128 was never written",
      "its written part ends at byte 128", `at relu_past_known (${FILE}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ range: [0, 256], firstUnwritten: 128, writtenEnd: 128, line });
  });

  it("a copy out of a block freed and handed out again in the same place (the old one was copied out clean): its first element", () => {
    const x = tensor(xs);
    const e = expectFailureKeepsInputs([x], () => o.copy_out_after_realloc(x), UninitializedTcmError, "E_UNINITIALIZED_TCM", [
      `${NAME}::copy_out_after_realloc (core 0)`, "tcm_to_tensor", "element 0 comes from TCM+0x0",
    ]);
    expect(e.details).toMatchObject({ offset: 0 });
  });

  // A launch that frees every block it took leaves both maps clear (tcm_free clears each block's), so the next launch
  // on the core does not clear them again: what the first one wrote must not be found written in the second.
  it("after a launch that wrote a block and freed it, a fresh block in the same place is unwritten: a helper's read fails", () => {
    const x = tensor(xs);
    expect(values(o.fill_and_free(x))).toEqual(xs.map((v) => Math.fround(Math.max(Math.fround(v), 0) + 1)));
    const e = expectFailureKeepsInputs([x], () => o.helper_read_fresh(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      `${NAME}::helper_read_fresh (core 0)`, "byte 0 was never written",
    ]);
    expect(e.details).toMatchObject({ range: [0, 256], firstUnwritten: 0 });
  });

  it("after a launch that wrote a block and freed it, a raw load of a fresh block in the same place fails at its line", () => {
    const x = tensor(xs);
    o.fill_and_free(x);
    const line = lineOf("load<f32>(buf + <usize>((n - 1) * 4))");
    const e = expectFailureKeepsInputs([x], () => o.raw_read_fresh(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      `${NAME}::raw_read_fresh (core 0)`, "read of bytes [252, 256) of the 256-byte TCM block", `at raw_read_fresh (${FILE}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ range: [252, 256], line });
  });

  it("a counted loop run again over a block freed and handed out again in the same place: its first load, at its line", () => {
    const x = tensor(xs);
    const line = lineOf("store<f32>(res + <usize>(j << 2), load<f32>(buf");
    const e = expectFailureKeepsInputs([x], () => o.loop_after_realloc(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      `${NAME}::loop_after_realloc (core 0)`, "byte 0 was never written", `(${FILE}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ firstUnwritten: 0, line });
  });

  it("the same counted loop twice over written blocks: right, and no error", () => {
    expect(values(o.loop_twice(tensor(xs)))).toEqual(xs.map((v) => Math.fround(Math.fround(v * 2) * 2)));
  });
});
