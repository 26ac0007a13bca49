// Autograd for operators, as torch.autograd.Function: a subclass gives static
// forward(ctx, ...inputs) and backward(ctx, grad), and Sub.apply(...inputs)
// runs forward and, when an input requires a gradient, records the call on
// the tape (a weak map from each output to the call that made it). backward()
// and grad() walk the tape from an output back to the tensors that require
// gradients, calling each backward once with the sum of the gradients that
// reached its output. Gradients made on the way are disposed when used up.
import { Tensor } from "./device/tensor.js";
import { tensor, ones } from "./device/factories.js";
import { kFloat } from "./device/dtype.js";

/** What backward returns: one gradient per forward input (null for inputs without one), or the gradient of a single input. */
export type Gradients = Tensor | null | undefined | readonly (Tensor | null | undefined)[];

/** The ctx of forward and backward: tensors saved for backward, which inputs need a gradient, and anything else forward stores on it. */
export class FunctionContext {
  [key: string]: unknown;
  private saved: Tensor[] | null = [];

  constructor(
    /** needs_input_grad[i]: whether forward input i requires a gradient. */
    readonly needs_input_grad: readonly boolean[],
  ) {}

  /** Keeps tensors for backward (read them back as saved_tensors). */
  save_for_backward(...tensors: Tensor[]): void {
    if (this.saved === null) throw new Error("save_for_backward: this call's saved tensors were already released by a backward pass");
    this.saved = tensors;
  }

  /** The tensors given to save_for_backward, in order. */
  get saved_tensors(): readonly Tensor[] {
    if (this.saved === null) throw new Error("saved_tensors: already released by a backward pass (pass retain_graph: true to backward the same graph twice)");
    return this.saved;
  }

  /** Drops the saved tensors (after backward, unless the graph is retained). */
  release(): void { this.saved = null; }
}

/** A recorded call: the function, its ctx and its inputs. */
interface Node {
  fn: typeof Function;
  ctx: FunctionContext;
  inputs: readonly unknown[];
}

const producers = new WeakMap<Tensor, Node>();
const leaves = new WeakSet<Tensor>();
const leafGrads = new WeakMap<Tensor, Tensor>();
/** Outputs whose recorded call a backward pass already released. */
const released = new WeakSet<Tensor>();
let gradEnabled = true;

/** Inputs of forward after ctx. */
type ForwardInputs<F extends typeof Function> = Parameters<F["forward"]> extends [FunctionContext, ...infer A] ? A : never;

/** Base of differentiable operations; subclass it and override the static forward and backward. */
export class Function {
  /** Computes the output; may call ctx.save_for_backward. Runs with recording off. */
  static forward(_ctx: FunctionContext, ..._inputs: never[]): Tensor {
    throw new Error(`${this.name}.forward is not defined: override static forward(ctx, ...inputs)`);
  }

  /** Given the gradient of the output, returns the gradients of the inputs (in forward's order). */
  static backward(_ctx: FunctionContext, _grad: Tensor): Gradients {
    throw new Error(`${this.name}.backward is not defined: override static backward(ctx, grad)`);
  }

  /** Runs forward on the inputs and records the call when one of them requires a gradient. */
  static apply<F extends typeof Function>(this: F, ...inputs: ForwardInputs<F>): Tensor {
    const needs = inputs.map((x) => x instanceof Tensor && requires_grad(x));
    const ctx = new FunctionContext(needs);
    const record = gradEnabled && needs.some(Boolean);
    const out = no_grad(() => (this.forward as (ctx: FunctionContext, ...inputs: unknown[]) => Tensor)(ctx, ...inputs));
    if (!(out instanceof Tensor)) throw new Error(`${this.name}.forward returned ${typeof out}; it must return a Tensor`);
    if (record) producers.set(out, { fn: this, ctx, inputs });
    return out;
  }
}

/** Marks t as a leaf whose gradient backward() and grad() compute (flag false unmarks it). Returns t. */
export function requires_grad_(t: Tensor, flag = true): Tensor {
  if (flag) {
    if (t.dtype !== kFloat) throw new Error(`requires_grad_: only float32 tensors can require gradients, got ${t.describe()}`);
    leaves.add(t);
  } else {
    leaves.delete(t);
  }
  return t;
}

/** True for a marked leaf or the recorded output of a Function. */
export function requires_grad(t: Tensor): boolean {
  return leaves.has(t) || producers.has(t);
}

/** True for a tensor made by a recorded Function call. */
export function is_recorded(t: Tensor): boolean {
  return producers.has(t);
}

/** Runs fn without recording Function calls (inference). */
export function no_grad<T>(fn: () => T): T {
  const before = gradEnabled;
  gradEnabled = false;
  try {
    return fn();
  } finally {
    gradEnabled = before;
  }
}

/** Whether Function calls are recorded now. */
export function is_grad_enabled(): boolean { return gradEnabled; }

/** Options of backward() and grad(). */
export interface BackwardOptions {
  /** Keep the recorded calls and their saved tensors, to differentiate the same graph again (default false). */
  retain_graph?: boolean;
}

/**
 * Computes the gradient of output with respect to every marked leaf it depends on and adds it to the leaf's
 * gradient (read with gradient(t)). output_grad defaults to 1 for a one-element output.
 */
export function backward(output: Tensor, output_grad?: Tensor, options: BackwardOptions = {}): void {
  const grads = run(output, output_grad, options, (t) => leaves.has(t));
  for (const [leaf, g] of grads) {
    const before = leafGrads.get(leaf);
    if (before) {
      leafGrads.set(leaf, sum(before, g));
      before.dispose();
      g.dispose();
    } else {
      leafGrads.set(leaf, g);
    }
  }
}

