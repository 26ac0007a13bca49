// The engine= argument (docs/nki.md, "Compiler rules": engine, engine-buffer): each choice the NKI ISA
// reference forbids, rejected at its line with the instruction, the engine given and the engines
// allowed; allowed choices compute what the default does and are placed on their engine by the profile.
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel, launchKernel } from "../../nki/language/run.js";
import { profileKernel } from "../../nki/profile/index.js";
import { tensor } from "../../host/device/factories.js";
import type { Tensor } from "../../host/device/tensor.js";
import { GpsimdError, NkiRuleError } from "../../host/checks/errors.js";

registerNkiModules();

const LEGACY = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\nimport numpy as np\n";
const CURRENT = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\nimport numpy as np\n";
let counter = 0;

function load(body: string, header: string) {
  const file = `engine_${++counter}.py`;
  const program = loadProgram(file, { source: header + body });
  return { program, kernel: findKernel(program, "k") };
}
function run(body: string, args: unknown[], header = CURRENT): Float32Array {
  const { program, kernel } = load(body, header);
  return (launchKernel(program, kernel, args).returned as Tensor).data() as Float32Array;
}
function thrown(f: () => unknown): GpsimdError {
  try { f(); } catch (e) { return e as GpsimdError; }
  throw new Error("expected an error");
}
const T = (shape: number[], f: (i: number) => number = (i) => (i % 5) + 1) =>
  tensor(Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => f(i)), shape, "float32");

/** The rule error of `body` (a kernel k over one [128, 64] input) at `line`, naming the instruction and engines. */
function ruleAt(body: string, rule: "engine" | "engine-buffer", line: number, instruction: string, engine: string, allowed: string[], header = CURRENT): NkiRuleError {
  const { program, kernel } = load(body, header);
  const e = thrown(() => launchKernel(program, kernel, [T([128, 64])]));
  expect(e).toBeInstanceOf(NkiRuleError);
  expect(e.code).toBe("E_NKI_RULE");
  expect(e.details).toMatchObject({ rule, line, instruction, engine, allowed });
  expect(e.message).toContain(`NKI compiler rule '${rule}'`);
  expect(e.message).toContain(`${instruction}(engine=nisa.engine.${engine})`);
  expect(e.message).toMatch(new RegExp(`\\(engine_\\d+\\.py:${line}:\\d+\\)$`));
  expect(String((e.details as { source: string }).source)).toContain(`nki/api/nki/isa/__init__.py, ${instruction.slice(5)}`);
  return e as NkiRuleError;
}

describe("an engine the instruction does not run on (engine)", () => {
  test("nisa.tensor_tensor on the Scalar engine: it runs on Vector or GpSimd", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a)
  nisa.tensor_tensor(dst=t, data1=t, data2=t, op=nl.add, engine=nisa.engine.scalar)
  return a
`, "engine", 10, "nisa.tensor_tensor", "scalar", ["vector", "gpsimd"]);
    expect(e.message).toContain("runs on nisa.engine.vector or nisa.engine.gpsimd");
  });

  test("legacy spellings: nisa.tensor_copy on nisa.tensor_engine, nisa.memset on nisa.scalar_engine", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a)
  u = nisa.tensor_copy(t, engine=nisa.tensor_engine)
  return a
`, "engine", 9, "nisa.tensor_copy", "tensor", ["vector", "scalar", "gpsimd"], LEGACY);
    expect(e.message).toContain("runs on nisa.engine.vector or nisa.engine.scalar or nisa.engine.gpsimd");
    ruleAt(`
@nki.jit
def k(a):
  z = nisa.memset((128, 64), 0.0, dtype=nl.float32, engine=nisa.scalar_engine)
  return a
`, "engine", 8, "nisa.memset", "scalar", ["vector", "gpsimd"], LEGACY);
  });

  test("nisa.nc_transpose on GpSimd (Tensor or Vector only), and on Vector above [32, 32]", () => {
    ruleAt(`
@nki.jit
def k(a):
  t = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a[0:32, 0:32])
  u = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.sbuf)
  nisa.nc_transpose(dst=u, data=t, engine=nisa.engine.gpsimd)
  return a
`, "engine", 11, "nisa.nc_transpose", "gpsimd", ["tensor", "vector"]);
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a[0:64, 0:64])
  u = nisa.nc_transpose(t, engine=nisa.vector_engine)
  return a
`, "engine", 9, "nisa.nc_transpose", "vector", ["tensor", "vector"], LEGACY);
    expect(e.message).toContain("[32, 32] or smaller; data is [64, 64]");
  });

  test("nisa.tensor_scalar: GpSimd only for nl.rsqrt, bitvec operators on Vector only", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a)
  u = nisa.tensor_scalar(t, np.multiply, 2.0, engine=nisa.gpsimd_engine)
  return a
`, "engine", 9, "nisa.tensor_scalar", "gpsimd", ["vector", "scalar", "gpsimd"], LEGACY);
    expect(e.message).toContain("only allowed for nl.rsqrt, not op0=nl.multiply");
    const b = ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a, dtype=nl.int32)
  u = nisa.tensor_scalar(t, nl.bitwise_and, 3, engine=nisa.scalar_engine)
  return a
