// The NKI checks beyond the simulator's: races between affine_range iterations, SPMD instances writing
// the same output elements, SBUF/PSUM capacity. Each case is a kernel that breaks the rule (error class,
// code, lines and ranges asserted) next to the same kernel written correctly (accepted, values checked).
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel, launchKernel, type LaunchOptions } from "../../nki/language/run.js";
import { tensor } from "../../host/device/factories.js";
import type { Tensor } from "../../host/device/tensor.js";
import { CrossCoreWriteError, GpsimdError, NkiRaceError, TileShapeError } from "../../host/checks/errors.js";

registerNkiModules();

const HEADER = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\nimport numpy as np\n";
let counter = 0;

/** Runs kernel `name` of `body` (its first line is line 5 of the file) with the arguments. */
function run(body: string, name: string, args: unknown[], options: LaunchOptions = {}) {
  const file = `checks_${++counter}.py`;
  const program = loadProgram(file, { source: HEADER + body });
  return { file, result: launchKernel(program, findKernel(program, name), args, {}, options) };
}
function thrown(f: () => unknown): GpsimdError {
  try { f(); } catch (e) { return e as GpsimdError; }
  throw new Error("expected an error");
}
const T = (shape: number[], f: (i: number) => number) =>
  tensor(Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => f(i)), shape, "float32");
const data = (r: { result: { returned: unknown } }) => (r.result.returned as Tensor).data() as Float32Array;

/** A kernel whose loop (line 9) carries a dependency through `acc` (written line 10, read line 11). */
const carried = (range: string) => `
@nki.jit
def k(a):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  acc = nl.zeros((128, 512), dtype=nl.float32)
  for i in ${range}(4):
    x = nl.load(a[i])
    acc[...] = nl.multiply(acc, x)
    nl.store(out, acc)
  return out
`;

