// Published NKI kernels (aws-neuron-sdk samples, as copied unchanged into test/nki/corpus) run through the
// interpreter against a small fake of nki.language / nki.isa written here in TypeScript: tensors
// are plain float arrays, dma_copy copies, nc_matmul accumulates stationary^T @ moving. The
// results are compared with a TypeScript reference, so the interpreter's slicing, loops, keyword
// arguments and asserts are exercised on real kernel code.
import { beforeAll, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KernelAbortError } from "../../host/checks/errors.js";
import {
  bindArgs, HostObject, loadProgram, NativeFunction, parseModule, PyException, PyModule, PyRange, PySlice, PyTuple, pyRepr, registerNativeModule,
  type CallContext, type PyValue,
} from "../../nki/python/index.js";

/** The published examples, unchanged (source, commit and licence: test/nki/corpus/manifest.json). */
const fixtures = join(__dirname, "corpus", "aws-neuron-sdk", "nki", "examples");

/** A 2-D view over a row-major buffer. */
class FakeTensor extends HostObject {
  readonly typeName = "FakeTensor";
  constructor(readonly data: Float64Array, readonly rows: number, readonly cols: number, readonly row0 = 0, readonly col0 = 0, readonly stride = cols) { super(); }
  static zeros(rows: number, cols: number): FakeTensor { return new FakeTensor(new Float64Array(rows * cols), rows, cols); }
  at(r: number, c: number): number { return this.data[(this.row0 + r) * this.stride + this.col0 + c]; }
  set(r: number, c: number, v: number): void { this.data[(this.row0 + r) * this.stride + this.col0 + c] = v; }
  override getAttr(name: string): PyValue | undefined {
    if (name === "shape") return new PyTuple([this.rows, this.cols]);
    if (name === "dtype") return "float32";
    return undefined;
  }
  override getItem(key: PyValue): PyValue {
    const [rs, cs] = key instanceof PyTuple ? key.items : [key];
    const span = (s: PyValue, n: number): [number, number] => {
      if (!(s instanceof PySlice)) throw new PyException("IndexError", "FakeTensor takes slices");
      const a = (s.start as number | null) ?? 0, b = (s.stop as number | null) ?? n;
      if (a < 0 || b > n || a >= b) throw new PyException("IndexError", `slice ${a}:${b} outside 0:${n}`);
      return [a, b];
    };
    const [r0, r1] = span(rs, this.rows), [c0, c1] = span(cs ?? new PySlice(null, null, null), this.cols);
    return new FakeTensor(this.data, r1 - r0, c1 - c0, this.row0 + r0, this.col0 + c0, this.stride);
  }
}

function tensor(v: PyValue): FakeTensor {
  if (!(v instanceof FakeTensor)) throw new PyException("TypeError", `expected a tensor, got ${String(v)}`);
  return v;
}
function sameShape(a: FakeTensor, b: FakeTensor, ctx: CallContext): void {
  if (a.rows !== b.rows || a.cols !== b.cols) throw new PyException("ValueError", `shape mismatch at line ${ctx.site.line}`);
}

const calls: { name: string; line: number; fn: string }[] = [];

function native(name: string, spec: string[], body: (a: Record<string, PyValue>, ctx: CallContext) => PyValue): NativeFunction {
  return new NativeFunction(name, (args, kwargs, ctx) => { calls.push({ name, line: ctx.site.line, fn: ctx.site.function }); return body(bindArgs(name, spec, args, kwargs), ctx); });
}

function registerFakeNki(): void {
  const tileSize = new PyModule("tile_size");
  for (const [k, v] of [["pmax", 128], ["gemm_stationary_fmax", 128], ["gemm_moving_fmax", 512], ["psum_fmax", 512]] as const) tileSize.attrs.set(k, v);
  const nl = new PyModule("nki.language");
  nl.attrs.set("tile_size", tileSize);
  for (const b of ["sbuf", "psum", "shared_hbm", "float32"]) nl.attrs.set(b, b);
  nl.attrs.set("add", new NativeFunction("add", () => null));
  nl.attrs.set("ndarray", native("ndarray", ["shape", "dtype=None", "buffer=None"], ({ shape }) => {
    const [r, c] = (shape as PyTuple).items as number[];
    return FakeTensor.zeros(r, c);
  }));
  nl.attrs.set("affine_range", native("affine_range", ["n"], ({ n }) => new PyRange(0, n as number, 1)));
  const nisa = new PyModule("nki.isa");
  const copy = (dst: FakeTensor, src: FakeTensor, ctx: CallContext) => {
    sameShape(dst, src, ctx);
    for (let r = 0; r < dst.rows; r++) for (let c = 0; c < dst.cols; c++) dst.set(r, c, src.at(r, c));
    return null;
  };
  nisa.attrs.set("dma_copy", native("dma_copy", ["dst", "src"], (a, ctx) => copy(tensor(a.dst), tensor(a.src), ctx)));
  nisa.attrs.set("tensor_copy", native("tensor_copy", ["dst", "src"], (a, ctx) => copy(tensor(a.dst), tensor(a.src), ctx)));
  nisa.attrs.set("tensor_tensor", native("tensor_tensor", ["dst", "data1", "data2", "op"], (a, ctx) => {
    const [d, x, y] = [tensor(a.dst), tensor(a.data1), tensor(a.data2)];
    sameShape(d, x, ctx); sameShape(x, y, ctx);
    for (let r = 0; r < d.rows; r++) for (let c = 0; c < d.cols; c++) d.set(r, c, x.at(r, c) + y.at(r, c));
    return null;
  }));
  nisa.attrs.set("nc_matmul", native("nc_matmul", ["dst", "stationary", "moving"], (a) => {
    const [d, s, m] = [tensor(a.dst), tensor(a.stationary), tensor(a.moving)];
    const out = matmulT(s, m);
    for (let i = 0; i < s.cols; i++) for (let j = 0; j < m.cols; j++) d.set(i, j, d.at(i, j) + out[i * m.cols + j]);
    return null;
  }));
  const nki = new PyModule("nki");
  nki.attrs.set("jit", new NativeFunction("jit", (args) => args[0]));
  nki.attrs.set("language", nl);
  nki.attrs.set("isa", nisa);
  registerNativeModule("nki", () => nki);
  registerNativeModule("nki.language", () => nl);
  registerNativeModule("nki.isa", () => nisa);
  registerNativeModule("numpy", () => new PyModule("numpy"));
}