/** The gradient backward() accumulated for a leaf, or null. */
export function gradient(t: Tensor): Tensor | null {
  return leafGrads.get(t) ?? null;
}

/** Clears (and disposes) the accumulated gradients of the given leaves. */
export function zero_grad(...ts: Tensor[]): void {
  for (const t of ts) {
    leafGrads.get(t)?.dispose();
    leafGrads.delete(t);
  }
}

/**
 * The gradients of output with respect to inputs (each a marked leaf or a recorded output), as in
 * torch.autograd.grad; nothing is accumulated. An input output does not depend on gets zeros.
 */
export function grad(output: Tensor, inputs: readonly Tensor[], output_grad?: Tensor, options: BackwardOptions = {}): Tensor[] {
  inputs.forEach((t, i) => {
    if (!requires_grad(t)) throw new Error(`grad: input ${i} (${t.describe()}) does not require a gradient: mark it with requires_grad_ or pass an output of a recorded Function`);
  });
  const wanted = new Set(inputs);
  const grads = run(output, output_grad, options, (t) => wanted.has(t));
  return inputs.map((t, i) => {
    const g = grads.get(t);
    if (!g) return tensor(new Float32Array(t.numel()), t.sizes());
    // The same tensor listed twice gets its own copy the second time.
    return inputs.indexOf(t) === i ? g : tensor(g.data() as Float32Array, g.sizes());
  });
}

/** Back-propagates from output; returns the gradients of the tensors `want` selects. Every other gradient made is disposed. */
function run(output: Tensor, output_grad: Tensor | undefined, options: BackwardOptions, want: (t: Tensor) => boolean): Map<Tensor, Tensor> {
  if (released.has(output)) throw new Error(`backward: the graph of ${output.describe()} was released by an earlier backward pass (pass retain_graph: true to differentiate it again)`);
  if (!requires_grad(output)) throw new Error(`backward: ${output.describe()} does not require a gradient (no input of the Function that made it requires one)`);
  let seed = output_grad;
  if (!seed) {
    if (output.numel() !== 1) throw new Error(`backward: ${output.describe()} has ${output.numel()} elements; pass output_grad for an output that is not a single value`);
    seed = ones(output.sizes(), kFloat);
  } else if (seed.sizes().join() !== output.sizes().join()) {
    throw new Error(`backward: output_grad ${seed.describe()} must have the output's sizes ${output.describe()}`);
  }
  const pending = new Map<Tensor, Tensor>([[output, seed]]);
  const result = new Map<Tensor, Tensor>();
  for (const t of topologicalOrder(output)) {
    const g = pending.get(t);
    if (!g) continue;
    pending.delete(t);
    const node = producers.get(t);
    if (node) propagate(node, g, pending);
    if (want(t)) result.set(t, g === output_grad ? tensor(g.data() as Float32Array, g.sizes()) : g);
    else if (g !== output_grad) g.dispose();
    if (node && !options.retain_graph) {
      node.ctx.release();
      producers.delete(t);
      released.add(t);
    }
  }
  return result;
}

/** Calls a node's backward with its output's gradient and adds the results to its inputs' pending gradients. */
function propagate(node: Node, g: Tensor, pending: Map<Tensor, Tensor>): void {
  const raw = no_grad(() => node.fn.backward(node.ctx, g));
  const list = Array.isArray(raw) ? raw : [raw as Tensor | null | undefined];
  const given = new Set<Tensor>();
  node.inputs.forEach((x, i) => {
    if (!(x instanceof Tensor) || !node.ctx.needs_input_grad[i]) return;
    const gi = list[i];
    if (!(gi instanceof Tensor)) throw new Error(`${node.fn.name}.backward gave no gradient for input ${i} (${x.describe()}), which requires one`);
    if (gi.sizes().join() !== x.sizes().join()) throw new Error(`${node.fn.name}.backward: the gradient for input ${i} is ${gi.describe()}, but the input is ${x.describe()}`);
    // A gradient returned twice, or the incoming gradient passed through, is copied so each owner can dispose its own.
    const own = given.has(gi) || gi === g ? tensor(gi.data() as Float32Array, gi.sizes()) : gi;
    given.add(gi);
    const before = pending.get(x);
    if (before) {
      pending.set(x, sum(before, own));
      before.dispose();
      own.dispose();
    } else {
      pending.set(x, own);
    }
  });
}

/** Every tensor output depends on through recorded calls, each after all the tensors computed from it (output first). */
function topologicalOrder(output: Tensor): Tensor[] {
  const seen = new Set<Tensor>();
  const post: Tensor[] = [];
  // Iterative depth-first search: deep graphs must not overflow the stack.
  const stack: [Tensor, number][] = [[output, 0]];
  seen.add(output);
  while (stack.length) {
    const top = stack[stack.length - 1];
    const inputs = producers.get(top[0])?.inputs ?? [];
    let next: Tensor | null = null;
    while (top[1] < inputs.length && next === null) {
      const x = inputs[top[1]++];
      if (x instanceof Tensor && requires_grad(x) && !seen.has(x)) next = x;
    }
    if (next) {
      seen.add(next);
      stack.push([next, 0]);
    } else {
      post.push(top[0]);
      stack.pop();
    }
  }
  return post.reverse();
}

/** a + b element-wise, as a new float32 tensor (gradients reaching the same tensor twice). */
function sum(a: Tensor, b: Tensor): Tensor {
  const x = a.storageView() as Float32Array, y = b.storageView() as Float32Array;
  const out = new Float32Array(x.length);
  for (let i = 0; i < out.length; i++) out[i] = x[i] + y[i];
  return tensor(out, a.sizes());
}
