// The default mode's raw load and store checks on C++ kernels (issue 20, items 1 and 5), tested from outside with
// kernels an author writes and hostile ones:
// - reads of TCM no copy or store wrote (a convolution without its halo, an argmax one element past its row) named
//   at the read's .cpp line, with the block, its tcm_malloc line, the bytes read and where its written part ends;
// - stores outside what the call owns (another library's static data, a read-only input, the context block), each
//   refused at its line before it happens: the victim library's later calls still return right results.
// Both used to be silent. The AssemblyScript twins of the TCM reads are in test/errors/tcm-uninit.test.ts.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { custom_op, ops, tensor, shutdown, UninitializedTcmError, TcmRangeError, KernelTamperError, type Library, type Tensor } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, expectFailureKeepsInputs, values } from "../helpers.js";

const file = (name: string) => fixturePath("cpp-ownership", name);
/** 1-based line of the first line of `name` holding `text`. */
const lineOf = (name: string, text: string) => readFileSync(file(name), "utf8").split("\n").findIndex((l) => l.includes(text)) + 1;
const READS = file("tcm-reads.cpp"), STORES = file("stores.cpp");
const CHUNK = 256;

type Ops = Record<string, (...args: unknown[]) => Tensor>;
let lib: Library, victim: Library;
let o: Ops, v: Ops;
beforeAll(() => {
  lib = custom_op.load({ name: "own_checks_cpp", compute_srcs: [READS, STORES], shape_srcs: [file("register.ts")], build_directory: TEST_BUILD_DIR });
  victim = custom_op.load({ name: "own_victim_cpp", compute_srcs: [file("victim.cpp")], shape_srcs: [file("victim-register.ts")], build_directory: TEST_BUILD_DIR });
  o = ops.own_checks_cpp as unknown as Ops;
  v = ops.own_victim_cpp as unknown as Ops;
}, 300_000);
afterAll(async () => {
  lib?.unload();
  victim?.unload();
  await shutdown();
});

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

describe("C++ reads of TCM nothing wrote, in the default mode", () => {
  it("a convolution that copies its halo runs clean and right", () => {
    expect(values(o.conv1d_halo(tensor(xs), tensor(ws)))).toEqual(conv1d(xs, ws));
  });

  it("a convolution without its k - 1 halo is named at the read's line, with the block and its written part", () => {
    const x = tensor(xs), w = tensor(ws);
    const line = lineOf("tcm-reads.cpp", "acc += xs[j + t]");
    const e = expectFailureKeepsInputs([x, w], () => o.conv1d_no_halo(x, w), UninitializedTcmError, "E_TCM_UNWRITTEN_READ", [
      "own_checks_cpp::conv1d_no_halo (core 0)", `read of bytes [${CHUNK * 4}, ${CHUNK * 4 + 4}) of the ${(CHUNK + 2) * 4}-byte TCM block`,
      `tcm_malloc at ${READS}:${lineOf("tcm-reads.cpp", "float* xs =")}`, `its written part ends at byte ${CHUNK * 4}`, `at conv1d_no_halo (${READS}:${line}:`,
    ]);
    expect(e.core).toBe(0);
    expect(e.details).toMatchObject({ range: [CHUNK * 4, CHUNK * 4 + 4], writtenEnd: CHUNK * 4, file: READS, line, block: { bytes: (CHUNK + 2) * 4 } });
  });

  it("an argmax with j <= n reads past its block's end, named at the read's line", () => {
    const n = 100;
    const m = tensor(Array.from({ length: 3 * n }, (_, i) => (i * 7919) % 101), [3, n]);
    const line = lineOf("tcm-reads.cpp", "if (row[j] > row[best])");
    const e = expectFailureKeepsInputs([m], () => o.argmax_rows(m), TcmRangeError, "E_TCM_READ_OUTSIDE_BLOCK", [
      "own_checks_cpp::argmax_rows (core 0)", `read of bytes [${n * 4}, ${n * 4 + 4}) of the ${n * 4}-byte TCM block`,
      `tcm_malloc at ${READS}:${lineOf("tcm-reads.cpp", "float* row =")}`, `past its end (byte ${n * 4})`, `at argmax_rows (${READS}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ range: [n * 4, n * 4 + 4], writtenEnd: n * 4, pastEnd: true, line });
  });
});

describe("C++ stores outside what the call owns, in the default mode", () => {
  const pokeLine = lineOf("stores.cpp", "*p = (float)value;");

  it("stores into the kernel's own statics, stack, heap, TCM and output are fine", () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(values(o.owned_stores(tensor(x)))).toEqual(x.map((a) => a * 2 + 1));
  });

  it("a store into another library's static data is refused at its line; that library's later calls are right", () => {
    expect(values(v.lookup(tensor([0, 1, 2, 3])))).toEqual([10, 20, 30, 40]);
    // The attacker reads where the victim's table is (here the victim says so) and passes it as an int64_t.
    const address = BigInt((v.table_address(tensor([0])).tolist() as bigint[])[0]) + 4n;
    const e = expectFailureKeepsInputs([], () => o.poke(tensor([1]), address, 99), KernelTamperError, "E_FOREIGN_STORE", [
      "own_checks_cpp::poke (core 0)", `store of 4 bytes at 0x${address.toString(16)} into library own_victim_cpp's static data`,
      "a kernel may write only its output", `at poke (${STORES}:${pokeLine}:`,
    ]);
    expect(e.details).toMatchObject({ hit: "statics", address: Number(address), bytes: 4, file: STORES, line: pokeLine });
    expect(values(v.lookup(tensor([0, 1, 2, 3])))).toEqual([10, 20, 30, 40]);
  });

  it("a store into a read-only input is refused at its line and the input keeps its values", () => {
    const x = tensor([5, 6]);
    const address = BigInt(x.storageView().byteOffset + 4);
    const e = expectFailureKeepsInputs([x], () => o.poke(x, address, 99), KernelTamperError, "E_FOREIGN_STORE", [
      "into tensor argument 0 'x' (float32[2]) (read-only input)", `at poke (${STORES}:${pokeLine}:`,
    ]);
    expect(e.details).toMatchObject({ hit: "input", line: pokeLine });
  });

  it("a store into the context block is refused at its line, and the next call works", () => {
    const line = lineOf("stores.cpp", "*(volatile uint32_t*)(uintptr_t)(ctx + 28) = 0;");
    const e = expectFailureKeepsInputs([], () => o.poke_context(tensor([1])), KernelTamperError, "E_FOREIGN_STORE", [
      "into core 0's context block", `at poke_context (${STORES}:${line}:`,
    ]);
    expect(e.details).toMatchObject({ hit: "context", line });
    expect(values(o.owned_stores(tensor([1, 1, 1, 1, 1, 1, 1, 1])))).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
  });

  it("with checks off the stores are not checked (as on the device)", () => {
    const x = tensor([5, 6]);
    lib.configure({ checks: false });
    try {
      o.poke(x, BigInt(x.storageView().byteOffset + 4), 99);
      expect(values(x)).toEqual([5, 99]);
    } finally {
      lib.configure({ checks: true });
    }
  });
});
