// NKI kernels written inline, one family of the language at a time, against TypeScript references;
// then every error kind with its class, code, message and line.
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel, launchKernel, type LaunchOptions } from "../../nki/language/run.js";
import { tensor } from "../../host/device/factories.js";
import type { Tensor } from "../../host/device/tensor.js";
import { setOutput } from "../../host/output.js";
import { hbm } from "../../host/device/hbm.js";
import {
  GpsimdError, HbmAccessError, KernelAbortError, NkiDTypeError, TileShapeError, UninitializedTileError, UnwrittenOutputError,
} from "../../host/checks/errors.js";

registerNkiModules();

const HEADER = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\nimport numpy as np\n";
let counter = 0;

/** Runs kernel `name` of `body` (after the imports, which take 4 lines) with the arguments. */
function run(body: string, name: string, args: unknown[], options: LaunchOptions = {}, kwargs: Record<string, unknown> = {}) {
  const file = `inline_${++counter}.py`;
  const program = loadProgram(file, { source: HEADER + body });
  return launchKernel(program, findKernel(program, name), args, kwargs, options);
}
const out = (r: { returned: unknown }) => (r.returned as Tensor).data() as Float32Array;

function seq(n: number, f: (i: number) => number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => f(i));
}
/** A float32 tensor of the shape with values f(i). */
const T = (shape: number[], f: (i: number) => number, dtype = "float32") => tensor(seq(shape.reduce((a, b) => a * b, 1), f), shape, dtype);

/** The error `f` throws. */
function thrown(f: () => unknown): GpsimdError {
  try { f(); } catch (e) { return e as GpsimdError; }
  throw new Error("expected an error");
}

describe("element-wise", () => {
  test("nl functions, operators, scalars and dtype= against TypeScript", () => {
    const r = run(`
@nki.jit
def k(a, b):
  out = nl.ndarray((4, 128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  y = nl.load(b)
  nl.store(out[0], nl.add(x, y))
  nl.store(out[1], nl.maximum(x * 2, y) - 1)
  nl.store(out[2], nl.exp(-x / 8))
  nl.store(out[3], (x > y) + nl.multiply(x, y, dtype=nl.bfloat16))
  return out
`, "k", [T([128, 64], (i) => (i % 17) - 8), T([128, 64], (i) => (i % 5) * 0.5)]);
    const o = out(r);
    for (let i = 0; i < 128 * 64; i++) {
      const x = (i % 17) - 8, y = (i % 5) * 0.5;
      expect(o[i]).toBe(Math.fround(x + y));
      expect(o[8192 + i]).toBe(Math.max(x * 2, y) - 1);
      expect(o[16384 + i]).toBeCloseTo(Math.fround(Math.exp(-x / 8)), 5);
      expect(o[24576 + i]).toBe((x > y ? 1 : 0) + x * y); // small integers and halves: exact in bfloat16
    }
  });

  test("a [128, 1] column broadcasts over the free axis; nl.where and tensor_scalar with reverse0", () => {
    const r = run(`
@nki.jit
def k(a, c):
  out = nl.ndarray((3, 128, 32), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  col = nl.load(c)
  nl.store(out[0], x * col)
  nl.store(out[1], nl.where(x > 0, x, 0.0))
  nl.store(out[2], nisa.tensor_scalar(x, np.subtract, 10.0, reverse0=True, op1=np.multiply, operand1=col))
  return out
`, "k", [T([128, 32], (i) => (i % 9) - 4), T([128, 1], (p) => p)]);
    const o = out(r);
    for (let i = 0; i < 128 * 32; i++) {
      const x = (i % 9) - 4, c = Math.floor(i / 32);
      expect(o[i]).toBe(x * c);
      expect(o[4096 + i]).toBe(x > 0 ? x : 0);
      expect(o[8192 + i]).toBe((10 - x) * c);
    }
  });

  test("activation(op=nl.exp, scale, bias tile) is exp(x * scale + bias)", () => {
    const r = run(`
@nki.jit
def k(a, b):
  out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
  nl.store(out, nisa.activation(op=nl.exp, data=nl.load(a), bias=nl.load(b), scale=0.5))
  return out
`, "k", [T([128, 16], (i) => (i % 7) * 0.25), T([128, 1], (p) => p / 128)]);
    const o = out(r);
    for (let i = 0; i < o.length; i++) expect(o[i]).toBeCloseTo(Math.exp(Math.fround(Math.fround(((i % 7) * 0.25) * 0.5) + Math.fround(Math.floor(i / 16) / 128))), 4);
  });
});

