// Shape functions of the output-layer operators: float32 [M, C] scores,
// int32 [M] class targets.
import { zeros, kFloat, kInt, type Tensor } from "gpsimd";

function scores(op: string, name: string, t: Tensor): void {
  if (t.dim() !== 2 || t.dtype !== kFloat) throw new Error(`${op}: ${name} must be float32 [M, C], got ${t.describe()}`);
}

function sameSizes(op: string, a: Tensor, b: Tensor): void {
  if (a.sizes().join() !== b.sizes().join()) throw new Error(`${op}: ${a.describe()} and ${b.describe()} must have the same sizes`);
}

function targets(op: string, logp: Tensor, target: Tensor): void {
  if (target.dim() !== 1 || target.dtype !== kInt || target.size(0) !== logp.size(0)) {
    throw new Error(`${op}: target must be int32 [${logp.size(0)}] (one class per row of ${logp.describe()}), got ${target.describe()}`);
  }
}

/** log_softmax(x [M, C]) -> float32 [M, C]. */
export function log_softmax_shape(x: Tensor): Tensor {
  scores("log_softmax", "x", x);
  return zeros(x.sizes(), kFloat);
}

/** log_softmax_backward(grad [M, C], out [M, C]) -> float32 [M, C]. */
export function log_softmax_backward_shape(grad: Tensor, out: Tensor): Tensor {
  scores("log_softmax_backward", "out", out);
  sameSizes("log_softmax_backward", grad, out);
  return zeros(out.sizes(), kFloat);
}

/** nll_loss(logp [M, C], target int32 [M]) -> float32 [1] (the mean). */
export function nll_loss_shape(logp: Tensor, target: Tensor): Tensor {
  scores("nll_loss", "logp", logp);
  targets("nll_loss", logp, target);
  return zeros([1], kFloat);
}

/** nll_loss_backward(grad [1], logp [M, C], target int32 [M]) -> float32 [M, C]. */
export function nll_loss_backward_shape(grad: Tensor, logp: Tensor, target: Tensor): Tensor {
  scores("nll_loss_backward", "logp", logp);
  targets("nll_loss_backward", logp, target);
  if (grad.numel() !== 1 || grad.dtype !== kFloat) throw new Error(`nll_loss_backward: grad must be one float32 value, got ${grad.describe()}`);
  return zeros(logp.sizes(), kFloat);
}
