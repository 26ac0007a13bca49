// TCM misuse in single-core kernels: copies outside the tensor or outside a
// live block, copies into an input, bad frees, an exhausted pool, leaks,
// overruns caught by guard bytes, and never-written TCM reaching the output.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import {
  ops, tensor, randn,
  TensorRangeError, TcmRangeError, ReadOnlyTensorError, TcmFreeError, TcmLeakError, TcmGuardError, UninitializedTcmError,
  KernelLimitError, type Library,
} from "gpsimd";
import { loadFixture, expectFailureKeepsInputs, expectNegateWorks, captureOutput, values, fixturePath } from "../helpers.js";
import { readFileSync } from "node:fs";

const COPIES = "errors_tcm_copies";
const BLOCKS = "errors_tcm_blocks";
const x = tensor([1, 2, 3, 4, 5, 6, 7, 8]); // float32[8]
const T_IN = "argument 0 't_in' (float32[8])";

/** Element i of the expected output: x where [offset, offset + count) was copied, 0 elsewhere. */
function copied(offset: number, count: number): number[] {
  return values(x).map((v, i) => (i >= offset && i < offset + count ? v : 0));
}

describe("TCM copies", () => {
  let lib: Library;
  const at = (op: string) => `${COPIES}::${op} (core 0)`;

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: COPIES, compute: ["tcm-copies.ts", "good.ts"], shape: ["register-tcm-copies.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[COPIES].negate));

  it("copies that end exactly at the tensor's end or the block's end are fine", () => {
    expect(values(ops[COPIES].copy_in(x, 2, 6, 6))).toEqual(copied(2, 6));
    expect(values(ops[COPIES].copy_in(x, 0, 8, 8))).toEqual(copied(0, 8));
    expect(values(ops[COPIES].copy_out(x, 6, 2))).toEqual([0, 0, 0, 0, 0, 0, 1, 1]);
  });

  it("tensor_to_tcm past the tensor's end names the range and the element count", () => {
    const e = expectFailureKeepsInputs([x], () => ops[COPIES].copy_in(x, 4, 5, 8), TensorRangeError, "E_TENSOR_RANGE", [
      at("copy_in"), `TCM copy of 5 elements at offset 4 reaches outside ${T_IN}`, "elements [4, 9) requested, the tensor has 8",
      "expected 0 <= offset and offset + count <= 8",
    ]);
    expect(e.details).toMatchObject({ offset: 4, count: 5, numel: 8 });
  });

  it("tensor_to_tcm at a negative offset", () => {
    expectFailureKeepsInputs([x], () => ops[COPIES].copy_in(x, -1, 2, 8), TensorRangeError, "E_TENSOR_RANGE", [
      at("copy_in"), "TCM copy of 2 elements at offset -1", "elements [-1, 1) requested", "expected 0 <= offset",
    ]);
  });

  it("tcm_to_tensor past the output's end names the output", () => {
    expectFailureKeepsInputs([x], () => ops[COPIES].copy_out(x, 6, 3), TensorRangeError, "E_TENSOR_RANGE", [
      at("copy_out"), "TCM copy of 3 elements at offset 6 reaches outside the output (float32[8])", "elements [6, 9) requested",
    ]);
  });

  it("a copy of more bytes than the block has names the block's address and room", () => {
    const e = expectFailureKeepsInputs([x], () => ops[COPIES].copy_in(x, 0, 8, 4), TcmRangeError, "E_TCM_RANGE", [
      at("copy_in"), `TCM copy for ${T_IN} uses 32 bytes at TCM+0x0`, "allowed: at most 16 bytes",
    ]);
    expect(e.details).toMatchObject({ bytes: 32, room: 16 });
  });

  it("a copy into a freed block", () => {
    expectFailureKeepsInputs([x], () => ops[COPIES].copy_into_freed(x), TcmRangeError, "E_TCM_RANGE", [
      at("copy_into_freed"), `TCM copy for ${T_IN} uses 16 bytes at TCM+0x0, a block that was already freed`,
    ]);
  });

  it("a copy into memory that is not TCM (the kernel heap)", () => {
    expectFailureKeepsInputs([x], () => ops[COPIES].copy_into_heap(x), TcmRangeError, "E_TCM_RANGE", [
      at("copy_into_heap"), `TCM copy for ${T_IN} uses 16 bytes at 0x`, "(not in this core's TCM), which is not inside a live tcm_malloc block",
    ]);
  });

  it("tcm_to_tensor into an input: inputs are read-only", () => {
    expectFailureKeepsInputs([x], () => ops[COPIES].copy_into_input(x), ReadOnlyTensorError, "E_READ_ONLY", [
      at("copy_into_input"), `write through a TCM accessor into ${T_IN}, which is an operator input and read-only (at element 0)`,
    ]);
  });

  it("tcm_free of a pointer inside a block (ptr + 4)", () => {
    const e = expectFailureKeepsInputs([x], () => ops[COPIES].free_inside(x), TcmFreeError, "E_TCM_FREE_FOREIGN", [
      at("free_inside"), "tcm_free(TCM+0x4): this pointer was not returned by tcm_malloc",
    ]);
    expect(e.core).toBe(0);
  });

  it("tcm_free of a block already freed", () => {
    expectFailureKeepsInputs([x], () => ops[COPIES].free_twice(x), TcmFreeError, "E_TCM_DOUBLE_FREE", [
      at("free_twice"), "tcm_free(TCM+0x0): this block was already freed",
    ]);
  });

  it("TCM the kernel never wrote reaching the output names the first such element", () => {
    const e = expectFailureKeepsInputs([x], () => ops[COPIES].half_written(x), UninitializedTcmError, "E_UNINITIALIZED_TCM", [
      at("half_written"), "tcm_to_tensor", "the output (float32[8])", "element 4 comes from TCM+0x10",
    ]);
    expect(e.details).toMatchObject({ offset: 4 });
  });

  it("with checks off, the half-written copy goes through", () => {
    lib.configure({ checks: false });
    try {
      expect(values(ops[COPIES].half_written(x)).slice(0, 4)).toEqual([1, 2, 3, 4]);
    } finally {
      lib.configure({ checks: true });
    }
  });
});

describe("TCM blocks", () => {
  let lib: Library;
  const at = (op: string) => `${BLOCKS}::${op} (core 0)`;
  /** "file:line:column" of the tcm_malloc call in kernel `fn` of tcm-blocks.ts (its first one). */
  const allocation = (fn: string): string => {
    const source = fixturePath("errors", "tcm-blocks.ts");
    const lines = readFileSync(source, "utf8").split("\n");
    const line = lines.findIndex((l, i) => i > lines.findIndex((k) => k.startsWith(`export function ${fn}(`)) && l.includes("tcm_malloc("));
    return `${source}:${line + 1}:${lines[line].indexOf("tcm_malloc(") + 1}`;
  };

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: BLOCKS, compute: ["tcm-blocks.ts", "good.ts"], shape: ["register-tcm-blocks.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[BLOCKS].negate));

  it("the 16 KB pool gives four 4 KB blocks; the fifth tcm_malloc returns 0, and tcm_free(0) is fine", () => {
    const out = captureOutput(() => ops[BLOCKS].five_blocks(randn([5], { seed: 1 })));
    expect(values(out.result)).toEqual([1, 1, 1, 1, 0]);
    expect(out.warnings).toEqual([]);
  });

  it("a block left allocated at return is a warning by default, and the call succeeds", () => {
    const out = captureOutput(() => ops[BLOCKS].leak(x));
    expect(values(out.result)).toEqual(new Array(8).fill(1));
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toBe(`${at("leak")}: 1 TCM block (100 bytes) still allocated when the kernel returned (call tcm_free, and close() stream accessors): the first at TCM+0x0, allocated by tcm_malloc at leak (${allocation("leak")})`);
  });

  it("a block left allocated is a TcmLeakError with leak_is_error", () => {
    lib.configure({ leak_is_error: true });
    try {
      const e = expectFailureKeepsInputs([x], () => ops[BLOCKS].leak(x), TcmLeakError, "E_TCM_LEAK", [
        at("leak"), "1 TCM block (100 bytes) still allocated when the kernel returned (call tcm_free, and close() stream accessors): the first at TCM+0x0, allocated by tcm_malloc",
        ` at leak (${allocation("leak")})`,
      ]);
      expect(e.details).toMatchObject({ blocks: 1, bytes: 100 });
    } finally {
      lib.configure({ leak_is_error: false });
    }
  });

  it("a store past a block's end is caught by tcm_free", () => {
    // The float 1.0 is the bytes 00 00 80 3F, none of them the guard value 0xFD: the first changed byte is the first written.
    const e = expectFailureKeepsInputs([x], () => ops[BLOCKS].overrun_then_free(x), TcmGuardError, "E_TCM_GUARD", [
      at("overrun_then_free"), "bytes past the end of the TCM block at TCM+0x0 were overwritten",
      "the first at byte 16 of the block, which has 16 bytes (allowed: bytes 0 to 15); the kernel wrote past the block",
    ]);
    expect(e).toMatchObject({ core: 0, details: { bytes: 16, past: 0, firstWritten: 16, firstChanged: 16 } });
  });

  it("a store whose first bytes equal the guard value: the error says which bytes the write may have begun at", () => {
    // 0x1234FDFD at byte 4096 is FD FD 34 12: bytes 4096 and 4097 keep the guard value, 4098 is the first that changes.
    // Without sanitize only changed bytes can be seen, so the message must not call byte 4098 the first written.
    const e = expectFailureKeepsInputs([x], () => ops[BLOCKS].overrun_guard_value(x), TcmGuardError, "E_TCM_GUARD", [
      at("overrun_guard_value"), "bytes past the end of the TCM block at TCM+0x0 were overwritten",
      "the first changed byte is byte 4098 of the block, which has 4 KB (allowed: bytes 0 to 4095); bytes 4096 to 4097 still hold the guard value 0xfd",
      "so the write began at one of bytes 4096 to 4098 (sanitize: true stops at the store itself)",
    ]);
    expect(e.message).not.toContain("the first at byte 4098");
    expect(e).toMatchObject({ core: 0, details: { bytes: 4096, past: 2, firstWritten: null, firstChanged: 4098 } });
  });

  it("a store past the end of a block left allocated is caught when the kernel returns", () => {
    // The first block (64 bytes) and its 16 guard bytes fill TCM+0x0..0x4f; blocks start on 64-byte granules: the second at TCM+0x80.
    const out = captureOutput(() => expectFailureKeepsInputs([x], () => ops[BLOCKS].overrun_and_leak(x), TcmGuardError, "E_TCM_GUARD", [
      at("overrun_and_leak"), "the TCM block at TCM+0x80", "the first changed byte is byte 32 of the block, which has 24 bytes (allowed: bytes 0 to 23); bytes 24 to 31 still hold the guard value 0xfd",
    ]));
    expect(out.warnings).toEqual([]);
  });

  it("more live blocks than a core's table holds", () => {
    expectFailureKeepsInputs([x], () => ops[BLOCKS].many_blocks(x), KernelLimitError, "E_TOO_MANY", [
      at("many_blocks"), "more than 64 TCM blocks in one launch",
    ]);
  });
});