`, "engine", 9, "nisa.tensor_scalar", "scalar", ["vector", "scalar", "gpsimd"], LEGACY);
    expect(b.message).toContain("bitvec operator nl.bitwise_and");
  });

  test("nisa.tensor_tensor with op=nl.power anywhere but GpSimd", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.load(a)
  u = nisa.tensor_tensor(t, t, op=nl.power, engine=nisa.vector_engine)
  return a
`, "engine", 9, "nisa.tensor_tensor", "vector", ["vector", "gpsimd"], LEGACY);
    expect(e.message).toContain("cannot run nl.power");
  });

  test("nisa.engine.dma (the reference's DMA member) for a tensor_copy; a value that is no engine", () => {
    ruleAt(`
@nki.jit
def k(a):
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a)
  nisa.tensor_copy(dst=t, src=t, engine=nisa.engine.dma)
  return a
`, "engine", 10, "nisa.tensor_copy", "dma", ["vector", "scalar", "gpsimd"]);
    const { program, kernel } = load(`
@nki.jit
def k(a):
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.memset(dst=t, value=0.0, engine=nisa.dge_mode.hwdge)
  return a
`, CURRENT);
    const e = thrown(() => launchKernel(program, kernel, [T([128, 64])]));
    expect(e).toBeInstanceOf(NkiRuleError);
    expect(e.details).toMatchObject({ rule: "engine", line: 9, instruction: "nisa.memset" });
    expect(e.message).toContain("nisa.memset(engine=dge_mode.hwdge) is not an engine; pass one of nisa.engine.vector, nisa.engine.gpsimd or nisa.engine.unknown");
  });

  test("nisa.dma_copy: engine= is Sync or Scalar, and only with dge_mode=hwdge", () => {
    ruleAt(`
@nki.jit
def k(a):
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a, dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.vector)
  return a
`, "engine", 9, "nisa.dma_copy", "vector", ["sync", "scalar"]);
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a, engine=nisa.engine.sync)
  return a
`, "engine", 9, "nisa.dma_copy", "sync", ["sync", "scalar"]);
    expect(e.message).toContain("only valid with dge_mode=nisa.dge_mode.hwdge (given: the default, nisa.dge_mode.unknown)");
  });
});

describe("an engine that cannot reach the tiles (engine-buffer)", () => {
  test("GpSimd touching PSUM: tensor_copy from, tensor_tensor into, memset of a PSUM tile", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  ps = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
  nisa.memset(dst=ps, value=0.0, engine=nisa.engine.vector)
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_copy(dst=t, src=ps, engine=nisa.engine.gpsimd)
  return a
`, "engine-buffer", 11, "nisa.tensor_copy", "gpsimd", ["vector", "scalar", "gpsimd"]);
    expect(e.message).toContain("src=tile 'ps' (psum float32[128, 64]");
    expect(e.message).toContain("GpSimd Engine cannot access; choose nisa.engine.vector or nisa.engine.scalar");
    expect(String((e.details as { source: string }).source)).toContain("trainium_inferentia2_arch.rst");
    ruleAt(`
@nki.jit
def k(a):
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a)
  ps = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
  nisa.tensor_tensor(dst=ps, data1=t, data2=t, op=nl.add, engine=nisa.engine.gpsimd)
  return a
`, "engine-buffer", 11, "nisa.tensor_tensor", "gpsimd", ["vector", "gpsimd"]);
    ruleAt(`
@nki.jit
def k(a):
  ps = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
  nisa.memset(dst=ps, value=0.0, engine=nisa.engine.gpsimd)
  return a
`, "engine-buffer", 9, "nisa.memset", "gpsimd", ["vector", "gpsimd"]);
  });

  test("a Tensor engine transpose into SBUF (it writes PSUM)", () => {
    const e = ruleAt(`
@nki.jit
def k(a):
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a)
  u = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.sbuf)
  nisa.nc_transpose(dst=u, data=t, engine=nisa.engine.tensor)
  return a
`, "engine-buffer", 11, "nisa.nc_transpose", "tensor", ["tensor", "vector"]);
    expect(e.message).toContain("must write its result to PSUM; dst=tile 'u' (sbuf float32[64, 128]");
  });
});