describe("races between affine_range iterations", () => {
  test("a tile written in one iteration and read in another is NkiRaceError with both iterations, the tile, the range and both lines", () => {
    const a = T([4, 128, 512], () => 2);
    const e = thrown(() => run(carried("nl.affine_range"), "k", [a]));
    expect(e).toBeInstanceOf(NkiRaceError);
    expect(e.code).toBe("E_NKI_RACE");
    // acc is read by the multiply of line 12 and written by it: iteration 0's write, iteration 1's read.
    expect(e.message).toContain("iterations i = 0 and i = 1 of the nl.affine_range loop at checks_1.py:10");
    expect(e.message).toContain("tile 'acc' (sbuf float32[128, 512], allocated at checks_1.py:9)");
    expect(e.message).toContain("[0:128, 0:512]");
    expect(e.message).toMatch(/at k \(checks_1\.py:1[23]:\d+\)$/);
    const d = e.details as Record<string, any>;
    expect(d.loop).toMatchObject({ kind: "affine_range", line: 10, variable: "i" });
    expect(d.first.iteration).toEqual({ i: 0 });
    expect(d.second.iteration).toEqual({ i: 1 });
    expect([d.first.line, d.second.line].sort()).toEqual(expect.arrayContaining([12]));
    expect(d.range).toEqual({ lo: [0, 0], hi: [128, 512], flat: false });
  });

  test("the same kernel with sequential_range, static_range or range is accepted and computes the product", () => {
    for (const r of ["nl.sequential_range", "nl.static_range", "range"]) {
      const out = run(carried(r), "k", [T([4, 128, 512], (i) => 1 + (i >> 16))]);
      // acc starts at 0: every product stays 0 (the point is that the dependency is accepted).
      expect(Array.from(data(out).subarray(0, 4))).toEqual([0, 0, 0, 0]);
    }
  });

  test("an HBM region stored by two iterations is a race; disjoint stores per iteration are not", () => {
    const body = (slice: string) => `
@nki.jit
def k(a):
  out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
  for i in nl.affine_range(4):
    t = nl.load(a[:, nl.ds(i * 256, 256)])
    nl.store(out[:, ${slice}], t)
  return out
`;
    const a = T([128, 1024], (i) => i);
    const e = thrown(() => run(body("nl.ds(i * 128, 256)"), "k", [a]));
    expect(e).toBeInstanceOf(NkiRaceError);
    expect(e.message).toContain("iterations i = 0 and i = 1");
    expect(e.message).toContain("[0:128, 128:256] of HBM tensor 'out'");
    expect((e.details as any).tensor).toBe("out");
    const ok = data(run(body("nl.ds(i * 256, 256)"), "k", [a]));
    expect(ok[5 * 1024 + 700]).toBe(5 * 1024 + 700);
  });

  test("strided slices that interleave (even columns in one iteration, odd in the other) do not race", () => {
    const ok = run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  for i in nl.affine_range(2):
    t = nl.load(a[:, i:512:2])
    nl.store(out[:, i:512:2], t)
  return out
`, "k", [T([128, 512], (i) => i)]);
    expect(data(ok)[77]).toBe(77);
  });

  test("accumulation into PSUM across iterations is allowed (psum += nl.matmul), and so is dst = dst + x on SBUF", () => {
    const r = run(`
@nki.jit
def k(a, b):
  out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
  ps = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.psum)
  acc = nl.zeros((128, 128), dtype=nl.float32)
  for kk in nl.affine_range(4):
    x = nl.load(a[kk])
    y = nl.load(b[kk])
    ps += nl.matmul(x, y, transpose_x=True)
    acc += y
  nl.store(out, nl.add(ps, acc))
  return out
`, "k", [T([4, 128, 128], () => 1), T([4, 128, 128], () => 0.5)]);
    // ps: sum over 4 blocks of 128 * 1 * 0.5 = 256; acc: 4 * 0.5 = 2.
    expect(data(r)[0]).toBe(258);
  });

  test("a tile allocated in the loop body is one per iteration: no race", () => {
    const r = run(`
@nki.jit
def k(a):
  out = nl.ndarray((4, 128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  for i in nl.affine_range(4):
    t = nl.ndarray((128, 64), dtype=nl.float32)
    t[...] = nl.load(a[i])
    t[...] = nl.add(t, 1.0)
    nl.store(out[i], t)
  return out
`, "k", [T([4, 128, 64], (i) => i)]);
    expect(data(r)[3 * 8192 + 5]).toBe(3 * 8192 + 6);
  });

  test("the outer loop decides: an inner sequential loop inside an affine one still races across the outer iterations", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  t = nl.zeros((128, 64), dtype=nl.float32)
  for i in nl.affine_range(2):
    for j in nl.sequential_range(2):
      t[...] = nl.load(a[i, j])
  nl.store(out, t)
  return out
`, "k", [T([2, 2, 128, 64], (i) => i)]));
    expect(e).toBeInstanceOf(NkiRaceError);
    expect(e.message).toContain("iterations i = 0 and i = 1 of the nl.affine_range loop at checks_");
    expect((e.details as any).first.kind).toBe("write");
  });

  test("checks: false turns the race check off (the kernel then runs in program order)", () => {
    const out = run(carried("nl.affine_range"), "k", [T([4, 128, 512], () => 2)], { checks: false });
    expect(data(out)[0]).toBe(0);
  });
});

describe("SPMD instances", () => {
  test("two instances writing the same output rows is CrossCoreWriteError naming both instance ids", () => {
    const body = (row: string) => `
@nki.jit
def k(a):
  out = nl.ndarray((256, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  p = nl.program_id(0)
  t = nl.load(a[nl.ds(p * 128, 128), :])
  nl.store(out[nl.ds(${row}, 128), :], t)
  return out
`;
    const a = T([256, 64], (i) => i);
    const e = thrown(() => run(body("p * 64"), "k", [a], { grid: [2] }));
    expect(e).toBeInstanceOf(CrossCoreWriteError);
    expect(e.code).toBe("E_NKI_INSTANCE_OVERLAP");
    expect(e.message).toContain("SPMD instances [0] and [1] both write [64:128, 0:64] of the output HBM tensor 'out'");
    expect((e.details as any).instances).toEqual([[0], [1]]);
    const ok = data(run(body("p * 128"), "k", [a], { grid: [2] }));
    expect(ok[200 * 64 + 3]).toBe(200 * 64 + 3);
  });
});

