// Reads of TCM the kernel never filled, in the default mode (issue 20, item 1): a 1-D convolution that copies each
// piece without its k - 1 halo reads bytes no copy wrote, and an argmax with `j <= n` reads one element past its
// block. Both returned garbage silently; now each is named at the read's line, with the core, the block (its size
// and tcm_malloc line), the bytes read and where the block's written part ends. The C++ twins are in
// test/cpp/default-checks.test.ts.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { ops, tensor, custom_op, UninitializedTcmError, TcmRangeError, type Library, type Tensor } from "gpsimd";
import { fixturePath, expectFailureKeepsInputs, TEST_BUILD_DIR } from "../helpers.js";

const FILE = fixturePath("tcm-uninit", "conv1d.ts");
/** 1-based line of the first line of the kernel file holding `text`. */
const lineOf = (text: string) => readFileSync(FILE, "utf8").split("\n").findIndex((l) => l.includes(text)) + 1;
const CHUNK = 256;

/** out[i] = sum over t of x[i + t] * w[t], in float32 as the kernel sums. */
function conv1d(x: number[], w: number[]): number[] {
  return Array.from({ length: x.length - w.length + 1 }, (_, i) => {
    let acc = 0;
    for (let t = 0; t < w.length; t++) acc = Math.fround(acc + Math.fround(Math.fround(x[i + t]) * Math.fround(w[t])));
    return acc;
  });
}

const xs = Array.from({ length: 1000 }, (_, i) => Math.sin(i));
const ws = [0.25, 0.5, 0.25];
type Ops = Record<string, (...args: Tensor[]) => Tensor>;

for (const sanitize of [false, true]) {
  describe(`TCM bytes no copy or store wrote (${sanitize ? "sanitize" : "default"} mode)`, () => {
    let lib: Library;
    const name = sanitize ? "tcm_uninit_as_san" : "tcm_uninit_as";
    let o: Ops;
    beforeAll(() => {
      lib = custom_op.load({
        name, compute_srcs: [FILE], shape_srcs: [fixturePath("tcm-uninit", sanitize ? "shape-sanitize.ts" : "shape.ts")],
        build_directory: TEST_BUILD_DIR, multicore: false, sanitize,
      });
      o = ops[name] as unknown as Ops;
    }, 120_000);
    afterAll(() => lib?.unload());

    it("a convolution that copies its halo runs clean and right", () => {
      const y = o.conv1d_halo(tensor(xs), tensor(ws));
      expect(Array.from(y.data() as Float32Array)).toEqual(conv1d(xs, ws));
    });

    it("a convolution without its k - 1 halo: the read of the first byte past the copied piece, at its line", () => {
      const x = tensor(xs), w = tensor(ws);
      const e = expectFailureKeepsInputs([x, w], () => o.conv1d_no_halo(x, w), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
        `${name}::conv1d_no_halo (core 0)`, `read of bytes [${CHUNK * 4}, ${CHUNK * 4 + 4}) of the ${(CHUNK + 2) * 4}-byte TCM block`,
        `tcm_malloc at ${FILE}:${lineOf("const xs = tcm_malloc")}`, `byte ${CHUNK * 4} was never written`, `its written part ends at byte ${CHUNK * 4}`,
        `at conv1d_no_halo (${FILE}:${lineOf("acc += load<f32>(xs")}:`,
      ]);
      expect(e.core).toBe(0);
      expect(e.details).toMatchObject({
        range: [CHUNK * 4, CHUNK * 4 + 4], bytes: 4, firstUnwritten: CHUNK * 4, writtenEnd: CHUNK * 4, file: FILE, line: lineOf("acc += load<f32>(xs"),
        block: { bytes: (CHUNK + 2) * 4, tcmOffset: 0, allocatedAt: { file: FILE, line: lineOf("const xs = tcm_malloc") } },
      });
    });

    it("a SIMD helper (relu_f32) over a row copied one element short: named at the helper's call, once per call", () => {
      const x = tensor([1, -2, 3, -4, 5, -6, 7, -8]);
      const e = expectFailureKeepsInputs([x], () => o.relu_short_copy(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
        `${name}::relu_short_copy (core 0)`, "read of bytes [0, 32) of the 32-byte TCM block", "byte 28 was never written", "its written part ends at byte 28",
        `at relu_short_copy (${FILE}:${lineOf("relu_f32(buf, buf")}:`,
      ]);
      expect(e.details).toMatchObject({ range: [0, 32], firstUnwritten: 28, writtenEnd: 28, line: lineOf("relu_f32(buf, buf") });
    });

    // (In sanitize mode the sanitizer, whose checks run first, names a read past a block's end: test/sanitize.test.ts.)
    it.skipIf(sanitize)("an argmax scanning one element past its row: a read past the block's end, at its line", () => {
      const n = 100;
      const m = tensor(Array.from({ length: 3 * n }, (_, i) => (i * 7919) % 101), [3, n]);
      const e = expectFailureKeepsInputs([m], () => o.argmax_rows(m), TcmRangeError, "E_TCM_READ_OUTSIDE_BLOCK", [
        `${name}::argmax_rows (core 0)`, `read of bytes [${n * 4}, ${n * 4 + 4}) of the ${n * 4}-byte TCM block`,
        `tcm_malloc at ${FILE}:${lineOf("const row = tcm_malloc")}`, `is past its end (byte ${n * 4})`, `its written part ends at byte ${n * 4}`,
        `at argmax_rows (${FILE}:${lineOf("if (load<f32>(row")}:`,
      ]);
      expect(e.details).toMatchObject({ range: [n * 4, n * 4 + 4], writtenEnd: n * 4, pastEnd: true, block: { bytes: n * 4 }, line: lineOf("if (load<f32>(row") });
    });
  });
}