describe("reductions", () => {
  test("nl.sum / nl.max / nl.mean over free axes, keepdims", () => {
    const r = run(`
@nki.jit
def k(a):
  out = nl.ndarray((3, 64, 1), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  nl.store(out[0], nl.sum(x, axis=[1, 2], keepdims=True)[:, :, 0])
  nl.store(out[1], nl.max(x, axis=(1, 2)))
  nl.store(out[2], nl.mean(nl.sum(x, axis=2), axis=1))
  return out
`, "k", [T([64, 4, 8], (i) => (i % 11) - 3)]);
    const o = out(r);
    for (let p = 0; p < 64; p++) {
      let sum = 0, max = -Infinity;
      for (let j = 0; j < 32; j++) { const v = ((p * 32 + j) % 11) - 3; sum += v; max = Math.max(max, v); }
      expect(o[p]).toBe(sum);
      expect(o[64 + p]).toBe(max);
      expect(o[128 + p]).toBe(sum / 4);
    }
  });

  test("nisa.tensor_reduce(np.add, axis=1) and tensor_partition_reduce", () => {
    const r = run(`
@nki.jit
def k(a):
  out = nl.ndarray((2, 16), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  nl.store(out[0:1, :], nisa.tensor_partition_reduce(np.add, x))
  nl.store(out[1:2, :], nisa.tensor_reduce(np.add, x[:, 0:16], axis=1).reshape((1, 16)))
  return out
`, "k", [T([16, 16], (i) => i)]);
    const o = out(r);
    for (let j = 0; j < 16; j++) {
      let col = 0, row = 0;
      for (let p = 0; p < 16; p++) { col += p * 16 + j; row += j * 16 + p; }
      expect(o[j]).toBe(col);
      expect(o[16 + j]).toBe(row);
    }
  });
});

describe("matmul and transpose", () => {
  test("nl.matmul(x, y, transpose_x=True) accumulated over K tiles into PSUM (psum += ...)", () => {
    const K = 256, M = 64, N = 96;
    const r = run(`
@nki.jit
def k(lhsT, rhs):
  K, M = lhsT.shape
  _, N = rhs.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  acc = nl.zeros((M, N), dtype=nl.float32, buffer=nl.psum)
  for kt in nl.affine_range(K // 128):
    x = nl.load(lhsT[kt * 128:(kt + 1) * 128, :])
    y = nl.load(rhs[kt * 128:(kt + 1) * 128, :])
    acc += nl.matmul(x, y, transpose_x=True)
  nl.store(out, nl.copy(acc))
  return out
`, "k", [T([K, M], (i) => (i % 13) - 6), T([K, N], (i) => (i % 7) - 3)]);
    const o = out(r);
    for (let m = 0; m < M; m++) for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += (((k * M + m) % 13) - 6) * (((k * N + n) % 7) - 3);
      expect(o[m * N + n]).toBe(s);
    }
  });

  test("nisa.nc_matmul(stationary, moving) and nl.transpose / nisa.nc_transpose", () => {
    const r = run(`
@nki.jit
def k(a, b):
  out = nl.ndarray((3, 32, 32), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  y = nl.load(b)
  nl.store(out[0], nisa.nc_matmul(x, y))
  nl.store(out[1], nl.transpose(x))
  nl.store(out[2], nisa.nc_transpose(y, engine=nisa.vector_engine))
  return out
`, "k", [T([32, 32], (i) => i % 9), T([32, 32], (i) => (i % 4) - 1)]);
    const o = out(r);
    for (let m = 0; m < 32; m++) for (let n = 0; n < 32; n++) {
      let s = 0;
      for (let k = 0; k < 32; k++) s += ((k * 32 + m) % 9) * (((k * 32 + n) % 4) - 1);
      expect(o[m * 32 + n]).toBe(s);
      expect(o[1024 + m * 32 + n]).toBe((n * 32 + m) % 9);
      expect(o[2048 + m * 32 + n]).toBe(((n * 32 + m) % 4) - 1);
    }
  });
});

