// The MLP's output layer on one core through TCM: log_softmax over each row
// of [M, C] logits, the mean negative log-likelihood of integer targets, and
// both backward passes. Rows are handled in pieces of up to 1024 floats, so
// any C fits the pool; the MLP's C is 10, where one launch costs more than
// the arithmetic and a single core is the right size.
import { Tensor, get_dst_tensor, tcm_malloc, tcm_free } from "gpsimd";

const PIECE: i64 = 1024;

/** out[i, j] = x[i, j] - max_i - log(sum_j exp(x[i, j] - max_i)). */
export function log_softmax(x: Tensor): Tensor {
  const out = get_dst_tensor();
  const M = x.size(0), C = x.size(1);
  const buf = tcm_malloc(<usize>PIECE << 2);
  const src = x.tcm_accessor(), dst = out.tcm_accessor();
  for (let i: i64 = 0; i < M; i++) {
    let top = -Infinity;
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      src.tensor_to_tcm<f32>(buf, i * C + j, w);
      for (let k: i64 = 0; k < w; k++) top = max(top, <f64>load<f32>(buf + (<usize>k << 2)));
    }
    let total: f64 = 0;
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      src.tensor_to_tcm<f32>(buf, i * C + j, w);
      for (let k: i64 = 0; k < w; k++) total += Math.exp(<f64>load<f32>(buf + (<usize>k << 2)) - top);
    }
    const shift = top + Math.log(total);
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      src.tensor_to_tcm<f32>(buf, i * C + j, w);
      for (let k: i64 = 0; k < w; k++) store<f32>(buf + (<usize>k << 2), <f32>(<f64>load<f32>(buf + (<usize>k << 2)) - shift));
      dst.tcm_to_tensor<f32>(buf, i * C + j, w);
    }
  }
  tcm_free(buf);
  return out;
}

/** dx[i, j] = grad[i, j] - exp(out[i, j]) * sum_j grad[i, j], out being log_softmax's result. */
export function log_softmax_backward(grad: Tensor, out: Tensor): Tensor {
  const dx = get_dst_tensor();
  const M = out.size(0), C = out.size(1);
  const g = tcm_malloc(<usize>PIECE << 2), y = tcm_malloc(<usize>PIECE << 2);
  const ga = grad.tcm_accessor(), ya = out.tcm_accessor(), dst = dx.tcm_accessor();
  for (let i: i64 = 0; i < M; i++) {
    let total: f64 = 0;
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      ga.tensor_to_tcm<f32>(g, i * C + j, w);
      for (let k: i64 = 0; k < w; k++) total += <f64>load<f32>(g + (<usize>k << 2));
    }
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      ga.tensor_to_tcm<f32>(g, i * C + j, w);
      ya.tensor_to_tcm<f32>(y, i * C + j, w);
      for (let k: i64 = 0; k < w; k++) {
        const o = <usize>k << 2;
        store<f32>(g + o, <f32>(<f64>load<f32>(g + o) - Math.exp(<f64>load<f32>(y + o)) * total));
      }
      dst.tcm_to_tensor<f32>(g, i * C + j, w);
    }
  }
  tcm_free(y);
  tcm_free(g);
  return dx;
}

/** [1]: -(1/M) sum_i logp[i, target[i]]; targets are int32 class indices in [0, C) (the caller checks them). */
export function nll_loss(logp: Tensor, target: Tensor): Tensor {
  const out = get_dst_tensor();
  const M = logp.size(0), C = logp.size(1);
  const t = tcm_malloc(4), v = tcm_malloc(4);
  const ta = target.tcm_accessor(), la = logp.tcm_accessor();
  let total: f64 = 0;
  for (let i: i64 = 0; i < M; i++) {
    ta.tensor_to_tcm<i32>(t, i, 1);
    la.tensor_to_tcm<f32>(v, i * C + <i64>load<i32>(t), 1);
    total += <f64>load<f32>(v);
  }
  store<f32>(v, M > 0 ? <f32>(-total / <f64>M) : <f32>NaN);
  out.tcm_accessor().tcm_to_tensor<f32>(v, 0, 1);
  tcm_free(v);
  tcm_free(t);
  return out;
}

/** d logp: -grad[0] / M at [i, target[i]], zero elsewhere. */
export function nll_loss_backward(grad: Tensor, logp: Tensor, target: Tensor): Tensor {
  const dx = get_dst_tensor();
  const M = logp.size(0), C = logp.size(1);
  const row = tcm_malloc(<usize>PIECE << 2), t = tcm_malloc(4);
  grad.tcm_accessor().tensor_to_tcm<f32>(t, 0, 1);
  const value = <f32>(-<f64>load<f32>(t) / <f64>M);
  const ta = target.tcm_accessor(), dst = dx.tcm_accessor();
  for (let i: i64 = 0; i < M; i++) {
    ta.tensor_to_tcm<i32>(t, i, 1);
    const hot = <i64>load<i32>(t);
    for (let j: i64 = 0; j < C; j += PIECE) {
      const w = min(C - j, PIECE);
      memory.fill(row, 0, <usize>w << 2);
      if (hot >= j && hot < j + w) store<f32>(row + (<usize>(hot - j) << 2), value);
      dst.tcm_to_tensor<f32>(row, i * C + j, w);
    }
  }
  tcm_free(t);
  tcm_free(row);
  return dx;
}