describe("allowed engine choices", () => {
  const x = T([128, 64], (i) => ((i * 7) % 11) + 1);
  const xs = Array.from(x.data() as Float32Array);

  test("tensor_tensor on GpSimd, tensor_copy and tensor_scalar on Scalar: the default's numbers", () => {
    const kernel = (engine: string) => `
@nki.jit
def k(a):
  out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a)
  u = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_tensor(dst=u, data1=t, data2=t, op=nl.multiply${engine ? `, engine=nisa.engine.gpsimd` : ""})
  v = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_copy(dst=v, src=u${engine ? `, engine=nisa.engine.scalar` : ""})
  w = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_scalar(dst=w, data=v, op0=nl.multiply, operand0=0.5, op1=nl.add, operand1=1.0${engine ? `, engine=nisa.engine.scalar` : ""})
  nisa.dma_copy(dst=out, src=w)
  return out
`;
    const chosen = run(kernel("chosen"), [x]), dflt = run(kernel(""), [x]);
    expect(Array.from(chosen)).toEqual(Array.from(dflt));
    xs.forEach((v, i) => expect(chosen[i]).toBe(v * v * 0.5 + 1));
  });

  test("a [32, 32] transpose on Vector, legacy spelling: the Tensor engine's result", () => {
    const kernel = (engine: string) => `
@nki.jit
def k(a):
  out = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.shared_hbm)
  t = nl.load(a[0:32, 0:32])
  nl.store(out, nisa.nc_transpose(t${engine}))
  return out
`;
    const vector = run(kernel(", engine=nisa.vector_engine"), [x], LEGACY), dflt = run(kernel(""), [x], LEGACY);
    expect(Array.from(vector)).toEqual(Array.from(dflt));
    for (let i = 0; i < 32; i++) for (let j = 0; j < 32; j++) expect(vector[i * 32 + j]).toBe(xs[j * 64 + i]);
  });

  test("dma_copy with dge_mode=hwdge and engine=sync copies", () => {
    const out = run(`
@nki.jit
def k(a):
  out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a, dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.sync)
  nisa.dma_copy(dst=out, src=t)
  return out
`, [x]);
    expect(Array.from(out)).toEqual(xs);
  });
});

describe("the profile places an instruction on the engine= it was given", () => {
  const kernel = (engines: boolean) => `
@nki.jit
def k(a):
  out = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.shared_hbm)
  t = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=a[0:32, 0:32])
  u = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_tensor(dst=u, data1=t, data2=t, op=nl.add${engines ? ", engine=nisa.engine.gpsimd" : ""})
  p = nl.ndarray((32, 32), dtype=nl.float32, buffer=${engines ? "nl.sbuf" : "nl.psum"})
  nisa.nc_transpose(dst=p, data=u${engines ? ", engine=nisa.engine.vector" : ""})
  v = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_copy(dst=v, src=p${engines ? ", engine=nisa.engine.scalar" : ""})
  nisa.dma_copy(dst=out, src=v)
  return out
`;
  const profiled = (engines: boolean) => {
    const { program, kernel: k } = load(kernel(engines), CURRENT);
    return profileKernel(program, k, [T([128, 64])]).profile;
  };

  test("default: tensor_tensor and tensor_copy on Vector, nc_transpose on Tensor", () => {
    expect(profiled(false).counts).toMatchObject({ DMA: 2, Vector: 2, Tensor: 1, GpSimd: 0, Scalar: 0 });
  });

  test("engine=gpsimd, vector, scalar: one instruction on each of those engines", () => {
    expect(profiled(true).counts).toMatchObject({ DMA: 2, Vector: 1, Tensor: 0, GpSimd: 1, Scalar: 1 });
  });
});
