// nc_matmul: out[M, N] (slot 0) = stationary[K, M]^T (slot 1) @ moving[K, N] (slot 2), each operand's
// two dimensions in shape/stride positions 4 and 5.
//
// Arithmetic, as a PE array's: the inputs are converted to float32 (bf16/f16 exactly, integers and f64
// rounded), each product is rounded to float32 and added to a float32 sum in K order, without fused
// multiply-add: sum = f32(sum + f32(s[k, m] * v[k, n])) for k = 0..K-1 from sum = 0. With accumulate,
// the output becomes f32(out + sum) (PSUM accumulation), otherwise sum; then it is stored as out's dtype.
//
// Speed: blocks of the operands are packed as float32 (M padded to 4, N to 8, padding zeros) into the
// scratch region, and a 4 x 8 block of the output is kept in eight f32x4 registers over K.
import { MATMUL, F_ADDR, F_DTYPE, shapeAt, slot, strideAt } from "./layout";
import { elementBytes, readF64, writeF64 } from "./dtypes";

const MB: i32 = 128;
const NB: i32 = 512;
const KB: i32 = 256;
const ST_BYTES: usize = <usize>(KB * MB * 4);
const MV_BYTES: usize = <usize>(KB * NB * 4);

/** Packs rows k0..k0+kn, columns c0..c0+cn of a [K, C] operand into dst as float32 rows of cp values (zero padded). */
function pack(dst: usize, sl: usize, k0: i32, kn: i32, c0: i32, cn: i32, cp: i32): void {
  const dtype = load<i32>(sl + F_DTYPE);
  const size = elementBytes(dtype);
  const sk = <isize>strideAt(sl, 4) * size, sc = <isize>strideAt(sl, 5) * size;
  const base = <isize>load<i32>(sl + F_ADDR) + <isize>k0 * sk + <isize>c0 * sc;
  for (let k = 0; k < kn; k++) {
    const row = dst + <usize>(k * cp) * 4;
    let p = base + <isize>k * sk;
    if (dtype == 0 && sc == 4) {
      memory.copy(row, <usize>p, <usize>cn * 4);
    } else {
      for (let c = 0; c < cn; c++) { store<f32>(row + (<usize>c << 2), <f32>readF64(<usize>p, dtype)); p += sc; }
    }
    if (cp > cn) memory.fill(row + (<usize>cn << 2), 0, <usize>(cp - cn) * 4);
  }
}

/** acc[mp x np] += st[kn x mp]^T @ mv[kn x np], the products and sums rounded to float32 one by one in K order. */
function kernel(acc: usize, st: usize, mv: usize, kn: i32, mp: i32, np: i32): void {
  const stRow = <usize>mp * 4, mvRow = <usize>np * 4, accRow = <usize>np * 4;
  for (let m = 0; m < mp; m += 4) {
    for (let n = 0; n < np; n += 8) {
      const a0 = acc + <usize>m * accRow + (<usize>n << 2);
      const a1 = a0 + accRow, a2 = a1 + accRow, a3 = a2 + accRow;
      let c00 = v128.load(a0), c01 = v128.load(a0, 16);
      let c10 = v128.load(a1), c11 = v128.load(a1, 16);
      let c20 = v128.load(a2), c21 = v128.load(a2, 16);
      let c30 = v128.load(a3), c31 = v128.load(a3, 16);
      let sp = st + (<usize>m << 2);
      let vp = mv + (<usize>n << 2);
      for (let k = 0; k < kn; k++) {
        const s = v128.load(sp);
        const v0 = v128.load(vp), v1 = v128.load(vp, 16);
        const s0 = i32x4.shuffle(s, s, 0, 0, 0, 0);
        const s1 = i32x4.shuffle(s, s, 1, 1, 1, 1);
        const s2 = i32x4.shuffle(s, s, 2, 2, 2, 2);
        const s3 = i32x4.shuffle(s, s, 3, 3, 3, 3);
        c00 = f32x4.add(c00, f32x4.mul(s0, v0)); c01 = f32x4.add(c01, f32x4.mul(s0, v1));
        c10 = f32x4.add(c10, f32x4.mul(s1, v0)); c11 = f32x4.add(c11, f32x4.mul(s1, v1));
        c20 = f32x4.add(c20, f32x4.mul(s2, v0)); c21 = f32x4.add(c21, f32x4.mul(s2, v1));
        c30 = f32x4.add(c30, f32x4.mul(s3, v0)); c31 = f32x4.add(c31, f32x4.mul(s3, v1));
        sp += stRow;
        vp += mvRow;
      }
      v128.store(a0, c00); v128.store(a0, c01, 16);
      v128.store(a1, c10); v128.store(a1, c11, 16);
      v128.store(a2, c20); v128.store(a2, c21, 16);
      v128.store(a3, c30); v128.store(a3, c31, 16);
    }
  }
}

export function matmul(s: usize, accumulate: bool): void {
  const out = slot(s, 0), st = slot(s, 1), mv = slot(s, 2);
  const K = shapeAt(st, 4), M = shapeAt(out, 4), N = shapeAt(out, 5);
  const stBuf = s + MATMUL, mvBuf = stBuf + ST_BYTES, accBuf = mvBuf + MV_BYTES;
  const oType = load<i32>(out + F_DTYPE);
  const oSize = elementBytes(oType);
  const om = <isize>strideAt(out, 4) * oSize, on = <isize>strideAt(out, 5) * oSize;
  const oBase = <isize>load<i32>(out + F_ADDR);
  for (let m0 = 0; m0 < M; m0 += MB) {
    const mn = min(MB, M - m0), mp = (mn + 3) & ~3;
    for (let n0 = 0; n0 < N; n0 += NB) {
      const nn = min(NB, N - n0), np = (nn + 7) & ~7;
      memory.fill(accBuf, 0, <usize>(mp * np) * 4);
      for (let k0 = 0; k0 < K; k0 += KB) {
        const kn = min(KB, K - k0);
        pack(stBuf, st, k0, kn, m0, mn, mp);
        pack(mvBuf, mv, k0, kn, n0, nn, np);
        kernel(accBuf, stBuf, mvBuf, kn, mp, np);
      }
      for (let m = 0; m < mn; m++) {
        let p = oBase + <isize>(m0 + m) * om + <isize>n0 * on;
        const row = accBuf + <usize>(m * np) * 4;
        for (let n = 0; n < nn; n++) {
          let v = load<f32>(row + (<usize>n << 2));
          if (accumulate) v = <f32>readF64(<usize>p, oType) + v;
          writeF64(<usize>p, oType, <f64>v);
          p += on;
        }
      }
    }
  }
}
