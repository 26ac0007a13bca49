// The host-side autograd Functions the NKI examples compose with an NKI
// operator: element-wise product, difference and the sum of all elements
// (plain TypeScript over float32 tensors).
import { autograd, tensor, type Tensor } from "gpsimd";

const f32 = (t: Tensor) => t.data() as Float32Array;
const zip = (a: Tensor, b: Tensor, f: (x: number, y: number) => number) => { const bv = f32(b); return tensor(f32(a).map((x, i) => f(x, bv[i])), a.sizes()); };

/** a * b element-wise. */
export class Mul extends autograd.Function {
  static override forward(ctx: autograd.FunctionContext, a: Tensor, b: Tensor): Tensor {
    ctx.save_for_backward(a, b);
    return zip(a, b, (x, y) => x * y);
  }
  static override backward(ctx: autograd.FunctionContext, grad: Tensor): autograd.Gradients {
    const [a, b] = ctx.saved_tensors;
    return [zip(grad, b, (g, y) => g * y), zip(grad, a, (g, x) => g * x)];
  }
}

/** a - b element-wise. */
export class Sub extends autograd.Function {
  static override forward(_ctx: autograd.FunctionContext, a: Tensor, b: Tensor): Tensor {
    return zip(a, b, (x, y) => x - y);
  }
  static override backward(_ctx: autograd.FunctionContext, grad: Tensor): autograd.Gradients {
    return [grad, tensor(f32(grad).map((g) => -g), grad.sizes())];
  }
}

/** The sum of all elements, as a one-element tensor. */
export class Sum extends autograd.Function {
  static override forward(ctx: autograd.FunctionContext, x: Tensor): Tensor {
    ctx.sizes = x.sizes();
    return tensor([f32(x).reduce((s, v) => s + v, 0)]);
  }
  static override backward(ctx: autograd.FunctionContext, grad: Tensor): autograd.Gradients {
    const sizes = ctx.sizes as number[];
    return tensor(new Float32Array(sizes.reduce((p, q) => p * q, 1)).fill(f32(grad)[0]), sizes);
  }
}
