// The NKI host API: nki.load / loadSource / simulate_kernel and the kernel
// object (direct calls, grids by key, keyword arguments), on the seeds'
// kernels against plain TypeScript references, and the errors a caller gets.
import { describe, it, expect, afterAll } from "vitest";
import path from "node:path";
import { nki, tensor, empty, randn, setOutput, ArgumentError, RegistryError, KernelAbortError, GpsimdError, type Tensor } from "gpsimd";
import { giouOf } from "../../ops/giou/reference.js";
import { avgpool2dOf } from "../../ops/avgpool/reference.js";
import { w1Boxes } from "../../ops/giou/boxes.js";
import { REPO } from "../helpers.js";

const SEEDS = path.join(REPO, "examples", "seeds-nki");
const seed = (file: string) => path.join(SEEDS, file);
// The GIOU seed debug_prints every tile it loads (nl.device_print on a CPU machine): keep it out of the test log.
let printed = "";
const restoreOutput = setOutput({ printf: (text) => { printed += text; } });
afterAll(() => { restoreOutput(); return nki.shutdown(); });

const f32 = (t: Tensor) => t.data() as Float32Array;

/** Largest |a - b| / max(1, |b|). */
function maxRelError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  return worst;
}

/** The seed's GIOU on n x b box pairs: preds/targets [n, 4b], out [n, b]. */
function runGiou(n: number, b: number, call: (k: nki.NkiKernel, p: Tensor, t: Tensor, o: Tensor) => unknown) {
  const [pred, target] = w1Boxes(3, n, b);
  const p = tensor(pred, [n, 4 * b]), t = tensor(target, [n, 4 * b]);
  const out = empty([n, b], "float32");
  const giou = nki.load(seed("giou.py"), "giou_kernel");
  const returned = call(giou, p, t, out);
  return { returned, error: maxRelError(f32(out), giouOf(pred, target, n, b)) };
}

describe("nki.load and calls", () => {
  it("runs the GIOU seed through nki.simulate_kernel as the blog calls it, returning None", () => {
    printed = "";
    const { returned, error } = runGiou(128, 128, (k, p, t, o) => nki.simulate_kernel(k, p, t, o));
    expect(returned).toBeNull();
    expect(error).toBeLessThan(1e-5);
    // Its debug_print('preds', preds) of the one [128, 512] tile.
    expect(printed).toMatch(/preds/);
  });

  it("runs the GIOU seed by a direct call (one instance)", () => {
    const { error } = runGiou(256, 128, (k, p, t, o) => k(p, t, o));
    expect(error).toBeLessThan(1e-5);
  });

  it("runs the GIOU seed at the blog's size, 1024 x 256 box pairs", () => {
    const { error } = runGiou(1024, 256, (k, p, t, o) => nki.simulate_kernel(k, p, t, o));
    expect(error).toBeLessThan(1e-5);
  });

  it("runs the tensor add seed on a grid given as [[2, 2]], \"2,2\" or .grid(2, 2), returning its shared_hbm output", () => {
    const a = randn([256, 1024], { seed: 1 }), b = randn([256, 1024], { seed: 2 });
    const add = nki.load(seed("tensor_add.py"), "nki_tensor_add_kernel_");
    const bd = f32(b);
    const want = f32(a).map((v, i) => Math.fround(v + bd[i]));
    // In JavaScript the key [2, 2] is the string "2,2".
    const byArray = (add as unknown as Record<string, nki.NkiLauncher>)[[2, 2] as unknown as string](a, b) as Tensor;
    const byKey = add["2,2"](a, b) as Tensor;
    const byGrid = add.grid(2, 2)(a, b) as Tensor;
    for (const c of [byArray, byKey, byGrid]) {
      expect(c.sizes()).toEqual([256, 1024]);
      expect(Array.from(f32(c))).toEqual(Array.from(want));
    }
  });

  it("lists a file's kernels (decorated functions only) when no name is given", () => {
    const kernels = nki.load(seed("tensor_add.py"));
    expect(Object.keys(kernels)).toEqual(["nki_tensor_add_kernel_"]);
    expect(kernels.nki_tensor_add_kernel_.kernelName).toBe("nki_tensor_add_kernel_");
  });

  it("passes keyword arguments as a last plain object (the AvgPool2D seed's pool_size)", () => {
    const x = tensor(Float32Array.from({ length: 2 * 6 * 6 }, (_, i) => i), [2, 6, 6]);
    const avgpool = nki.load(seed("avgpool.py"), "tensor_avgpool_kernel");
    const byKeyword = avgpool(x, { pool_size: 2 }) as Tensor;
    const positional = avgpool(x, 2) as Tensor;
    const want = avgpool2dOf(f32(x), 2, 6, 6, 2);
    expect(byKeyword.sizes()).toEqual([2, 3, 3]);
    expect(Array.from(f32(byKeyword))).toEqual(Array.from(want));
    expect(Array.from(f32(positional))).toEqual(Array.from(want));
  });

  it("loads in-memory source with loadSource, under the file name given", () => {
    const k = nki.loadSource(SCALE_KERNEL, { file: "scale.py", kernel: "scale" });
    const x = randn([128, 64], { seed: 4 });
    const y = k(x, 3) as Tensor;
    expect(Array.from(f32(y))).toEqual(Array.from(f32(x), (v) => Math.fround(v * 3)));
    expect(k.file).toBe("scale.py");
  });
});

