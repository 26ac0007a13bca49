// autograd: the Function API and its tape, on small host-side Functions with
// hand-derived gradients, then a gradient check of every differentiable
// operator shipped (the three ReLUs, the GEMM product and linear layer on one
// core and on all cores, log_softmax, NLL loss): autograd's gradients against
// central differences of sum(R * f(inputs)) for a fixed random R, summed in
// float64 from the operators' float32 outputs.
import { describe, it, expect, afterAll } from "vitest";
import { autograd, tensor, randn, shutdown, type Tensor } from "gpsimd";
import { loadOp } from "../ops/index.js";
import { reluFunction, linearFunction, matmulFunction, LogSoftmax, NllLoss, RELU_VARIANTS, type ReluVariant } from "../examples/my-ops.js";

const libraries = (["relu_elementwise", "relu_tcm", "relu_multicore", "gemm_tcm", "gemm_multicore", "nn_tcm"] as const).map((name) => loadOp(name));
afterAll(async () => {
  for (const lib of libraries) lib.unload();
  await shutdown();
});

const values = (t: Tensor) => Array.from(t.data() as Float32Array);
const map = (t: Tensor, f: (v: number, i: number) => number) => tensor((t.data() as Float32Array).map(f), t.sizes());
type Ctx = autograd.FunctionContext;

/** x * k for a number k (not differentiable). */
class Scale extends autograd.Function {
  static override forward(ctx: Ctx, x: Tensor, k: number): Tensor {
    ctx.k = k;
    return map(x, (v) => v * k);
  }
  static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
    return [map(grad, (g) => g * (ctx.k as number)), null];
  }
}

/** a * b element-wise; records which gradients backward was asked for. */
class Mul extends autograd.Function {
  static asked: boolean[][] = [];
  static override forward(ctx: Ctx, a: Tensor, b: Tensor): Tensor {
    ctx.save_for_backward(a, b);
    const bv = b.data() as Float32Array;
    return map(a, (v, i) => v * bv[i]);
  }
  static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
    Mul.asked.push([...ctx.needs_input_grad]);
    const [a, b] = ctx.saved_tensors;
    const av = a.data() as Float32Array, bv = b.data() as Float32Array;
    return [ctx.needs_input_grad[0] ? map(grad, (g, i) => g * bv[i]) : null, ctx.needs_input_grad[1] ? map(grad, (g, i) => g * av[i]) : null];
  }
}

/** Sum of all elements, as a one-element tensor. */
class Sum extends autograd.Function {
  static override forward(ctx: Ctx, x: Tensor): Tensor {
    ctx.sizes = x.sizes();
    return tensor([values(x).reduce((s, v) => s + v, 0)]);
  }
  static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
    const g = values(grad)[0];
    return tensor(new Float32Array((ctx.sizes as number[]).reduce((a, b) => a * b, 1)).fill(g), ctx.sizes as number[]);
  }
}

describe("the Function API and the tape", () => {
  it("chains backward calls and adds the gradients of a tensor used twice", () => {
    const x = autograd.requires_grad_(tensor([1, -2, 3]));
    // L = sum(3x * x) = 3 sum x^2: x reaches Mul once directly and once through Scale.
    const [dx] = autograd.grad(Sum.apply(Mul.apply(Scale.apply(x, 3), x)), [x]);
    expect(values(dx)).toEqual([6, -12, 18]);
    // The same tensor as both inputs of one call.
    const y = autograd.requires_grad_(tensor([0.5, 4]));
    expect(values(autograd.grad(Sum.apply(Mul.apply(y, y)), [y])[0])).toEqual([1, 8]);
  });

  it("tells backward which inputs need a gradient and records nothing when none does", () => {
    Mul.asked = [];
    const a = autograd.requires_grad_(tensor([1, 2])), b = tensor([5, 7]);
    const [da] = autograd.grad(Sum.apply(Mul.apply(a, b)), [a]);
    expect(values(da)).toEqual([5, 7]);
    expect(Mul.asked).toEqual([[true, false]]);
    const plain = Mul.apply(tensor([1]), tensor([2]));
    expect(autograd.requires_grad(plain)).toBe(false);
    expect(() => autograd.backward(plain)).toThrow(/does not require a gradient/);
  });

  it("records nothing inside no_grad", () => {
    const x = autograd.requires_grad_(tensor([1, 2]));
    const y = autograd.no_grad(() => Scale.apply(x, 2));
    expect(autograd.is_recorded(y)).toBe(false);
    expect(autograd.is_grad_enabled()).toBe(true);
  });

  it("backward() adds to each leaf's gradient until zero_grad", () => {
    const w = autograd.requires_grad_(tensor([1, 2, 3]));
    autograd.backward(Sum.apply(Scale.apply(w, 2)));
    autograd.backward(Sum.apply(Scale.apply(w, 5)));
    expect(values(autograd.gradient(w)!)).toEqual([7, 7, 7]);
    autograd.zero_grad(w);
    expect(autograd.gradient(w)).toBeNull();
  });

  it("releases saved tensors after backward unless the graph is retained", () => {
    const a = autograd.requires_grad_(tensor([3])), b = autograd.requires_grad_(tensor([4]));
    const kept = Mul.apply(a, b);
    expect(values(autograd.grad(kept, [a], undefined, { retain_graph: true })[0])).toEqual([4]);
    expect(values(autograd.grad(kept, [b])[0])).toEqual([3]);
    expect(() => autograd.grad(kept, [a])).toThrow(/released by an earlier backward pass/);
  });

  it("explains misuse: an input that needs no gradient, a non-scalar output without output_grad, a bad gradient", () => {
    const x = autograd.requires_grad_(tensor([1, 2]));
    expect(() => autograd.grad(Sum.apply(x), [tensor([1, 2])])).toThrow(/input 0 \(float32\[2\]\) does not require a gradient/);
    expect(() => autograd.grad(Scale.apply(x, 2), [x])).toThrow(/has 2 elements; pass output_grad/);
    class Wrong extends autograd.Function {
      static override forward(_ctx: Ctx, v: Tensor): Tensor { return map(v, (e) => e); }
      static override backward(): autograd.Gradients { return [tensor([1, 2, 3])]; }
    }
    expect(() => autograd.grad(Sum.apply(Wrong.apply(x)), [x])).toThrow(/Wrong.backward: the gradient for input 0 is float32\[3\], but the input is float32\[2\]/);
  });
});

