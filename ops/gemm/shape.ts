// Shape functions of the GEMM library: float32 2-d operands whose inner
// dimensions agree (kernels do not broadcast or check), float32 2-d results.
import { zeros, kFloat, type Tensor } from "gpsimd";

function matrix(op: string, name: string, t: Tensor): void {
  if (t.dim() !== 2 || t.dtype !== kFloat) throw new Error(`${op}: ${name} must be a float32 matrix, got ${t.describe()}`);
}

function agree(op: string, what: string, a: Tensor, b: Tensor, da: number, db: number): void {
  if (a.size(da) !== b.size(db)) throw new Error(`${op}: ${what} differ: ${a.describe()} and ${b.describe()}`);
}

/** gemm(a [M, K], b [K, N]) -> float32 [M, N]. */
export function gemm_shape(a: Tensor, b: Tensor): Tensor {
  matrix("gemm", "a", a); matrix("gemm", "b", b);
  agree("gemm", "a's columns and b's rows", a, b, 1, 0);
  return zeros([a.size(0), b.size(1)], kFloat);
}

/** gemm_nt(a [M, K], b [N, K]) = a · bᵀ -> float32 [M, N]. */
export function gemm_nt_shape(a: Tensor, b: Tensor): Tensor {
  matrix("gemm_nt", "a", a); matrix("gemm_nt", "b", b);
  agree("gemm_nt", "a's and b's columns", a, b, 1, 1);
  return zeros([a.size(0), b.size(0)], kFloat);
}

/** gemm_tn(a [K, M], b [K, N]) = aᵀ · b -> float32 [M, N]. */
export function gemm_tn_shape(a: Tensor, b: Tensor): Tensor {
  matrix("gemm_tn", "a", a); matrix("gemm_tn", "b", b);
  agree("gemm_tn", "a's and b's rows", a, b, 0, 0);
  return zeros([a.size(1), b.size(1)], kFloat);
}

/** linear(x [M, K], w [K, N], bias [N]) = x · w + bias -> float32 [M, N]. */
export function linear_shape(x: Tensor, w: Tensor, bias: Tensor): Tensor {
  matrix("linear", "x", x); matrix("linear", "w", w);
  agree("linear", "x's columns and w's rows", x, w, 1, 0);
  if (bias.dim() !== 1 || bias.dtype !== kFloat || bias.size(0) !== w.size(1)) {
    throw new Error(`linear: bias must be float32 [${w.size(1)}] (w's columns), got ${bias.describe()}`);
  }
  return zeros([x.size(0), w.size(1)], kFloat);
}

/** bias_grad(grad [M, N]) = column sums -> float32 [N]. */
export function bias_grad_shape(grad: Tensor): Tensor {
  matrix("bias_grad", "grad", grad);
  return zeros([grad.size(1)], kFloat);
}

/** Columns per packed weight panel (NC in the kernels' tiles.ts). */
export const PANEL = 48;

/** pack_weights(w [K, N]) -> float32 [ceil(N / 48), K, 48]. */
export function pack_weights_shape(w: Tensor): Tensor {
  matrix("pack_weights", "w", w);
  return zeros([Math.ceil(w.size(1) / PANEL), w.size(0), PANEL], kFloat);
}

/** linear_packed(xt [K, M], wp [ceil(N/48), K, 48], bias [N], transposed_out 0 or 1) -> float32 [N, M] (1) or [M, N] (0). */
export function linear_packed_shape(xt: Tensor, wp: Tensor, bias: Tensor, transposed_out: number | bigint): Tensor {
  matrix("linear_packed", "xt", xt);
  const panels = Math.ceil(bias.size(0) / PANEL);
  if (bias.dim() !== 1 || bias.dtype !== kFloat) throw new Error(`linear_packed: bias must be float32 [N], got ${bias.describe()}`);
  if (wp.dim() !== 3 || wp.dtype !== kFloat || wp.size(0) !== panels || wp.size(1) !== xt.size(0) || wp.size(2) !== PANEL) {
    throw new Error(`linear_packed: wp must be pack_weights of a [${xt.size(0)}, ${bias.size(0)}] weight, float32 [${panels}, ${xt.size(0)}, ${PANEL}], got ${wp.describe()}`);
  }
  if (transposed_out !== 0 && transposed_out !== 1 && transposed_out !== 0n && transposed_out !== 1n) throw new Error(`linear_packed: transposed_out must be 0 or 1, got ${transposed_out}`);
  const [m, n] = [xt.size(1), bias.size(0)];
  return zeros(Number(transposed_out) ? [n, m] : [m, n], kFloat);
}
