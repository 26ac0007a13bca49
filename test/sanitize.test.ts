// Sanitize mode: every raw load and store of a kernel is checked against what
// the call gave it. Hostile kernels get another tensor's address as an int64
// scalar; without sanitize they read it silently and their stores there are
// refused (KernelTamperError E_FOREIGN_STORE), with sanitize they fail with a
// SanitizerError that says what the address is.
import { describe, it, expect, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { custom_op, ops, tensor, randn, zeros, shutdown, kFloat, SanitizerError, KernelTamperError, type Library, type Tensor } from "gpsimd";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(REPO, "test", "fixtures", "sanitize");
const BUILD_DIR = path.join(REPO, "build", "out");

function load(name: string, compute: string, register: string, options: { sanitize: boolean; multicore?: boolean }): Library {
  return custom_op.load({
    name, compute_srcs: [path.join(FIXTURES, compute)], shape_srcs: [path.join(FIXTURES, register), path.join(FIXTURES, "shape.ts")],
    build_directory: BUILD_DIR, ...options,
  });
}

/** The error `f` throws (fails the test if it returns). */
function thrown(f: () => unknown): unknown {
  try { f(); } catch (e) { return e; }
  throw new Error("expected an error, but the call returned");
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * " at fn (file:line:" of the first line holding `statement` in kernel `fn` of fixture `file`: where a SanitizerError
 * names the access (its column is the load's or store's address operand).
 */
function at(file: string, fn: string, statement: string): string {
  const lines = readFileSync(path.join(FIXTURES, file), "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith(`export function ${fn}(`));
  const line = lines.findIndex((l, i) => i > start && l.includes(statement));
  expect(start >= 0 && line > start, `${file}: ${fn}: ${statement}`).toBe(true);
  return ` at ${fn} (${path.join(FIXTURES, file)}:${line + 1}:`;
}
const floats = (values: number[]) => tensor(values, [values.length], kFloat);
const relu = (t: Tensor) => Array.from(t.data() as Float32Array, (v) => Math.max(v, 0));

describe("sanitize mode on one core", () => {
  const plain = load("sanitize_plain", "kernels.ts", "register-plain.ts", { sanitize: false });
  const checked = load("sanitize_checked", "kernels.ts", "register-checked.ts", { sanitize: true });
  afterAll(async () => { plain.unload(); checked.unload(); await shutdown(); });

  it("without sanitize, a kernel given another tensor's address reads it silently; its store there is refused at its line (checks off: it lands)", () => {
    const x = floats([1, -2, 3, -4]);
    const other = floats([42, 43]);
    expect(ops.sanitize_plain.peek(x, other.address).tolist()).toEqual([42]);
    const e = thrown(() => ops.sanitize_plain.poke(x, other.address + 4, 7));
    expect(e, String(e)).toBeInstanceOf(KernelTamperError);
    expect((e as KernelTamperError).code).toBe("E_FOREIGN_STORE");
    expect((e as KernelTamperError).details).toMatchObject({ address: other.address + 4, bytes: 4, function: "poke", file: path.join(FIXTURES, "kernels.ts") });
    expect(other.tolist()).toEqual([42, 43]);
    plain.configure({ checks: false });
    try {
      ops.sanitize_plain.poke(x, other.address + 4, 7);
    } finally {
      plain.configure({ checks: true });
    }
    expect(other.tolist()).toEqual([42, 7]);
  });

  it("with sanitize, reading another tensor fails and says what was read, where, and what was allowed", () => {
    const x = floats([1, -2, 3, -4]);
    const other = floats([42, 43]);
    const e = thrown(() => ops.sanitize_checked.peek(x, other.address));
    expect(e).toBeInstanceOf(SanitizerError);
    const err = e as SanitizerError;
    expect(err.code).toBe("E_SANITIZE");
    expect(err.op).toBe("sanitize_checked::peek");
    expect(err.core).toBe(0);
    expect(err.details).toMatchObject({ access: "load", address: other.address, bytes: 4 });
    expect(err.message).toContain(`sanitize_checked::peek (core 0): sanitizer: load of 4 bytes at ${hex(other.address)} is inside no tensor of this call`);
    // The kernel line of the load, in the message and the details.
    const where = at("kernels.ts", "peek", "load<f32>(<usize>addr)");
    expect(err.message).toContain(`(another tensor, another library's data or free device memory)${where}`);
    const [, line] = /:(\d+):$/.exec(where)!;
    expect(err.details).toMatchObject({ function: "peek", file: path.join(FIXTURES, "kernels.ts"), line: Number(line) });
    expect(err.message).toContain(`argument 0 't_in' (float32[4]) [${hex(x.address)}, ${hex(x.address + 16)}) read-only`);
    expect(err.message).toContain("the output (float32[1])");
    expect(err.message).toContain("core 0's private memory");
    expect(err.message).toContain("the library's static data");
  });

  it("with sanitize, writing another tensor fails and leaves it unchanged", () => {
    const x = floats([1, -2, 3, -4]);
    const other = floats([42, 43]);
    const err = thrown(() => ops.sanitize_checked.poke(x, other.address + 4, 7)) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toContain(`store of 4 bytes at ${hex(other.address + 4)} is inside no tensor of this call`);
    expect(err.message).toContain(at("kernels.ts", "poke", "store<f32>(<usize>addr, <f32>value)"));
    expect(other.tolist()).toEqual([42, 43]);
  });

  it("a load from the null page fails", () => {
    const err = thrown(() => ops.sanitize_checked.null_read(floats([1]))) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toContain("load of 4 bytes at 0x10 is in the null page");
    expect(err.message).toContain(at("kernels.ts", "null_read", "load<i32>(changetype<usize>(16))"));
  });

  it("a load that starts inside an input but runs past its end fails", () => {
    const x = floats([1, -2, 3, -4]);
    const err = thrown(() => ops.sanitize_checked.peek(x, x.address + 14)) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toContain(`load of 4 bytes at ${hex(x.address + 14)} reaches outside argument 0 't_in' (float32[4])`);
  });

  it("an address past the end of device memory fails before it traps", () => {
    const err = thrown(() => ops.sanitize_checked.peek(floats([1]), 0xFFFFFFF0)) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.message).toContain("load of 4 bytes at 0xfffffff0 is past the end of device memory");
  });

  it("a raw store into an input fails, naming the argument, and the input is unchanged", () => {
    const x = floats([1, -2, 3, -4]);
    const err = thrown(() => ops.sanitize_checked.poke(x, x.address + 8, 99)) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.code).toBe("E_SANITIZE_READ_ONLY");
    expect(err.message).toContain(`store of 4 bytes at ${hex(x.address + 8)} is inside argument 0 't_in' (float32[4]), an input: inputs are read-only`);
    expect(x.tolist()).toEqual([1, -2, 3, -4]);
  });

  it("a correct TCM kernel gives the same results with and without sanitize", () => {
    for (const sizes of [[0], [1], [1000], [999, 1001]]) {
      const x = randn(sizes, { seed: 11 });
      const expected = relu(x);
      expect(Array.from(ops.sanitize_plain.relu(x).data() as Float32Array)).toEqual(expected);
      expect(Array.from(ops.sanitize_checked.relu(x).data() as Float32Array)).toEqual(expected);
    }
  });

  it("only the tensors of the current call are reachable, not those of the call before", () => {
    const a = floats([5]), b = floats([6]);
    expect(ops.sanitize_checked.peek(a, a.address).tolist()).toEqual([5]); // its own input: allowed
    const err = thrown(() => ops.sanitize_checked.peek(b, a.address));
    expect(err).toBeInstanceOf(SanitizerError);
    // The library works after the failure (the failed instance is rebuilt).
    expect(ops.sanitize_checked.peek(b, b.address).tolist()).toEqual([6]);
  });

  it("async calls (run on the core threads) are checked too", async () => {
    const x = floats([1, -2, 3, -4]);
    const other = floats([42, 43]);
    await expect(ops.sanitize_checked.peek.async(x, other.address)).rejects.toThrow(SanitizerError);
    await expect(ops.sanitize_checked.peek.async(x, other.address)).rejects.toThrow(at("kernels.ts", "peek", "load<f32>(<usize>addr)"));
    expect(Array.from((await ops.sanitize_checked.relu.async(x)).data() as Float32Array)).toEqual([1, 0, 3, 0]);
  });
});

describe("sanitize mode on all cores", () => {
  const lib = load("sanitize_multicore", "multicore.ts", "register-multicore.ts", { sanitize: true, multicore: true });
  const reluLib = custom_op.load({
    name: "relu_multicore_sanitized", compute_srcs: [path.join(REPO, "ops/relu/multicore.ts")],
    shape_srcs: [path.join(REPO, "ops/relu/register-multicore.ts"), path.join(REPO, "ops/relu/shape.ts")],
    build_directory: BUILD_DIR, multicore: true, sanitize: true,
  });
  afterAll(async () => { lib.unload(); reluLib.unload(); await shutdown(); });

  it("core 1 storing into core 0's TCM fails, naming both cores", () => {
    const perCore = zeros([lib.cores], kFloat);
    const tcm = (ops.sanitize_multicore.tcm_addresses(perCore).tolist() as bigint[]).map(Number);
    expect(new Set(tcm).size).toBe(lib.cores);
    const err = thrown(() => ops.sanitize_multicore.core1_stores(perCore, tcm[0])) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.core).toBe(1);
    expect(err.message).toContain(`sanitize_multicore::core1_stores (core 1): sanitizer: store of 4 bytes at ${hex(tcm[0])} is inside core 0's private memory`);
    expect(err.message).toContain(at("multicore.ts", "core1_stores", "store<f32>(<usize>target, 1.0)"));
    expect(err.message).toContain("core 1's private memory");
    // Its own TCM is reachable only through blocks tcm_malloc handed out in this launch: the one at tcm[1] was freed.
    const own = thrown(() => ops.sanitize_multicore.core1_stores(perCore, tcm[1])) as SanitizerError;
    expect(own).toBeInstanceOf(SanitizerError);
    expect(own.message).toContain(`store of 4 bytes at ${hex(tcm[1])} is inside core 1's TCM arena`);
    expect(own.message).toContain("in no block tcm_malloc handed out");
  });

  it("a core storing into its own context block's TCM base fails, and later launches are unaffected", () => {
    const perCore = zeros([lib.cores], kFloat);
    const err = thrown(() => ops.sanitize_multicore.core2_moves_tcm(perCore)) as SanitizerError;
    expect(err).toBeInstanceOf(SanitizerError);
    expect(err.code).toBe("E_SANITIZE_READ_ONLY");
    expect(err.core).toBe(2);
    expect(err.message).toContain("sanitize_multicore::core2_moves_tcm (core 2): sanitizer: store of 4 bytes at");
    expect(err.message).toContain("is inside core 2's context block (TCM base), which the kernel may not write");
    expect(err.message).toContain(at("multicore.ts", "core2_moves_tcm", "store<u32>(ctx + CTX_TCM_BASE"));
    const tcm = (ops.sanitize_multicore.tcm_addresses(zeros([lib.cores], kFloat)).tolist() as bigint[]).map(Number);
    expect(new Set(tcm).size).toBe(lib.cores);
  });

  it("the shipped multicore ReLU gives max(x, 0) under sanitize", () => {
    for (const sizes of [[3], [8], [999, 1001]]) {
      const x = randn(sizes, { seed: 5 });
      expect(Array.from(ops.relu_multicore.relu_forward(x).data() as Float32Array)).toEqual(relu(x));
    }
  });
});
