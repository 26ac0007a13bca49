// The check windows of the default mode (build/ownership-pass.ts), tested the same way on an AssemblyScript and a C++
// kernel (test/errors/tcm-windows.test.ts, test/cpp/tcm-windows.test.ts; fixtures tcm-windows/windows.ts and
// cpp-tcm-windows/windows.cpp): a loop over a whole block passes and computes right; one read past it fails at its
// line; a window does not outlive the calls that free or hand out its block (a read or store through the same pointer
// after tcm_free, or after tcm_free and tcm_malloc of the same TCM, fails at its line); a store into TCM outside
// every live block (just past a block's guard bytes, or into free TCM) is refused at its line (E_TCM_WRITE_OUTSIDE_BLOCK).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { custom_op, ops, tensor, shutdown, UninitializedTcmError, TcmRangeError, type Library, type Tensor } from "gpsimd";
import { TEST_BUILD_DIR, expectFailureKeepsInputs, values } from "./helpers.js";

/** What differs between the two languages: the library, its kernel file, and the text on each line the errors name. */
export interface WindowFixture {
  language: string;
  name: string;
  computeSrc: string;
  shapeSrc: string;
  lines: {
    sumPastRead: string; bufMalloc: string; readAgain: string; reallocRead: string; pastGuardStore: string; freeTcmStore: string;
    storeAgain: string; sumOnePastMalloc: string;
  };
}

