// Sanitize mode covers every instruction that touches memory: one test per
// family (test/fixtures/sanitize/coverage.ts). Each hostile kernel is given
// another tensor's address and must fail with a SanitizerError that names the
// kernel, the core, the address, what is there, the access size and the
// kernel line of the instruction, leaving the other tensor unchanged. Freed TCM is unreachable until tcm_malloc hands
// it out again; the context block's trusted fields and the call's descriptors
// are read-only to the kernel, while the kernel library's own writes work.
import { describe, it, expect, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { custom_op, ops, tensor, shutdown, kFloat, SanitizerError, type Tensor } from "gpsimd";
import { fixturePath, thrown, TEST_BUILD_DIR } from "./helpers.js";

const hex = (n: number) => `0x${n.toString(16)}`;
const floats = (values: number[]) => tensor(values, [values.length], kFloat);
const OTHER = [42, 43, 44, 45, 46, 47, 48, 49];

const lib = custom_op.load({
  name: "sanitize_coverage", compute_srcs: [fixturePath("sanitize", "coverage.ts")],
  shape_srcs: [fixturePath("sanitize", "register-coverage.ts"), fixturePath("sanitize", "shape.ts")], build_directory: TEST_BUILD_DIR, sanitize: true,
});
afterAll(async () => { lib.unload(); await shutdown(); });

/** Calls ops.sanitize_coverage.<name>(...args). */
function callOp(name: string, args: unknown[]): Tensor {
  return (ops.sanitize_coverage as unknown as Record<string, (...a: unknown[]) => Tensor>)[name](...args);
}

const COVERAGE = fixturePath("sanitize", "coverage.ts");

/** " at kernel (coverage.ts:line:" of the first line holding `statement` in `kernel`: where a SanitizerError names the access. */
function at(kernel: string, statement: string): string {
  const lines = readFileSync(COVERAGE, "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith(`export function ${kernel}(`));
  const line = lines.findIndex((l, i) => i > start && l.includes(statement));
  expect(start >= 0 && line > start, `${kernel}: ${statement}`).toBe(true);
  return ` at ${kernel} (${COVERAGE}:${line + 1}:`;
}

/**
 * Runs a kernel aimed at another tensor: asserts the SanitizerError (kernel, core 0, address, what, size, the line of
 * `statement`) and that the tensor is unchanged.
 */
function rejectsAccess(kernel: string, statement: string, args: (other: Tensor) => unknown[], access: "load" | "store", bytes: number, offset = 0): SanitizerError {
  const x = floats([1, 2]);
  const other = floats(OTHER);
  const err = thrown(() => callOp(kernel, [x, ...args(other)])) as SanitizerError;
  expect(err).toBeInstanceOf(SanitizerError);
  expect(err.code).toBe("E_SANITIZE");
  expect(err.op).toBe(`sanitize_coverage::${kernel}`);
  expect(err.core).toBe(0);
  expect(err.details).toMatchObject({ access, address: other.address + offset, bytes });
  expect(err.message).toContain(`sanitize_coverage::${kernel} (core 0): sanitizer: ${access} of ${bytes} byte${bytes === 1 ? "" : "s"} at ${hex(other.address + offset)} is inside no tensor of this call`);
  expect(err.message).toContain(`is inside no tensor of this call (another tensor, another library's data or free device memory)${at(kernel, statement)}`);
  expect(other.tolist()).toEqual(OTHER);
  return err;
}

describe("sanitize checks every memory instruction", () => {
  it("memory.copy with a run-time length: both the source and the destination range", () => {
    rejectsAccess("bulk", "memory.copy(buf, <usize>addr", (o) => [o.address, 24, 0], "load", 24);
    rejectsAccess("bulk", "memory.copy(<usize>addr, buf", (o) => [o.address, 20, 1], "store", 20);
  });

  it("memory.fill with a run-time length", () => {
    rejectsAccess("bulk", "memory.fill(<usize>addr", (o) => [o.address, 28, 2], "store", 28);
  });

  it("a bulk range that starts in the kernel's TCM block but runs past it fails; length 0 touches nothing", () => {
    const x = floats([1]);
    expect(callOp("bulk", [x, x.address, 0, 1]).tolist()).toEqual([0]); // a copy of 0 bytes into an input: nothing written
    const err = thrown(() => callOp("bulk", [x, x.address, 8, 1])) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.code).toBe("E_SANITIZE");
    expect(err.message).toContain(`store of 8 bytes at ${hex(x.address)} reaches outside argument 0 't_in' (float32[1])`);
  });

  it("atomic read-modify-write of every operator and width", () => {
    const cases: [number, number, string][] = [
      [0, 4, "atomic.add<i32>"], [1, 4, "atomic.sub<i32>"], [2, 4, "atomic.and<i32>"], [3, 4, "atomic.or<i32>"], [4, 4, "atomic.xor<i32>"],
      [5, 4, "atomic.xchg<i32>"], [6, 8, "atomic.add<i64>"], [7, 1, "atomic.add<u8>"],
    ];
    for (const [which, bytes, statement] of cases) rejectsAccess("rmw", statement, (o) => [o.address + 4, which], "store", bytes, 4);
  });

  it("atomic compare-exchange (32 and 64 bits)", () => {
    rejectsAccess("cmpxchg", "atomic.cmpxchg<i32>", (o) => [o.address, 0], "store", 4);
    rejectsAccess("cmpxchg", "atomic.cmpxchg<i64>", (o) => [o.address, 1], "store", 8);
  });

  it("atomic load, store and notify (wait is refused at build)", () => {
    rejectsAccess("atomics", "atomic.load<i32>(p)", (o) => [o.address, 0], "load", 4);
    rejectsAccess("atomics", "atomic.store<i32>(p, 1)", (o) => [o.address, 1], "store", 4);
    rejectsAccess("atomics", "atomic.notify(p, 1)", (o) => [o.address, 3], "load", 4);
  });

  it("SIMD lane, splat, zero-extending and widening loads, lane stores, whole-vector loads and stores", () => {
    const cases: [number, "load" | "store", number, string][] = [
      [0, "load", 4, "v128.load_lane<i32>(p"], [1, "store", 4, "v128.store_lane<i32>(p"], [2, "load", 4, "v128.load_splat<i32>(p)"],
      [3, "load", 4, "v128.load_zero<i32>(p)"], [4, "load", 8, "v128.load_ext<i16>(p)"], [5, "load", 16, "v = v128.load(p)"], [6, "store", 16, "v128.store(p, v)"],
    ];
    for (const [which, access, bytes, statement] of cases) rejectsAccess("simd", statement, (o) => [o.address, which], access, bytes);
  });

  it("memory.grow in a kernel fails (device memory is shared and owned by the host)", () => {
    const before = floats([1]);
    const err = thrown(() => callOp("grow", [before, 1])) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toContain(`sanitize_coverage::grow (core 0): sanitizer: memory.grow by 1 page${at("grow", "memory.grow(<i32>pages)")}`);
    expect(err.message).toContain("): a kernel may not grow device memory");
  });
});

describe("sanitize: freed TCM", () => {
  it("a load from a freed TCM block fails, naming the block", () => {
    const err = thrown(() => callOp("freed_tcm", [floats([1]), 0])) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.core).toBe(0);
    expect(err.details).toMatchObject({ access: "load", bytes: 4 });
    const at = (err.details as { address: number }).address;
    expect(err.message).toContain(`load of 4 bytes at ${hex(at)} is inside freed TCM (core 0's TCM: the block at ${hex(at)} was released by tcm_free`);
  });

  it("a store into a freed TCM block fails", () => {
    const err = thrown(() => callOp("freed_tcm", [floats([1]), 1])) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toMatch(/store of 4 bytes at 0x[0-9a-f]+ is inside freed TCM/);
  });

  it("the block is reachable again once tcm_malloc hands it out", () => {
    expect(callOp("freed_tcm", [floats([1]), 2]).tolist()).toEqual([6]);
  });

  it("a load of the guard bytes just past a live block fails", () => {
    const err = thrown(() => callOp("freed_tcm", [floats([1]), 3])) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toMatch(/load of 4 bytes at 0x[0-9a-f]+ is in the guard bytes after core 0's TCM block \[0x[0-9a-f]+, 0x[0-9a-f]+\)/);
  });
});

describe("sanitize: a store past a TCM block stops at the store, naming the first byte it writes past the end", () => {
  const cases: [string, number, number, string][] = [
    ["whose first bytes equal the guard value 0xFD", 0, 4096, "is in the guard bytes after core 0's TCM block"],
    ["whose bytes all differ from the guard value", 1, 4096, "is in the guard bytes after core 0's TCM block"],
    ["that begins inside the block", 2, 4094, "reaches past the end of core 0's TCM block"],
  ];
  for (const [what, which, from, where] of cases) {
    it(`a store ${what}`, () => {
      const err = thrown(() => callOp("guard_store", [floats([1]), which])) as SanitizerError;
      expect(err).toBeInstanceOf(SanitizerError);
      expect(err.details).toMatchObject({ access: "store", bytes: 4 });
      const block = (err.details as { address: number }).address - from;
      expect(err.message).toContain(`store of 4 bytes at ${hex(block + from)} ${where} [${hex(block)}, ${hex(block + 4096)}): `
        + `it writes bytes ${from} to ${from + 3} of the block, which has 4096 bytes (allowed: bytes 0 to 4095); the first past its end is byte 4096`);
    });
  }
});

describe("sanitize: the context block and descriptors are read-only to the kernel", () => {
  const fields: [number, string][] = [
    [0, "TCM base"], [1, "heap end"], [2, "printf ring address"], [3, "flags"], [4, "stop word"],
    [5, "descriptor of argument 0 't_in' (float32[2])"], [6, "descriptor of argument 0 't_in' (float32[2])"], [7, "the kernel library's bookkeeping"],
  ];
  for (const [which, field] of fields) {
    it(`a raw store into the context block (${field}) fails`, () => {
      const x = floats([1, 2]);
      const err = thrown(() => callOp("trusted", [x, which])) as SanitizerError;
      expect(err).toBeInstanceOf(SanitizerError);
      expect(err.code).toBe("E_SANITIZE_READ_ONLY");
      expect(err.details).toMatchObject({ access: "store", bytes: 4 });
      expect(err.message).toContain(`sanitize_coverage::trusted (core 0): sanitizer: store of 4 bytes at`);
      expect(err.message).toContain(`is inside core 0's context block (${field}), which the kernel may not write`);
    });
  }

  it("memory.copy over the TCM base fails too", () => {
    const err = thrown(() => callOp("trusted", [floats([1, 2]), 8])) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toContain("store of 4 bytes at");
    expect(err.message).toContain("(TCM base), which the kernel may not write");
  });

  it("the kernel library's own writes (stream slots and counts, a new descriptor, accessor counts, counters, TCM table) still work, and later calls are unaffected", () => {
    const x = floats([1, 2, 3, 4.5]);
    expect(callOp("library_writes", [x]).tolist()).toEqual([10.5]);
    thrown(() => callOp("trusted", [x, 0]));
    expect(callOp("library_writes", [x]).tolist()).toEqual([10.5]);
    expect(callOp("freed_tcm", [x, 2]).tolist()).toEqual([6]);
  });
});