function filled(rows: number, cols: number, f: (r: number, c: number) => number): FakeTensor {
  const t = FakeTensor.zeros(rows, cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t.set(r, c, f(r, c));
  return t;
}

/** lhsT^T @ rhs, row-major: the reference the kernels are checked against (and the fake engine's matmul). */
function matmulT(lhsT: FakeTensor, rhs: FakeTensor): Float64Array {
  const out = new Float64Array(lhsT.cols * rhs.cols);
  for (let k = 0; k < lhsT.rows; k++) {
    for (let i = 0; i < lhsT.cols; i++) {
      const a = lhsT.at(k, i);
      if (a === 0) continue;
      const base = (rhs.row0 + k) * rhs.stride + rhs.col0;
      for (let j = 0; j < rhs.cols; j++) out[i * rhs.cols + j] += a * rhs.data[base + j];
    }
  }
  return out;
}


function values(t: FakeTensor): number[] {
  const out: number[] = [];
  for (let r = 0; r < t.rows; r++) for (let c = 0; c < t.cols; c++) out.push(t.at(r, c));
  return out;
}

/** The first index where a and b differ (-1: equal); cheaper than toEqual on 256K-element arrays. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

beforeAll(registerFakeNki);

describe("published NKI kernels run through the interpreter", () => {
  test("every fixture parses", () => {
    for (const name of ["matrix_multiplication", "tensor_addition", "average_pool2d"]) {
      const f = join(name, `${name}_nki_kernels.py`);
      expect(() => parseModule(join(fixtures, f), readFileSync(join(fixtures, f), "utf8"))).not.toThrow();
    }
  });

  test("matrix_multiplication: nki_matmul_basic_ and nki_matmul_tiled_ compute lhsT^T @ rhs", () => {
    const program = loadProgram(join(fixtures, "matrix_multiplication", "matrix_multiplication_nki_kernels.py"), { deadline: Date.now() + 3000 });
    const lhsT = filled(128, 64, (r, c) => ((r * 7 + c * 3) % 11) - 5);
    const rhs = filled(128, 512, (r, c) => ((r * 5 + c) % 13) - 6);
    const basic = program.call(program.globals.attrs.get("nki_matmul_basic_")!, [lhsT, rhs]);
    expect(firstDifference(values(tensor(basic)), matmulT(lhsT, rhs))).toBe(-1);

    calls.length = 0;
    const lhsT2 = filled(256, 256, (r, c) => ((r * 3 + c * 5) % 7) - 3);
    const rhs2 = filled(256, 1024, (r, c) => ((r + c * 2) % 5) - 2);
    const tiled = program.call(program.globals.attrs.get("nki_matmul_tiled_")!, [lhsT2, rhs2]);
    expect(firstDifference(values(tensor(tiled)), matmulT(lhsT2, rhs2))).toBe(-1);
    // 2 x 2 output tiles, each with 2 contraction steps of (2 dma_copy + 1 matmul), then copy and store
    expect(calls.filter((c) => c.name === "nc_matmul").length).toBe(8);
    expect(calls.filter((c) => c.name === "dma_copy").length).toBe(2 * 2 * (2 * 2 + 1));
    expect(calls.every((c) => c.fn === "nki_matmul_tiled_")).toBe(true);
  });

  test("matrix_multiplication: a shape the kernel asserts against is E_NKI_ASSERT naming the assert", () => {
    const program = loadProgram(join(fixtures, "matrix_multiplication", "matrix_multiplication_nki_kernels.py"), { deadline: Date.now() + 3000 });
    let err: unknown;
    try { program.call(program.globals.attrs.get("nki_matmul_basic_")!, [FakeTensor.zeros(128, 32), FakeTensor.zeros(128, 512)]); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(KernelAbortError);
    const e = err as KernelAbortError;
    expect(e.code).toBe("E_NKI_ASSERT");
    // the source line is the published file's line 36: assert M == 64, f"..."
    expect(e.message).toBe(`AssertionError: Expected lhsT matrix to have dimension M of 64, but got 32 at nki_matmul_basic_ (${join(fixtures, "matrix_multiplication", "matrix_multiplication_nki_kernels.py")}:36:3)`);
  });

  test("tensor_addition: nki_tensor_add adds tile by tile", () => {
    const program = loadProgram(join(fixtures, "tensor_addition", "tensor_addition_nki_kernels.py"));
    const a = filled(256, 1024, (r, c) => r - c), b = filled(256, 1024, (r, c) => r * c);
    const c = program.call(program.globals.attrs.get("nki_tensor_add")!, [a, b]);
    const va = values(a), vb = values(b);
    expect(firstDifference(values(tensor(c)), va.map((v, i) => v + vb[i]))).toBe(-1);
    // the module-level os.environ[...] = "trn1" ran against the program's os module
    const os = program.globals.attrs.get("os") as PyModule;
    expect(pyRepr(os.attrs.get("environ")!)).toContain("'NEURON_PLATFORM_TARGET_OVERRIDE': 'trn1'");
  });
});