export function describeWindowCases(f: WindowFixture): void {
  /** 1-based line of the first line of the kernel file holding `text`, searching from the line holding `after`. */
  const lineOf = (text: string, after?: string) => {
    const lines = readFileSync(f.computeSrc, "utf8").split("\n");
    const from = after ? lines.findIndex((l) => l.includes(after)) : 0;
    const at = lines.findIndex((l, i) => i >= from && l.includes(text));
    if (at < 0) throw new Error(`no line holding ${text} in ${f.computeSrc}`);
    return at + 1;
  };
  type Ops = Record<string, (x: Tensor) => Tensor>;
  let lib: Library;
  let o: Ops;
  beforeAll(() => {
    lib = custom_op.load({ name: f.name, compute_srcs: [f.computeSrc], shape_srcs: [f.shapeSrc], build_directory: TEST_BUILD_DIR });
    o = ops[f.name] as unknown as Ops;
  }, 300_000);
  afterAll(async () => {
    lib?.unload();
    await shutdown();
  });
  const xs = Array.from({ length: 64 }, (_, i) => (i % 7) - 3 + i / 64);
  const where = (fn: string) => `${f.name}::${fn} (core 0)`;

  describe(`check windows on ${f.language} kernels`, () => {
    it("a loop reading every element of a block passes, with the right sum", () => {
      let sum = 0;
      for (const v of xs) sum = Math.fround(sum + Math.fround(v));
      expect(values(o.sum_block(tensor(xs)))).toEqual([sum]);
    });

    it("a loop filling a block with stores, then read back, passes: x * 2", () => {
      expect(values(o.double_by_stores(tensor(xs)))).toEqual(xs.map((v) => Math.fround(Math.fround(v) * 2)));
    });

    it("the same loop reading one element past the block fails at the read's line", () => {
      const x = tensor(xs);
      const n = xs.length;
      const line = lineOf(f.lines.sumPastRead, "sum_one_past");
      const e = expectFailureKeepsInputs([x], () => o.sum_one_past(x), TcmRangeError, "E_TCM_READ_OUTSIDE_BLOCK", [
        where("sum_one_past"), `read of bytes [${n * 4}, ${n * 4 + 4}) of the ${n * 4}-byte TCM block`, `is past its end (byte ${n * 4})`,
        `(tcm_malloc at ${f.computeSrc}:${lineOf(f.lines.sumOnePastMalloc, "sum_one_past")})`, `:${line}:`,
      ]);
      expect(e.details).toMatchObject({ range: [n * 4, n * 4 + 4], pastEnd: true, line });
    });

    it("a read through a pointer whose block was freed and handed out again (the same TCM) fails: the window died with the call", () => {
      const x = tensor(xs);
      const line = lineOf(f.lines.reallocRead, "read_after_realloc");
      const e = expectFailureKeepsInputs([x], () => o.read_after_realloc(x), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
        where("read_after_realloc"), "read of bytes [0, 4) of the 64-byte TCM block at TCM+0x0", "byte 0 was never written since tcm_malloc", `:${line}:`,
      ]);
      expect(e.details).toMatchObject({ range: [0, 4], firstUnwritten: 0, line });
    });

    it("a read through a pointer whose block was freed fails: TCM in no live block", () => {
      const x = tensor(xs);
      const line = lineOf(f.lines.readAgain, "read_after_free");
      const e = expectFailureKeepsInputs([x], () => o.read_after_free(x), TcmRangeError, "E_TCM_READ_OUTSIDE_BLOCK", [
        where("read_after_free"), "read of 4 bytes at TCM+0x0 is in no live tcm_malloc block", `:${line}:`,
      ]);
      expect(e.details).toMatchObject({ address: expect.any(Number), bytes: 4, tcmOffset: 0, line });
    });

    it("a store one element past a block's guard bytes is refused at its line, naming the block", () => {
      const x = tensor(xs);
      const line = lineOf(f.lines.pastGuardStore, "store_past_guard");
      const e = expectFailureKeepsInputs([x], () => o.store_past_guard(x), TcmRangeError, "E_TCM_WRITE_OUTSIDE_BLOCK", [
        where("store_past_guard"), "store of 4 bytes at TCM+0x50 is in no live tcm_malloc block",
        `the nearest is the 64-byte TCM block at TCM+0x0 (tcm_malloc at ${f.computeSrc}:${lineOf(f.lines.bufMalloc, "store_past_guard")})`,
        "at byte 80 of it, 16 bytes past its end (byte 64) and past its 16 guard bytes", `:${line}:`,
      ]);
      expect(e.details).toMatchObject({ bytes: 4, tcmOffset: 80, offset: 80, block: { tcmOffset: 0, bytes: 64 }, line });
    });

    it("a store into free TCM is refused at its line", () => {
      const x = tensor(xs);
      const line = lineOf(f.lines.freeTcmStore, "store_free_tcm");
      const e = expectFailureKeepsInputs([x], () => o.store_free_tcm(x), TcmRangeError, "E_TCM_WRITE_OUTSIDE_BLOCK", [
        where("store_free_tcm"), "store of 4 bytes at TCM+0x2000 is in no live tcm_malloc block", "at byte 8192 of it, 8128 bytes past its end", `:${line}:`,
      ]);
      expect(e.details).toMatchObject({ tcmOffset: 8192, line });
    });

    it("a store through a pointer whose block was freed is refused: the store window died with the call", () => {
      const x = tensor(xs);
      const line = lineOf(f.lines.storeAgain, "store_after_free");
      const e = expectFailureKeepsInputs([x], () => o.store_after_free(x), TcmRangeError, "E_TCM_WRITE_OUTSIDE_BLOCK", [
        where("store_after_free"), "store of 4 bytes at TCM+0x0 is in no live tcm_malloc block (no block is live)", `:${line}:`,
      ]);
      expect(e.details).toMatchObject({ tcmOffset: 0, line });
    });

    it("the next call after each refused one runs clean (the maps a failed launch marked are cleared)", () => {
      expect(() => o.store_free_tcm(tensor(xs))).toThrow(TcmRangeError);
      expect(() => o.read_after_realloc(tensor(xs))).toThrow(UninitializedTcmError);
      expect(values(o.double_by_stores(tensor(xs)))).toEqual(xs.map((v) => Math.fround(Math.fround(v) * 2)));
    });
  });
}
