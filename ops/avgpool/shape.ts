// Shape function of avgpool2d(t_in, pool): C x H x W in, C x H/p x W/p out,
// float32. The kernels pool whole windows only (stride p, no padding).
import { zeros, kFloat, type Tensor } from "gpsimd";

/** avgpool2d(t_in, pool): float32 [C, H/pool, W/pool]; throws unless t_in is 3-d and pool >= 1 divides H and W. */
export function avgpool2d_shape(t_in: Tensor, pool: number | bigint): Tensor {
  if (t_in.dim() !== 3) throw new Error(`avgpool2d: t_in must be C x H x W (3-d), got ${t_in.describe()}`);
  const [c, h, w] = t_in.sizes();
  const p = Number(pool);
  if (!(p >= 1)) throw new Error(`avgpool2d: pool size p=${p} must be at least 1`);
  if (h % p !== 0 || w % p !== 0) {
    throw new Error(`avgpool2d: H=${h} and W=${w} must both be multiples of the pool size p=${p} (windows are p x p with stride p, no padding)`);
  }
  return zeros([c, h / p, w / p], kFloat);
}