/** Largest |analytic - finite difference| / (abs + rel * |finite difference|) over the checked elements: at most 1 passes. */
function gradientCheck(f: (...xs: Tensor[]) => Tensor, inputs: Tensor[], differentiable: boolean[], h: number, tol: { abs: number; rel: number }, seed = 7): number {
  inputs.forEach((x, i) => differentiable[i] && autograd.requires_grad_(x));
  const y = f(...inputs);
  const r = randn(y.sizes(), { seed });
  const weights = r.data() as Float32Array;
  const chosen = inputs.filter((_, i) => differentiable[i]);
  const analytic = autograd.grad(y, chosen, r).map((g) => g.data() as Float32Array);
  const objective = () => {
    const out = autograd.no_grad(() => f(...inputs));
    const v = out.data() as Float32Array;
    out.dispose();
    let s = 0;
    for (let i = 0; i < v.length; i++) s += weights[i] * v[i];
    return s;
  };
  let worst = 0;
  chosen.forEach((x, c) => {
    const v = x.storageView() as Float32Array;
    for (let j = 0; j < v.length; j++) {
      const original = v[j];
      v[j] = original + h;
      const up = objective(), upAt = v[j];
      v[j] = original - h;
      const down = objective(), downAt = v[j];
      v[j] = original;
      const fd = (up - down) / (upAt - downAt);
      worst = Math.max(worst, Math.abs(analytic[c][j] - fd) / (tol.abs + tol.rel * Math.abs(fd)));
    }
  });
  return worst;
}

/** randn pushed at least 0.1 away from 0, so a step of h = 0.01 never crosses ReLU's kink. */
const awayFromZero = (sizes: number[], seed: number) => map(randn(sizes, { seed }), (v) => v + (v >= 0 ? 0.1 : -0.1));

describe("gradients of the shipped operators equal finite differences", () => {
  it.each(Object.keys(RELU_VARIANTS) as ReluVariant[])("ReLU (%s): relu_backward against relu_forward", (variant) => {
    const Relu = reluFunction(variant);
    expect(gradientCheck((x) => Relu.apply(x), [awayFromZero([3, 5], 1)], [true], 1e-2, { abs: 1e-4, rel: 1e-3 })).toBeLessThanOrEqual(1);
  });

  it.each(["gemm_tcm", "gemm_multicore"] as const)("a · b (%s): gemm_nt and gemm_tn against gemm", (lib) => {
    const MatMul = matmulFunction(lib);
    // A product is linear in each operand, so a large step has no truncation error.
    expect(gradientCheck((a, b) => MatMul.apply(a, b), [randn([3, 4], { seed: 2 }), randn([4, 5], { seed: 3 })], [true, true], 0.25, { abs: 1e-4, rel: 1e-3 })).toBeLessThanOrEqual(1);
  });

  it.each(["gemm_tcm", "gemm_multicore"] as const)("linear layer (%s): input, weight and bias gradients", (lib) => {
    const Linear = linearFunction(lib);
    const inputs = [randn([3, 4], { seed: 4 }), randn([4, 5], { seed: 5 }), randn([5], { seed: 6 })];
    expect(gradientCheck((x, w, b) => Linear.apply(x, w, b), inputs, [true, true, true], 0.25, { abs: 1e-4, rel: 1e-3 })).toBeLessThanOrEqual(1);
  });

  it("log_softmax: log_softmax_backward against log_softmax", () => {
    // Smooth: central differences are off by about h^2/6 * f''' (~2e-5 here).
    expect(gradientCheck((x) => LogSoftmax.apply(x), [randn([3, 6], { seed: 8 })], [true], 1e-2, { abs: 5e-4, rel: 2e-3 })).toBeLessThanOrEqual(1);
  });

  it("NLL loss: nll_loss_backward against nll_loss (targets are not differentiable)", () => {
    const target = tensor(new Int32Array([4, 0, 2, 4]));
    expect(gradientCheck((logp, t) => NllLoss.apply(logp, t), [randn([4, 5], { seed: 9 }), target], [true, false], 0.25, { abs: 1e-5, rel: 1e-3 })).toBeLessThanOrEqual(1);
  });

  it("NllLoss rejects a target outside [0, classes)", () => {
    expect(() => NllLoss.apply(randn([2, 3]), tensor(new Int32Array([1, 3])))).toThrow(/target 1 is 3, not a class in \[0, 3\)/);
  });
});