describe("data movement, masks, iota, memset, SPMD, printing", () => {
  test("masked load and store touch only the box; iota and memset", () => {
    const r = run(`
@nki.jit
def k(a):
  out = nl.ndarray((100, 8), dtype=nl.float32, buffer=nl.shared_hbm)
  i_p = nl.arange(128)[:, None]
  i_f = nl.arange(8)[None, :]
  t = nl.load(a[i_p, i_f], mask=(i_p < 100))
  nl.store(out[i_p, i_f], value=t, mask=(i_p < 100))
  idx = nisa.iota(i_p * 8 + i_f, dtype=nl.int32)
  ones = nisa.memset(shape=(128, 8), value=1.0, dtype=nl.float32)
  nl.store(out[0:4, :], idx[0:4, :] + ones[0:4, :], mask=(i_p < 2))
  return out
`, "k", [T([100, 8], (i) => -i)]);
    const o = out(r);
    for (let i = 0; i < 800; i++) expect(o[i]).toBe(i < 16 ? i + 1 : -i);
  });

  test("program_id and num_programs on a [2, 3] grid; every instance stores its block", () => {
    const r = run(`
@nki.jit
def k(a):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  i = nl.program_id(0)
  j = nl.program_id(axis=1)
  t = nl.load(a[i * 4:(i + 1) * 4, j * 8:(j + 1) * 8])
  nl.store(out[i * 4:(i + 1) * 4, j * 8:(j + 1) * 8], t + (i * nl.num_programs(1) + j) * 100)
  return out
`, "k", [T([8, 24], (i) => i)], { grid: [2, 3] });
    const o = out(r);
    for (let row = 0; row < 8; row++) for (let col = 0; col < 24; col++) {
      const inst = Math.floor(row / 4) * 3 + Math.floor(col / 8);
      expect(o[row * 24 + col]).toBe(row * 24 + col + inst * 100);
    }
  });

  test("the current API: nisa.dma_copy(dst=, src=), tensor_tensor(dst, ...), nl.ndarray in SBUF", () => {
    const program = loadProgram("current.py", { source: `import nki
import nki.language as nl
import nki.isa as nisa

@nki.jit
def k(a, b):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  x = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
  y = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
  nisa.dma_copy(dst=x, src=a)
  nisa.dma_copy(dst=y, src=b)
  z = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
  nisa.tensor_tensor(z, x, y, op=nl.subtract)
  nisa.dma_copy(dst=out, src=z)
  return out
` });
    const r = launchKernel(program, findKernel(program, "k"), [T([16, 8], (i) => i), T([16, 8], (i) => 2 * i)]);
    const o = out(r);
    for (let i = 0; i < 128; i++) expect(o[i] + 0).toBe(-i + 0); // 0 - 0 is +0
  });

  test("nl.device_print prints the prefix and the values", () => {
    let printed = "";
    const restore = setOutput({ printf: (s) => { printed += s; } });
    try {
      run(`
@nki.jit
def k(a):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  t = nl.load(a)
  nl.device_print("tile:", t)
  nl.store(out, t)
  return out
`, "k", [T([2, 3], (i) => i * 1.5)]);
    } finally { restore(); }
    expect(printed).toBe("tile: [[0. 1.5 3.]\n [4.5 6. 7.5]]\n");
  });

  test("a tile of more than 1000 elements prints summarised as numpy does, tagged with the SPMD instance", () => {
    let printed = "";
    const restore = setOutput({ printf: (s) => { printed += s; } });
    try {
      run(`
@nki.jit
def k(a):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  t = nl.load(a)
  if nl.program_id(0) == 1:
    nl.device_print("big", t)
  i = nl.program_id(0)
  nl.store(out[i * 32:(i + 1) * 32, :], t[i * 32:(i + 1) * 32, :])
  return out
`, "k", [T([64, 100], (i) => i, "int32")], { grid: [2] });
    } finally { restore(); }
    expect(printed).toBe("[instance [1]] big [[0 1 2 ... 97 98 99]\n [100 101 102 ... 197 198 199]\n [200 201 202 ... 297 298 299]\n ...\n" +
      " [6100 6101 6102 ... 6197 6198 6199]\n [6200 6201 6202 ... 6297 6298 6299]\n [6300 6301 6302 ... 6397 6398 6399]]\n");
  });
});

