// NKI kernels as differentiable operators: the seed's tensor add registered
// as ops.<lib>.<op> with a backward (a function returning dy, dy as the
// seed's NkiAddFunc does, or an NKI backward kernel), trained through
// gpsimd's autograd on loss = sum(a * b * (a + b)), whose gradients are
// derived by hand: dL/da = b (a + b) + a b, dL/db = a (a + b) + a b.
import { describe, it, expect, afterAll } from "vitest";
import path from "node:path";
import { nki, ops, autograd, tensor, randn, ArgumentError, type Tensor } from "gpsimd";
import { REPO } from "../helpers.js";

const ADD = path.join(REPO, "examples", "seeds-nki", "tensor_add.py");
afterAll(() => nki.shutdown());

const f32 = (t: Tensor) => t.data() as Float32Array;
const zip = (a: Tensor, b: Tensor, f: (x: number, y: number) => number) => { const bv = f32(b); return tensor(f32(a).map((x, i) => f(x, bv[i])), a.sizes()); };

/** a * b element-wise, on the host. */
class Mul extends autograd.Function {
  static override forward(ctx: autograd.FunctionContext, a: Tensor, b: Tensor): Tensor {
    ctx.save_for_backward(a, b);
    return zip(a, b, (x, y) => x * y);
  }
  static override backward(ctx: autograd.FunctionContext, grad: Tensor): autograd.Gradients {
    const [a, b] = ctx.saved_tensors;
    return [zip(grad, b, (g, y) => g * y), zip(grad, a, (g, x) => g * x)];
  }
}

/** Sum of all elements, as a one-element tensor. */
class Sum extends autograd.Function {
  static override forward(ctx: autograd.FunctionContext, x: Tensor): Tensor {
    ctx.sizes = x.sizes();
    return tensor([f32(x).reduce((s, v) => s + v, 0)]);
  }
  static override backward(ctx: autograd.FunctionContext, grad: Tensor): autograd.Gradients {
    const sizes = ctx.sizes as number[];
    return tensor(new Float32Array(sizes.reduce((p, q) => p * q, 1)).fill(f32(grad)[0]), sizes);
  }
}

/** The backward of a + b as an NKI kernel: both gradients are dy, copied tile by tile. */
const ADD_BACKWARD = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def add_backward(dy, a, b):
    da = nl.ndarray(dy.shape, dtype=dy.dtype, buffer=nl.shared_hbm)
    db = nl.ndarray(dy.shape, dtype=dy.dtype, buffer=nl.shared_hbm)
    ix = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    iy = nl.program_id(1) * 512 + nl.arange(512)[None, :]
    g = nl.load(dy[ix, iy])
    nl.store(da[ix, iy], value=g)
    nl.store(db[ix, iy], value=g)
    return da, db
`;

/** Hand-derived gradients of sum(a * b * (a + b)), in float64. */
function expectedGradients(a: Float32Array, b: Float32Array): [number[], number[]] {
  const da = Array.from(a, (x, i) => b[i] * (x + b[i]) + x * b[i]);
  const db = Array.from(a, (x, i) => x * (x + b[i]) + x * b[i]);
  return [da, db];
}

function expectClose(got: Float32Array, want: number[]): void {
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i])));
  expect(worst).toBeLessThan(1e-5);
}

const grid = (a: unknown) => [(a as Tensor).size(0) / 128, (a as Tensor).size(1) / 512];

describe("an NKI kernel as an operator", () => {
  it("trains through autograd with the seed's backward (dy, dy)", () => {
    const add = nki.load(ADD, "nki_tensor_add_kernel_");
    const op = nki.register("nki_ops", "tensor_add", { forward: add, grid, backward: (_ctx, dy) => [dy, dy] });
    try {
      const a = autograd.requires_grad_(randn([256, 1024], { seed: 21 })), b = autograd.requires_grad_(randn([256, 1024], { seed: 22 }));
      const c = ops.nki_ops.tensor_add(a, b);
      expect(autograd.is_recorded(c)).toBe(true);
      const loss = Sum.apply(Mul.apply(Mul.apply(a, b), c));
      autograd.backward(loss);
      const [da, db] = expectedGradients(f32(a), f32(b));
      expectClose(f32(autograd.gradient(a)!), da);
      expectClose(f32(autograd.gradient(b)!), db);
    } finally {
      op.unregister();
    }
  });

  it("runs an NKI backward kernel over the forward's grid", () => {
    const add = nki.load(ADD, "nki_tensor_add_kernel_");
    const backward = nki.loadSource(ADD_BACKWARD, { file: "add_backward.py", kernel: "add_backward" });
    const op = nki.register("nki_ops2", "tensor_add", { forward: add, grid, backwardKernel: backward });
    try {
      const a = autograd.requires_grad_(randn([128, 1024], { seed: 23 })), b = autograd.requires_grad_(randn([128, 1024], { seed: 24 }));
      const loss = Sum.apply(Mul.apply(Mul.apply(a, b), op(a, b)));
      const [ga, gb] = autograd.grad(loss, [a, b]);
      const [da, db] = expectedGradients(f32(a), f32(b));
      expectClose(f32(ga), da);
      expectClose(f32(gb), db);
    } finally {
      op.unregister();
    }
  });

  it("records nothing without an input that requires a gradient, and refuses keyword arguments", () => {
    const add = nki.load(ADD, "nki_tensor_add_kernel_");
    const op = nki.register("nki_ops3", "tensor_add", { forward: add, grid });
    try {
      const a = randn([128, 512], { seed: 25 }), b = randn([128, 512], { seed: 26 });
      const c = op(a, b);
      expect(autograd.is_recorded(c)).toBe(false);
      const bv = f32(b);
      expect(Array.from(f32(c))).toEqual(Array.from(f32(a), (x, i) => Math.fround(x + bv[i])));
      expect(() => op(a, b, { x: 1 })).toThrow(ArgumentError);
    } finally {
      op.unregister();
    }
    expect(() => ops.nki_ops3.tensor_add).toThrow(/no library nki_ops3/);
  });
});
