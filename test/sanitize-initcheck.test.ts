// Sanitize mode's initcheck of the kernel heap and the C++ stack: a kernel load of bytes nothing wrote in this call
// (a malloc or new block, a heap.alloc block, a local array, before they are filled) is E_SANITIZE_UNINIT at the
// load's line, naming the core, the block or stack and the bytes; correct kernels (filled blocks, zero-filled
// arrays and vectors, a copy of written bytes) run. And the errors found after the faulty store (a TCM block's
// guard bytes at tcm_free) say to rerun with sanitize, unless the kernel is already sanitized.
import { describe, it, expect, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { custom_op, ops, tensor, shutdown, SanitizerError, TcmGuardError, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown } from "./helpers.js";

const cpp = (name: string) => fixturePath("cpp/initcheck", name);
const as = (name: string) => fixturePath("initcheck", name);
const load = (name: string, src: string, register: string, sanitize: boolean): Library =>
  custom_op.load({ name, compute_srcs: [src], shape_srcs: [register], build_directory: TEST_BUILD_DIR, sanitize });
const libs = [
  load("initcheck_cpp_san", cpp("kernels.cpp"), cpp("register_san.ts"), true),
  load("initcheck_cpp", cpp("kernels.cpp"), cpp("register.ts"), false),
  load("initcheck_as_san", as("kernels.ts"), as("register_san.ts"), true),
  load("initcheck_as", as("kernels.ts"), as("register.ts"), false),
];
afterAll(async () => {
  for (const l of libs) l.unload();
  await shutdown();
});

type Kernel = ((x: unknown, filled: bigint) => { tolist(): unknown }) & { async(x: unknown, filled: bigint): Promise<unknown> };
const kernels = (lib: string) => (ops as unknown as Record<string, Record<string, Kernel>>)[lib];
const HINT = "rerun with --sanitize (or `sanitize: true`) to stop at the store itself";
/** `text` as a regular expression that matches it literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The 1-based line of the first line of `path` that contains `text`, after the line that starts with `fn`. */
function lineOf(path: string, fn: string, text: string): number {
  const lines = readFileSync(path, "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith(fn));
  const at = lines.findIndex((l, i) => i > start && l.includes(text));
  expect(start >= 0 && at > start, `${path}: ${fn} ... ${text}`).toBe(true);
  return at + 1;
}

const x16 = () => tensor(Float32Array.from({ length: 16 }, (_, i) => i + 1), [16]);
/** 1 + 2 + ... + 16 */
const FULL_SUM = 136;

describe("sanitize: C++ reads of heap and stack bytes nothing wrote", () => {
  const k = kernels("initcheck_cpp_san");
  const sumLine = (fn: string, text = "sum += values[i]") => lineOf(cpp("kernels.cpp"), `torch::Tensor ${fn}(`, text);

  it("filled blocks, a std::vector and a stack array all written run as without sanitize", () => {
    for (const name of ["new_partial", "malloc_partial", "stack_partial", "vector_sum"]) expect(k[name](x16(), 16n).tolist(), name).toEqual([FULL_SUM]);
    expect(k.vector_sum(x16(), 4n).tolist()).toEqual([10]); // the rest are the vector's zeros
    expect(k.copy_partial(x16(), 8n).tolist()).toEqual([36]); // reads only the copy's written part
  });

  it("structs copied whole with their padding (wide loads of partly written bytes) are not reads of unwritten bytes", () => {
    // Items i + 16 (index) and (i + 16) & 1 (flag) for i in 0..7, in another order: 156 + 4.
    expect(k.padded_copy(x16(), 0n).tolist()).toEqual([160]);
  });

  it("new float[n] read before it is filled: E_SANITIZE_UNINIT at the load, naming the heap block and its unwritten bytes", () => {
    const e = thrown(() => k.new_partial(x16(), 12n)) as SanitizerError;
    expect(e).toBeInstanceOf(SanitizerError);
    expect(e.code).toBe("E_SANITIZE_UNINIT");
    expect(e.core).toBe(0);
    const block = e.details.block as { start: number; end: number };
    expect(block.end - block.start).toBeGreaterThanOrEqual(64);
    // Element 12 is the first not copied: bytes 48 to 51 of the block, whichever load width reads it.
    expect(e.details).toMatchObject({ access: "load", region: "heap block", file: cpp("kernels.cpp"), line: sumLine("new_partial") });
    expect((e.details.unwritten as { start: number }).start).toBe(block.start + 48);
    expect(e.message).toMatch(/^initcheck_cpp_san::new_partial \(core 0\): sanitizer: load of \d+ bytes at 0x[0-9a-f]+ reads bytes 0x[0-9a-f]+ to 0x[0-9a-f]+ \(bytes 48 to \d+ of its \d+ bytes\) of a heap block of core 0's kernel heap \[0x[0-9a-f]+, 0x[0-9a-f]+\), which nothing wrote in this call: memory from malloc, new or heap.alloc holds nothing until it is written/);
    expect(e.message).toContain(`(${cpp("kernels.cpp")}:${sumLine("new_partial")}:`);
    expect(e.message).not.toContain(HINT);
  });

  it("malloc read before it is filled, on a core thread (.async) too", async () => {
    const e = await k.malloc_partial.async(x16(), 3n).catch((err: unknown) => err) as SanitizerError;
    expect(e).toBeInstanceOf(SanitizerError);
    expect(e.details).toMatchObject({ region: "heap block", line: sumLine("malloc_partial") });
  });

  it("a local array read before it is written: the C++ stack, at the load's line", () => {
    const e = thrown(() => k.stack_partial(x16(), 12n)) as SanitizerError;
    expect(e).toBeInstanceOf(SanitizerError);
    expect(e.code).toBe("E_SANITIZE_UNINIT");
    expect(e.details).toMatchObject({ region: "stack", file: cpp("kernels.cpp"), line: sumLine("stack_partial", "sum += buf[i]") });
    expect(e.message).toMatch(/ \(bytes \d+ to \d+ below its top\) of core 0's C\+\+ stack \[0x/);
    expect(e.message).toContain("a local variable or array read before it was written");
  });

  it("memcpy carries unwritten bytes over: the read of the copy is named, not the copy", () => {
    const e = thrown(() => k.copy_partial(x16(), 4n)) as SanitizerError;
    expect(e).toBeInstanceOf(SanitizerError);
    expect(e.details).toMatchObject({ region: "heap block", line: sumLine("copy_partial", "sum += copy[i]") });
  });

  it("a block freed and handed out again is unwritten again: the new block's unfilled elements are named", () => {
    expect(k.reuse_partial(x16(), 16n).tolist()).toEqual([FULL_SUM]);
    const e = thrown(() => k.reuse_partial(x16(), 8n)) as SanitizerError;
    expect(e).toBeInstanceOf(SanitizerError);
    expect(e.details).toMatchObject({ region: "heap block", line: sumLine("reuse_partial") });
    const block = e.details.block as { start: number };
    expect((e.details.unwritten as { start: number }).start).toBe(block.start + 32);
  });

  it("the next call starts with every heap byte unwritten again (a call's writes do not count for the next)", () => {
    expect(k.new_partial(x16(), 16n).tolist()).toEqual([FULL_SUM]);
    expect(thrown(() => k.new_partial(x16(), 15n))).toBeInstanceOf(SanitizerError);
  });
});

describe("sanitize: AssemblyScript reads of heap bytes nothing wrote", () => {
  const k = kernels("initcheck_as_san");

  it("new Float32Array is zero-filled (written); a filled heap.alloc block reads", () => {
    expect(k.array_sum(x16(), 3n).tolist()).toEqual([3]);
    expect(k.alloc_partial(x16(), 16n).tolist()).toEqual([16]);
  });

  it("heap.alloc read before it is written: E_SANITIZE_UNINIT at the load's line", () => {
    const e = thrown(() => k.alloc_partial(x16(), 10n)) as SanitizerError;
    expect(e).toBeInstanceOf(SanitizerError);
    expect(e.code).toBe("E_SANITIZE_UNINIT");
    expect(e.details).toMatchObject({ access: "load", bytes: 4, region: "heap block", file: as("kernels.ts"), line: lineOf(as("kernels.ts"), "export function alloc_partial", "sum += load<f32>") });
    const block = e.details.block as { start: number; end: number };
    expect(e.details.unwritten).toEqual({ start: block.start + 40, end: block.start + 44 });
    expect(e.message).toContain("reads bytes 0x");
    expect(block.end - block.start).toBeGreaterThanOrEqual(64); // the heap rounds blocks up
    expect(e.message).toContain(`(bytes 40 to 43 of its ${block.end - block.start} bytes) of a heap block of core 0's kernel heap`);
  });
});

describe("errors found after the faulty store say to rerun with sanitize", () => {
  it("a guard error (C++, default mode) names tcm_free and ends with the hint", () => {
    const e = thrown(() => kernels("initcheck_cpp").overrun_then_free(x16(), 0n));
    expect(e).toBeInstanceOf(TcmGuardError);
    // The hint ends the text; the statement where the guard bytes were found stays last, as in every message.
    expect((e as Error).message).toMatch(new RegExp(`; ${literal(HINT)}; found at overrun_then_free \\(${literal(cpp("kernels.cpp"))}:${lineOf(cpp("kernels.cpp"), "torch::Tensor overrun_then_free(", "tcm_free(buf)")}:\\d+\\)$`));
  });

  it("a guard error (AssemblyScript, default mode, on a core thread) too", async () => {
    const e = await kernels("initcheck_as").overrun_then_free.async(x16(), 1n).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TcmGuardError);
    expect((e as Error).message).toMatch(new RegExp(`; ${literal(HINT)}; found at overrun_then_free \\(${literal(as("kernels.ts"))}:\\d+:\\d+\\)$`));
  });

  it("in sanitize mode the store itself fails, and nothing says to rerun", () => {
    for (const lib of ["initcheck_cpp_san", "initcheck_as_san"]) {
      const e = thrown(() => kernels(lib).overrun_then_free(x16(), 0n));
      expect(e, lib).toBeInstanceOf(SanitizerError);
      expect((e as Error).message, lib).not.toContain(HINT);
    }
  });
});