describe("indirect access and the current nc_matmul", () => {
  test("a gather through an index tile, and an index past the end with oob_mode=error naming the row", () => {
    const body = `
@nki.jit
def k(data, idx):
  out = nl.ndarray((4, 8), dtype=data.dtype, buffer=nl.shared_hbm)
  index = nl.load(idx)
  rows = nl.ndarray((4, 8), dtype=data.dtype, buffer=nl.sbuf)
  i_f = nl.arange(8)[None, :]
  nisa.dma_copy(dst=rows, src=data[index, i_f])
  nl.store(out, rows)
  return out
`;
    const data = T([16, 8], (i) => i);
    const r = run(body, "k", [data, T([4, 1], (p) => [3, 0, 15, 7][p], "int32")]);
    const o = out(r);
    [3, 0, 15, 7].forEach((row, p) => { for (let j = 0; j < 8; j++) expect(o[p * 8 + j]).toBe(row * 8 + j); });
    const e = thrown(() => run(body, "k", [data, T([4, 1], (p) => [3, 16, 0, 0][p], "int32")]));
    expect(e).toBeInstanceOf(HbmAccessError);
    expect(e.message).toContain("index 16 (row 1 of the index tile 'index') of dimension 0 of HBM tensor 'data'");
    expect(e.details.line).toBe(12);
  });

  test("nki.isa.nc_matmul(dst, ...) with accumulate=None: the first write overwrites, later ones add", () => {
    const program = loadProgram("current_mm.py", { source: `import nki
import nki.language as nl
import nki.isa as nisa

@nki.jit
def k(a, b):
  out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
  y = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
  nisa.dma_copy(dst=x, src=a)
  nisa.dma_copy(dst=y, src=b)
  acc = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
  for i in nl.sequential_range(3):
    nisa.nc_matmul(acc, x, y)
  res = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_copy(res, acc)
  nisa.dma_copy(dst=out, src=res)
  return out
` });
    const r = launchKernel(program, findKernel(program, "k"), [T([4, 8], (i) => i % 3), T([4, 8], (i) => (i % 5) - 2)]);
    const o = out(r);
    for (let m = 0; m < 8; m++) for (let n = 0; n < 8; n++) {
      let s = 0;
      for (let kk = 0; kk < 4; kk++) s += ((kk * 8 + m) % 3) * (((kk * 8 + n) % 5) - 2);
      expect(o[m * 8 + n]).toBe(3 * s);
    }
  });

  test("matmul of integer tiles is NkiDTypeError; a mask over two index variables is E_NKI_UNSUPPORTED at its line", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  t = nl.load(a)
  p = nisa.nc_matmul(t, t)
  return a
`, "k", [T([4, 4], (i) => i, "int32")]));
    expect(e).toBeInstanceOf(NkiDTypeError);
    expect(e.message).toContain("TensorE multiplies float tiles; stationary is int32");
    const e2 = thrown(() => run(`
@nki.jit
def k(a):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  i_p = nl.arange(4)[:, None]
  i_f = nl.arange(4)[None, :]
  nl.store(out, nl.load(a), mask=(i_p + i_f < 4))
  return out
`, "k", [T([4, 4], (i) => i)]));
    expect(e2.code).toBe("E_NKI_UNSUPPORTED");
    expect(e2.details.line).toBe(11);
  });
});

describe("on-chip memory", () => {
  test("a loop that allocates 100 MiB of tiles runs past the arena; the extra chunks are given back", () => {
    const body = `
@nki.jit
def k(a):
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)
  for i in nl.sequential_range(200):
    t = nl.load(a)
    acc[...] = acc + t
  nl.store(out, acc)
  return out
`;
    const input = T([128, 512], (i) => i % 3);
    const inUse: number[] = [];
    for (let round = 0; round < 2; round++) {
      const r = run(body, "k", [input]);
      const o = out(r);
      for (let i = 0; i < o.length; i += 97) expect(o[i]).toBe(200 * (i % 3));
      (r.returned as Tensor).dispose();
      inUse.push(hbm().bytesInUse);
    }
    expect(inUse[1]).toBe(inUse[0]); // 400 tiles of 256 KiB each time, nothing kept
  });
});

describe("errors", () => {
  test("an HBM access past the end: HbmAccessError E_NKI_HBM_RANGE with the tensor's name and the line", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)
  t = nl.load(a[0:200, :])
  nl.store(out, t[0:128, :])
  return out
`, "k", [T([128, 8], (i) => i)]));
    expect(e).toBeInstanceOf(HbmAccessError);
    expect(e.code).toBe("E_NKI_HBM_RANGE");
    expect(e.message).toContain("indices 0..199 of dimension 0 of HBM tensor 'a'");
    expect(e.message).toMatch(/at k \(inline_\d+\.py:9:\d+\)$/);
    expect(e.details.line).toBe(9);
  });

  test("a partition dimension over 128: TileShapeError E_NKI_PARTITION", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  big = nl.ndarray((256, 4), dtype=nl.float32, buffer=nl.sbuf)
  return a
`, "k", [T([1, 1], () => 0)]));
    expect(e).toBeInstanceOf(TileShapeError);
    expect(e.code).toBe("E_NKI_PARTITION");
    expect(e.message).toContain("'big' of shape (256, 4) has 256 partitions");
    expect(e.details.line).toBe(8);
  });

  test("a PSUM tile over one bank: TileShapeError E_NKI_PSUM_BANK", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  acc = nl.zeros((128, 1024), dtype=nl.float32, buffer=nl.psum)
  return a
`, "k", [T([1, 1], () => 0)]));
    expect(e).toBeInstanceOf(TileShapeError);
    expect(e.code).toBe("E_NKI_PSUM_BANK");
    expect(e.message).toContain("takes 4096 bytes per partition");
    expect(e.details.line).toBe(8);
  });

  test("a matmul whose stationary operand is wider than 128: TileShapeError E_NKI_MATMUL naming the operand", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a, b):
  out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
  p = nl.matmul(nl.load(a), nl.load(b), transpose_x=True)
  return out
