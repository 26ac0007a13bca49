// NKI kernels as operators, as the seed wraps nki_tensor_add_kernel_ in a
// torch.autograd.Function: nki.register(lib, op, { forward, grid, backward })
// makes ops.<lib>.<op>, recorded on gpsimd's autograd tape when an input
// requires a gradient. The backward is a function (ctx, grad) => gradients, as
// in autograd.Function, or an NKI kernel (backwardKernel: called with the
// output's gradient, then the forward inputs; it returns one gradient per
// input, or a single tensor for one input).
//
//   nki.register("nki_ops", "tensor_add", { forward: add, grid: (a) => [a.size(0) / 128, a.size(1) / 512], backward: (ctx, dy) => [dy, dy] })
//   nki.register("nki_ops", "tensor_add", { forward: add, grid, backwardKernel: addBackward })
import { Function as AutogradFunction, FunctionContext, type Gradients } from "../host/autograd.js";
import { Tensor } from "../host/device/tensor.js";
import { ArgumentError, RegistryError } from "../host/checks/errors.js";
import { registerForeignOp, unregisterForeignOp, type OpFunction } from "../host/library/ops.js";
import { targetOf, type NkiKernel, type NkiLauncher } from "./host/kernel.js";
import { callArguments, type NkiArg, type NkiValue } from "./host/arguments.js";
import { launchSync, type NkiResult, type KernelTarget } from "./host/launch.js";
import { parseGrid } from "./spmd/grid.js";

type AnyKernel = NkiKernel | NkiLauncher;

/** The ctx a backward function receives: autograd's, with the forward call's inputs. */
export interface BackwardContext extends FunctionContext {
  /** The forward call's arguments (tensors and other values), in order. */
  readonly inputs: readonly NkiValue[];
}

/** What nki.register takes. */
export interface NkiOperatorDefinition {
  /** The forward kernel (a grid launcher such as k[[2, 2]] fixes its grid). */
  forward: AnyKernel;
  /** The forward's grid from the call's arguments: (a, b) => [a.size(0) / 128, a.size(1) / 512]. */
  grid?: (...inputs: NkiValue[]) => readonly number[];
  /** The backward as a function: (ctx, grad) => one gradient per input (null where none), as autograd.Function.backward. */
  backward?: (ctx: BackwardContext, grad: Tensor) => Gradients;
  /** The backward as an NKI kernel, called as kernel(grad, ...inputs); returns a gradient per input (a tuple), or one tensor for one input. */
  backwardKernel?: AnyKernel;
  /** The backward kernel's grid from (grad, ...inputs); defaults to the forward's grid function applied to the inputs. */
  backwardGrid?: (grad: Tensor, ...inputs: NkiValue[]) => readonly number[];
}

/** ops.<lib>.<op> for an NKI kernel. */
export interface NkiOperator {
  (...args: NkiArg[]): Tensor;
  async(...args: NkiArg[]): Promise<Tensor>;
  /** "lib::op" */
  readonly qualifiedName: string;
  /** Removes ops.<lib>.<op>. */
  unregister(): void;
}

/** The target of a kernel with the grid the definition's grid function gives for these arguments. */
function targetWithGrid(kernel: AnyKernel, gridOf: ((...a: never[]) => readonly number[]) | undefined, gridArgs: unknown[], what: string): KernelTarget {
  const target = targetOf(kernel);
  if (!target) throw new ArgumentError("E_NKI_OPERATOR", `${what}: expected a kernel from nki.load or nki.loadSource`);
  if (!gridOf) return target;
  return { ...target, grid: parseGrid((gridOf as (...a: unknown[]) => readonly number[])(...gridArgs), target.name) };
}

/** The single tensor an operator's kernel returned. */
function single(result: NkiResult, qualified: string, which: string): Tensor {
  if (result instanceof Tensor) return result;
  throw new ArgumentError("E_NKI_OPERATOR", `${qualified}: the ${which} kernel returned ${Array.isArray(result) ? `${result.length} tensors` : "None"}; an operator's forward kernel returns one output tensor`, { op: qualified });
}

/** Registers an NKI kernel as ops.<lib>.<op>, differentiable when a backward is given. */
export function register(lib: string, op: string, definition: NkiOperatorDefinition): NkiOperator {
  const qualified = `${lib}::${op}`;
  for (const [what, name] of [["library", lib], ["operator", op]]) {
    if (typeof name !== "string" || !/^[A-Za-z_]\w*$/.test(name)) throw new RegistryError("E_OP_NAME", `nki.register: the ${what} name ${JSON.stringify(name)} is not an identifier`);
  }
  if (!targetOf(definition?.forward)) throw new ArgumentError("E_NKI_OPERATOR", `nki.register(${qualified}): forward must be a kernel from nki.load or nki.loadSource`);
  const { forward, grid, backwardGrid } = definition;
  // A kernel given as backward is taken as backwardKernel.
  const backwardKernel = definition.backwardKernel ?? (targetOf(definition.backward) ? definition.backward as unknown as AnyKernel : undefined);
  const backward = backwardKernel ? undefined : definition.backward;
  if (definition.backwardKernel && definition.backward) throw new ArgumentError("E_NKI_OPERATOR", `nki.register(${qualified}): give backward or backwardKernel, not both`);
  const runForward = (args: NkiValue[]) => single(launchSync(targetWithGrid(forward, grid, args, qualified), callArguments(qualified, args)), qualified, "forward");

  class NkiOperatorFunction extends AutogradFunction {
    static override forward(ctx: FunctionContext, ...inputs: NkiValue[]): Tensor {
      (ctx as { inputs?: unknown }).inputs = inputs;
      return runForward(inputs);
    }

    static override backward(ctx: FunctionContext, grad: Tensor): Gradients {
      const inputs = (ctx as BackwardContext).inputs;
      if (backwardKernel) {
        const gridOf = backwardGrid ?? (grid ? (_g: Tensor, ...rest: NkiValue[]) => grid(...rest) : undefined);
        return launchSync(targetWithGrid(backwardKernel, gridOf, [grad, ...inputs], `${qualified} backward`), callArguments(`${qualified} backward`, [grad, ...inputs]));
      }
      if (!backward) throw new ArgumentError("E_NKI_NO_BACKWARD", `${qualified} has no backward: register it with nki.register(${JSON.stringify(lib)}, ${JSON.stringify(op)}, { forward, backward }) (or backwardKernel)`, { op: qualified });
      return backward(ctx as BackwardContext, grad);
    }
  }
  Object.defineProperty(NkiOperatorFunction, "name", { value: qualified });

  const call = (...args: NkiArg[]): Tensor => {
    const { args: positional, kwargs } = callArguments(qualified, args);
    if (Object.keys(kwargs).length) {
      throw new ArgumentError("E_NKI_OPERATOR", `${qualified}: an operator takes positional arguments only (the autograd tape records them); got keyword arguments ${Object.keys(kwargs).join(", ")}`, { op: qualified });
    }
    return (NkiOperatorFunction.apply as (...a: unknown[]) => Tensor).call(NkiOperatorFunction, ...positional);
  };
  const operator = Object.assign(call, {
    async: async (...args: NkiArg[]) => call(...args),
    qualifiedName: qualified,
    unregister: () => unregisterForeignOp(lib, op),
  });
  registerForeignOp(lib, op, operator as unknown as OpFunction);
  return operator;
}