describe("on-chip capacity", () => {
  test("SBUF tiles live at once beyond 192 KiB per partition: E_NKI_SBUF_FULL naming the allocation, the bytes and the largest tiles", () => {
    // Four [128, 16384] float32 tiles (64 KiB per partition each) all live until the final adds.
    const e = thrown(() => run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 16384), dtype=nl.float32, buffer=nl.shared_hbm)
  t0 = nl.load(a)
  t1 = nl.exp(t0)
  t2 = nl.exp(t1)
  t3 = nl.exp(t2)
  nl.store(out, t0 + t1 + t2 + t3)
  return out
`, "k", [T([128, 16384], () => 0)]));
    expect(e).toBeInstanceOf(TileShapeError);
    expect(e.code).toBe("E_NKI_SBUF_FULL");
    expect(e.message).toContain("tile 't3' (sbuf float32[128, 16384], allocated at checks_");
    expect(e.message).toContain("take 262144 bytes per partition, over the 196608 of trn1's SBUF");
    expect(e.message).toContain("'t0' 65536 B");
    expect(e.details).toMatchObject({ buffer: "sbuf", bytesPerPartition: 262144, limit: 196608, line: 12 });
  });

  test("the same volume in tiles that die before the next is allocated fits", () => {
    const r = run(`
@nki.jit
def k(a):
  out = nl.ndarray((4, 128, 16384), dtype=nl.float32, buffer=nl.shared_hbm)
  for i in nl.affine_range(4):
    t = nl.load(a)
    nl.store(out[i], nl.add(t, i))
  return out
`, "k", [T([128, 16384], () => 1)]);
    expect(data(r)[3 * 128 * 16384]).toBe(4);
  });

  test("PSUM: nine live [128, 512] float32 tiles exceed 16 KiB per partition (E_NKI_PSUM_FULL); blocks of a par_dim tile used one at a time fit", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  ps = []
  for i in range(9):
    ps.append(nl.matmul(x[:, 0:128], x, transpose_x=True))
  acc = nl.zeros((128, 512), dtype=nl.float32)
  for p in ps:
    acc[...] = nl.add(acc, p)
  nl.store(out, acc)
  return out
`, "k", [T([128, 512], () => 0)]));
    expect(e).toBeInstanceOf(TileShapeError);
    expect(e.code).toBe("E_NKI_PSUM_FULL");
    expect(e.message).toContain("take 18432 bytes per partition, over the 16384 of trn1's PSUM");
    const ok = run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  ps = nl.ndarray((16, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
  acc = nl.zeros((128, 512), dtype=nl.float32)
  for i in nl.sequential_range(16):
    ps[i] = nl.matmul(x[:, 0:128], x, transpose_x=True)
    acc[...] = nl.add(acc, ps[i])
  nl.store(out, acc)
  return out
`, "k", [T([128, 512], () => 1)]);
    expect(data(ok)[0]).toBe(16 * 128);
  });

  test("checks: false turns the capacity check off", () => {
    const r = run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 16384), dtype=nl.float32, buffer=nl.shared_hbm)
  t0 = nl.load(a)
  t1 = nl.exp(t0)
  t2 = nl.exp(t1)
  t3 = nl.exp(t2)
  nl.store(out, t0 + t1 + t2 + t3)
  return out
`, "k", [T([128, 16384], () => 0)], { checks: false });
    expect(data(r)[0]).toBeCloseTo(0 + 1 + Math.E + Math.exp(Math.E), 4);
  });
});
