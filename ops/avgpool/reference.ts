// 2-d average pooling in plain TypeScript, independent of gpsimd: each output
// is the mean of a p x p window (stride p), summed in float64.

/** Pools a C x H x W tensor (row-major) to C x H/p x W/p; H and W must be multiples of p. */
export function avgpool2dOf(x: Float32Array, c: number, h: number, w: number, p: number): Float32Array {
  if (x.length !== c * h * w) throw new Error(`avgpool2dOf: ${x.length} values for ${c} x ${h} x ${w}`);
  if (!(p >= 1) || h % p !== 0 || w % p !== 0) throw new Error(`avgpool2dOf: H=${h} and W=${w} must be multiples of p=${p}`);
  const oh = h / p, ow = w / p;
  const out = new Float32Array(c * oh * ow);
  for (let ch = 0; ch < c; ch++) {
    for (let oy = 0; oy < oh; oy++) {
      for (let ox = 0; ox < ow; ox++) {
        let sum = 0;
        for (let dy = 0; dy < p; dy++) {
          const row = (ch * h + oy * p + dy) * w + ox * p;
          for (let dx = 0; dx < p; dx++) sum += x[row + dx];
        }
        out[(ch * oh + oy) * ow + ox] = sum / (p * p);
      }
    }
  }
  return out;
}

/** avgpool2d(t_in [C, H, W], pool) as gpsimd check calls it: the values, the pool size, then the tensors' sizes. */
export function avgpool2d(x: Float32Array, pool: number, [[c, h, w]]: number[][]): Float32Array {
  return avgpool2dOf(x, c, h, w, pool);
}
