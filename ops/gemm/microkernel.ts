// The GEMM inner loop: a 4 x 8 block of C kept in eight v128 registers while
// k runs over a TCM panel. Per k it loads one row of 8 B values (two v128) and
// broadcasts four A values, then 8 multiplies and 8 adds: 64 flops for 6
// loads. Without relaxed-simd there is no fused multiply-add, so mul + add it
// is. Larger blocks (6 x 8, 4 x 12) need more than V8's 15 free xmm registers,
// and unrolling k by two measured slower.

/** Rows of C one call computes. */
export const MR: i32 = 4;
/** Columns of C one call computes (two f32x4). */
export const NR: i32 = 8;

/**
 * C[0..4, 0..8] (+)= A[0..4, 0..kc] · B[0..kc, 0..8], all in TCM.
 * A element (i, k) is at a + i * a_rs + k * a_ks (bytes), so row-major and
 * k-major panels both work; B row k is 8 contiguous floats at b + k * b_ks;
 * C row i is 8 contiguous floats at c + i * c_rs. first: start from zero
 * instead of the values in C.
 */
export function micro_4x8(a: usize, a_rs: usize, a_ks: usize, b: usize, b_ks: usize, c: usize, c_rs: usize, kc: i32, first: bool): void {
  const c1 = c + c_rs, c2 = c1 + c_rs, c3 = c2 + c_rs;
  let c00: v128, c01: v128, c10: v128, c11: v128, c20: v128, c21: v128, c30: v128, c31: v128;
  if (first) {
    c00 = f32x4.splat(0); c01 = c00; c10 = c00; c11 = c00; c20 = c00; c21 = c00; c30 = c00; c31 = c00;
  } else {
    c00 = v128.load(c); c01 = v128.load(c, 16);
    c10 = v128.load(c1); c11 = v128.load(c1, 16);
    c20 = v128.load(c2); c21 = v128.load(c2, 16);
    c30 = v128.load(c3); c31 = v128.load(c3, 16);
  }
  let a0 = a, a1 = a + a_rs, a2 = a1 + a_rs, a3 = a2 + a_rs;
  let bp = b;
  for (let k = 0; k < kc; k++) {
    const b0 = v128.load(bp), b1 = v128.load(bp, 16);
    let x = v128.load32_splat(a0);
    c00 = f32x4.add(c00, f32x4.mul(x, b0)); c01 = f32x4.add(c01, f32x4.mul(x, b1));
    x = v128.load32_splat(a1);
    c10 = f32x4.add(c10, f32x4.mul(x, b0)); c11 = f32x4.add(c11, f32x4.mul(x, b1));
    x = v128.load32_splat(a2);
    c20 = f32x4.add(c20, f32x4.mul(x, b0)); c21 = f32x4.add(c21, f32x4.mul(x, b1));
    x = v128.load32_splat(a3);
    c30 = f32x4.add(c30, f32x4.mul(x, b0)); c31 = f32x4.add(c31, f32x4.mul(x, b1));
    a0 += a_ks; a1 += a_ks; a2 += a_ks; a3 += a_ks;
    bp += b_ks;
  }
  v128.store(c, c00); v128.store(c, c01, 16);
  v128.store(c1, c10); v128.store(c1, c11, 16);
  v128.store(c2, c20); v128.store(c2, c21, 16);
  v128.store(c3, c30); v128.store(c3, c31, 16);
}
