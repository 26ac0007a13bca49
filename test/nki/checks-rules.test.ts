// NKI compiler rules (docs/nki.md, "Compiler rules"): each a kernel that breaks it, rejected at the
// breaking line with the rule named, beside the kernel written as the compiler wants it.
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel, launchKernel } from "../../nki/language/run.js";
import { tensor } from "../../host/device/factories.js";
import type { Tensor } from "../../host/device/tensor.js";
import { GpsimdError, NkiDTypeError, NkiRuleError, NkiSyntaxError } from "../../host/checks/errors.js";

registerNkiModules();

const LEGACY = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\nimport numpy as np\n";
const CURRENT = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\nimport numpy as np\n";
let counter = 0;

function run(body: string, args: unknown[], header = LEGACY) {
  const file = `rules_${++counter}.py`;
  const program = loadProgram(file, { source: header + body });
  return { file, result: launchKernel(program, findKernel(program, "k"), args) };
}
function thrown(f: () => unknown): GpsimdError {
  try { f(); } catch (e) { return e as GpsimdError; }
  throw new Error("expected an error");
}
const T = (shape: number[], f: (i: number) => number = (i) => i % 5) =>
  tensor(Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => f(i)), shape, "float32");

/** The rule error of `body` (a kernel k over one [128, 64] input), asserted at `line`. */
function ruleAt(body: string, rule: string, line: number, header = LEGACY): NkiRuleError {
  const e = thrown(() => run(body, [T([128, 64])], header));
  expect(e).toBeInstanceOf(NkiRuleError);
  expect(e.code).toBe("E_NKI_RULE");
  expect(e.message).toContain(`NKI compiler rule '${rule}'`);
  expect(e.details).toMatchObject({ rule, line });
  expect(e.message).toMatch(new RegExp(`\\(rules_\\d+\\.py:${line}:\\d+\\)$`));
  expect(String((e.details as { source: string }).source)).toMatch(/nki\//);
  return e as NkiRuleError;
}

describe("control flow on tile values (tile-control-flow)", () => {
  test("if on a tile, while on a comparison of tiles, not and and on tiles: each at its line", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a)
  if t:
    t = nl.add(t, 1.0)
  return t
`, "tile-control-flow", 9);
    expect(e.message).toContain("tile 't' (sbuf float32[128, 64], allocated at rules_");
    ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a)
  while t > 0.0:
    t = nl.subtract(t, 1.0)
  return t
`, "tile-control-flow", 9);
    ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a)
  u = (not t)
  return t
`, "tile-control-flow", 9);
    ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a)
  u = t and 1
  return t
`, "tile-control-flow", 9);
  });

  test("the element-wise choice the compiler accepts: nl.where on a comparison", () => {
    const { result } = run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  t = nl.load(a)
  nl.store(out, nl.where(t > 2.0, t, 0.0))
  return out
`, [T([128, 64])]);
    const o = (result.returned as Tensor).data() as Float32Array;
    expect(Array.from(o.subarray(0, 5))).toEqual([0, 0, 0, 3, 4]);
  });
});

describe("compile-time ints (compile-time-int)", () => {
  test("an NKI range over a tile's value, a shape holding a tile, a dynamic slice sized by a tile", () => {
    ruleAt(`
@nki.jit
def k(a):
  n = nl.load(a[0:1, 0:1])
  for i in nl.affine_range(n):
    pass
  return a
`, "compile-time-int", 9);
    const e = ruleAt(`
@nki.jit
def k(a):
  n = nl.load(a[0:1, 0:1])
  t = nl.ndarray((128, n), dtype=nl.float32)
  return a
`, "compile-time-int", 9);
    expect(e.message).toContain("shape is tile 'n'");
    ruleAt(`
@nki.jit
def k(a):
  n = nl.load(a[0:1, 0:1])
  t = nl.load(a[:, nl.ds(0, n)])
  return a
`, "compile-time-int", 9);
  });

  test("constant bounds from shapes are what the compiler wants", () => {
    const { result } = run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  for i in nl.affine_range(a.shape[1] // 32):
    nl.store(out[:, nl.ds(i * 32, 32)], nl.load(a[:, nl.ds(i * 32, 32)]))
  return out
`, [T([128, 64])]);
    expect(((result.returned as Tensor).data() as Float32Array)[77]).toBe(77 % 5);
  });
});

describe("engines and buffers (sbuf-only-output)", () => {
  test("nisa.iota into a PSUM tile: GpSimdE cannot access PSUM", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  ps = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
  nisa.iota(dst=ps, pattern=[[1, 512]], offset=0)
  return a
`, "sbuf-only-output", 9, CURRENT);
    expect(e.message).toContain("nisa.iota writes tile 'ps' (psum float32[128, 512]");
  });

  test("nisa.affine_select reading a PSUM tile", () => {
    ruleAt(`
@nki.jit
def k(a):
  ps = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.psum)
  i_p, i_f = nl.mgrid[0:128, 0:64]
  t = nisa.affine_select(i_p >= i_f, ps, 0.0)
  return a
`, "sbuf-only-output", 10);
  });
});

describe("rules the machine already enforces with their own classes", () => {
  test("a non-affine index expression (i * i) is NkiSyntaxError E_NKI_UNSUPPORTED at its line", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  i = nl.arange(8)[:, None]
  t = nl.load(a[i * i, 0:64])
  return a
`, [T([128, 64])]));
    expect(e).toBeInstanceOf(NkiSyntaxError);
    expect(e.code).toBe("E_NKI_UNSUPPORTED");
    expect(e.details).toMatchObject({ line: 9 });
  });

  test("a matmul of integer tiles (TensorE takes float types) is NkiDTypeError at its line", () => {
    const e = thrown(() => run(`
@nki.jit
def k(a):
  x = nl.load(a, dtype=nl.int32)
  p = nl.matmul(x[:, 0:64], x, transpose_x=True)
  return a
`, [T([128, 64])]));
    expect(e).toBeInstanceOf(NkiDTypeError);
    expect(e.details).toMatchObject({ line: 9 });
  });
});