const SCALE_KERNEL = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def scale(x, k):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=t * k)
    return out
`;

const FAILS_IN_ONE_INSTANCE = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def picky(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    assert not (i == 1 and j == 0), "instance [1, 0] refuses"
    t = nl.load(x[i * 128 + nl.arange(128)[:, None], j * 64 + nl.arange(64)[None, :]])
    nl.store(out[i * 128 + nl.arange(128)[:, None], j * 64 + nl.arange(64)[None, :]], value=t)
    return out
`;

describe("errors a caller gets", () => {
  it("names the kernels a file has when the name is wrong", () => {
    const e = catchError(() => nki.load(seed("tensor_add.py"), "nki_tensor_ad"));
    expect(e).toBeInstanceOf(RegistryError);
    expect((e as GpsimdError).code).toBe("E_NKI_NO_KERNEL");
    expect((e as Error).message).toContain("nki_tensor_add_kernel_");
  });

  it("refuses arguments a kernel cannot take, naming the argument", () => {
    const k = nki.loadSource(SCALE_KERNEL, { file: "scale.py", kernel: "scale" });
    const e = catchError(() => k(new Float32Array(4) as unknown as Tensor, 2));
    expect(e).toBeInstanceOf(ArgumentError);
    expect((e as Error).message).toContain("argument 1 is Float32Array");
  });

  it("refuses a grid that is not 1 to 4 positive integers", () => {
    const k = nki.loadSource(SCALE_KERNEL, { kernel: "scale" });
    expect(() => k.grid(0, 2)).toThrow(ArgumentError);
    expect(() => k.grid(1, 1, 1, 1, 1)).toThrow(/1 to 4 positive integers/);
  });

  it("names the kernel, the SPMD instance and the line of a failed assert", () => {
    const k = nki.loadSource(FAILS_IN_ONE_INSTANCE, { file: "picky.py", kernel: "picky", threads: 1 });
    const e = catchError(() => k.grid(2, 2)(randn([256, 128])));
    expect(e).toBeInstanceOf(KernelAbortError);
    const d = (e as GpsimdError).details;
    expect(d.kernel).toBe("picky");
    expect(d.instance).toEqual([1, 0]);
    expect(d.file).toBe("picky.py");
    expect(d.line).toBe(10);
    expect((e as Error).message).toMatch(/ at picky \(picky\.py:10:\d+\)$/);
  });
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error");
}