`, "k", [T([128, 256], () => 1), T([128, 8], () => 1)]));
    expect(e).toBeInstanceOf(TileShapeError);
    expect(e.code).toBe("E_NKI_MATMUL");
    expect(e.message).toContain("x of shape (128, 256) has free size 256");
    expect(e.details.line).toBe(9);
  });

  test("reading SBUF never written: UninitializedTileError naming the instruction, tile, element and line", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.load(a)
  b_tile = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.sbuf)
  b_tile[0:64, :] = x[0:64, :]
  nl.store(out, nl.add(x, b_tile))
  return out
`, "k", [T([128, 8], (i) => i)]));
    expect(e).toBeInstanceOf(UninitializedTileError);
    expect(e.code).toBe("E_NKI_UNINIT");
    expect(e.message).toMatch(/^nl\.add reads element \[64, 0\] of tile 'b_tile' \(sbuf float32\[128, 8\], allocated at inline_\d+\.py:10\) before any instruction wrote it at k \(inline_\d+\.py:12:\d+\)$/);
    expect(e.details).toMatchObject({ line: 12, tile: "b_tile", index: [64, 0] });
  });

  test("a shared_hbm output not fully stored: UnwrittenOutputError naming the output, first index and count", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  result = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
  nl.store(result[0:127, :], nl.load(a[0:127, :]))
  return result
`, "k", [T([128, 8], (i) => i)]));
    expect(e).toBeInstanceOf(UnwrittenOutputError);
    expect(e.code).toBe("E_NKI_UNWRITTEN");
    expect(e.message).toContain("8 of 1024 elements of the output HBM tensor 'result'");
    expect(e.message).toContain("the first at [127, 0] to [127, 7]");
    expect(e.details.line).toBe(8);
  });

  test("a float-only instruction on an int32 tile: NkiDTypeError E_NKI_DTYPE; axis 0 reductions: TileShapeError", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
  nl.store(out, nl.exp(nl.load(a)))
  return out
`, "k", [T([4, 4], (i) => i, "int32")]));
    expect(e).toBeInstanceOf(NkiDTypeError);
    expect(e.code).toBe("E_NKI_DTYPE");
    expect(e.message).toContain("nl.exp: takes a float tile");
    expect(e.details.line).toBe(9);
    const e2 = thrown(() => run(`
@nki.jit
def k(a):
  s = nl.sum(nl.load(a), axis=0)
  return a
`, "k", [T([4, 4], (i) => i)]));
    expect(e2).toBeInstanceOf(TileShapeError);
    expect(e2.message).toContain("axis 0 is the partition axis");
  });

  test("a failed assert: KernelAbortError E_NKI_ASSERT with its message and line", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  assert a.shape[0] == 128, f"expected 128 rows, got {a.shape[0]}"
  return a
`, "k", [T([4, 4], (i) => i)]));
    expect(e).toBeInstanceOf(KernelAbortError);
    expect(e.code).toBe("E_NKI_ASSERT");
    expect(e.message).toContain("expected 128 rows, got 4");
    expect(e.details.line).toBe(8);
  });
});
