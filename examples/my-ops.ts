// The seed's my_ops.py for TypeScript: custom operators wrapped as autograd
// Functions. Relu's forward calls relu_forward and saves its input; its
// backward calls relu_backward with that input, as in the tutorial. Linear,
// LogSoftmax and NllLoss do the same for the GEMM and output-layer operators,
// so a whole MLP trains through operators.
import { autograd, ops, type Tensor } from "gpsimd";
import { loadOp, type OpLibraryName } from "../ops/index.js";

/** The three ReLU kernels of the seed, by the name the examples use. */
export const RELU_VARIANTS = {
  elementwise: "relu_elementwise",
  tcm: "relu_tcm",
  multicore: "relu_multicore",
} as const satisfies Record<string, OpLibraryName>;

/** A ReLU variant: element-wise accessor, TCM accessor, or TCM on all cores. */
export type ReluVariant = keyof typeof RELU_VARIANTS;

/** A GEMM library: one core, or all cores. */
export type GemmLibrary = "gemm_tcm" | "gemm_multicore";

type Ctx = autograd.FunctionContext;

/** ReLU through one of the shipped ReLU libraries (my_ops.Relu); one class per variant. */
export function reluFunction(variant: ReluVariant): typeof autograd.Function & { apply(input: Tensor): Tensor } {
  return reluClasses[variant] ??= makeRelu(RELU_VARIANTS[variant]);
}

const reluClasses: Partial<Record<ReluVariant, ReturnType<typeof makeRelu>>> = {};
const linearClasses: Partial<Record<GemmLibrary, ReturnType<typeof makeLinear>>> = {};
const matmulClasses: Partial<Record<GemmLibrary, ReturnType<typeof makeMatMul>>> = {};

function makeRelu(lib: (typeof RELU_VARIANTS)[ReluVariant]) {
  return class Relu extends autograd.Function {
    static override forward(ctx: Ctx, input: Tensor): Tensor {
      ctx.save_for_backward(input);
      return ops[lib].relu_forward(input);
    }

    static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
      const [input] = ctx.saved_tensors;
      return [ops[lib].relu_backward(grad, input)];
    }
  };
}

/** A linear layer x · w + bias (w is [in, out]) through a GEMM library; backward makes only the products needed. One class per library. */
export function linearFunction(lib: GemmLibrary): typeof autograd.Function & { apply(x: Tensor, w: Tensor, bias: Tensor): Tensor } {
  return linearClasses[lib] ??= makeLinear(lib);
}

function makeLinear(lib: GemmLibrary) {
  return class Linear extends autograd.Function {
    static override forward(ctx: Ctx, x: Tensor, w: Tensor, bias: Tensor): Tensor {
      ctx.save_for_backward(x, w);
      return ops[lib].linear(x, w, bias);
    }

    static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
      const [x, w] = ctx.saved_tensors;
      const [needX, needW, needBias] = ctx.needs_input_grad;
      return [
        needX ? ops[lib].gemm_nt(grad, w) : null, // dX = dY · Wᵀ
        needW ? ops[lib].gemm_tn(x, grad) : null, // dW = Xᵀ · dY
        needBias ? ops[lib].bias_grad(grad) : null, // db = column sums of dY
      ];
    }
  };
}

/** a · b through a GEMM library; backward is the two other products, gemm_nt and gemm_tn. One class per library. */
export function matmulFunction(lib: GemmLibrary): typeof autograd.Function & { apply(a: Tensor, b: Tensor): Tensor } {
  return matmulClasses[lib] ??= makeMatMul(lib);
}

function makeMatMul(lib: GemmLibrary) {
  return class MatMul extends autograd.Function {
    static override forward(ctx: Ctx, a: Tensor, b: Tensor): Tensor {
      ctx.save_for_backward(a, b);
      return ops[lib].gemm(a, b);
    }

    static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
      const [a, b] = ctx.saved_tensors;
      const [needA, needB] = ctx.needs_input_grad;
      return [needA ? ops[lib].gemm_nt(grad, b) : null, needB ? ops[lib].gemm_tn(a, grad) : null];
    }
  };
}

/** Row-wise log_softmax (nn_tcm); backward needs only the output. */
export class LogSoftmax extends autograd.Function {
  static override forward(ctx: Ctx, x: Tensor): Tensor {
    const out = ops.nn_tcm.log_softmax(x);
    ctx.save_for_backward(out);
    return out;
  }

  static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
    const [out] = ctx.saved_tensors;
    return [ops.nn_tcm.log_softmax_backward(grad, out)];
  }
}

/** Mean negative log-likelihood of int32 class targets (torch's NLLLoss), checked on the host: a kernel cannot report a bad index. */
export class NllLoss extends autograd.Function {
  static override forward(ctx: Ctx, logp: Tensor, target: Tensor): Tensor {
    const classes = logp.size(1);
    const bad = (target.storageView() as Int32Array).findIndex((t) => !(t >= 0 && t < classes));
    if (bad >= 0) throw new Error(`NllLoss: target ${bad} is ${(target.storageView() as Int32Array)[bad]}, not a class in [0, ${classes})`);
    ctx.save_for_backward(logp, target);
    return ops.nn_tcm.nll_loss(logp, target);
  }

  static override backward(ctx: Ctx, grad: Tensor): autograd.Gradients {
    const [logp, target] = ctx.saved_tensors;
    return [ops.nn_tcm.nll_loss_backward(grad, logp, target), null];
  }
}

/** Loads the libraries an MLP with this ReLU variant and GEMM library calls (each once per process). */
export function loadMlpOps(variant: ReluVariant, gemm: GemmLibrary): void {
  for (const name of [RELU_VARIANTS[variant], gemm, "nn_tcm"] as const) {
    if (!(name in ops)) loadOp(name);
  }
}
