// The outsider round: kernels written from the README, docs/nki.md and the public NKI API docs only
// (test/nki/fixtures/outsider/*.py), run through the public API (nki.load) against plain TypeScript
// references; then buggy variants, each with the documented error class, code, line and names.
import { describe, it, expect, afterAll } from "vitest";
import { nki, tensor, type Tensor } from "gpsimd";
import { OUTSIDER, values, ints, toBf16, firstMismatch, gelu, silu, matmul } from "./outsider-helpers.js";

afterAll(() => nki.shutdown());

const f32 = (t: Tensor) => Array.from(t.data() as Float32Array);

describe("outsider kernels against references", () => {
  it("row softmax over [256, 512]", () => {
    const N = 256, D = 512, xv = values(N * D, 1, 5);
    const out = nki.load(OUTSIDER("softmax.py"), "softmax_kernel")(tensor(xv, [N, D])) as Tensor;
    const want = new Float64Array(N * D);
    for (let r = 0; r < N; r++) {
      const row = xv.subarray(r * D, (r + 1) * D);
      const mx = Math.max(...row);
      let s = 0;
      for (let j = 0; j < D; j++) s += Math.exp(row[j] - mx);
      for (let j = 0; j < D; j++) want[r * D + j] = Math.exp(row[j] - mx) / s;
    }
    expect(firstMismatch(f32(out), Array.from(want), 1e-5, 1e-9)).toBeNull();
  });

  it("layernorm with gamma, beta and the default eps", () => {
    const N = 256, D = 384, xv = values(N * D, 2, 3), g = values(D, 3), b = values(D, 4);
    const k = nki.load(OUTSIDER("layernorm.py"), "layernorm_kernel");
    const out = k(tensor(xv, [N, D]), tensor(g, [D]), tensor(b, [D])) as Tensor;
    const want: number[] = [];
    for (let r = 0; r < N; r++) {
      const row = xv.subarray(r * D, (r + 1) * D);
      const mean = row.reduce((s, v) => s + v, 0) / D;
      const v = row.reduce((s, x) => s + (x - mean) ** 2, 0) / D;
      for (let j = 0; j < D; j++) want.push((row[j] - mean) / Math.sqrt(v + 1e-5) * g[j] + b[j]);
    }
    expect(firstMismatch(f32(out), want, 1e-4, 1e-5)).toBeNull();
  });

  it("rmsnorm in the current API (dma_copy, activation with reduce_res, tensor_scalar)", () => {
    const N = 256, D = 256, xv = values(N * D, 5, 2), w = values(D, 6);
    const out = nki.load(OUTSIDER("rmsnorm.py"), "rmsnorm_kernel")(tensor(xv, [N, D]), tensor(w, [D])) as Tensor;
    const want: number[] = [];
    for (let r = 0; r < N; r++) {
      const row = xv.subarray(r * D, (r + 1) * D);
      const inv = 1 / Math.sqrt(row.reduce((s, x) => s + x * x, 0) / D + 1e-6);
      for (let j = 0; j < D; j++) want.push(row[j] * inv * w[j]);
    }
    expect(firstMismatch(f32(out), want, 1e-4, 1e-6)).toBeNull();
  });

  it("fused MLP: gelu(x @ w1) accumulated over K in PSUM, then nl.matmul and nl.matmul(transpose_x=True) + silu", () => {
    const K = 256, M = 128, H = 128, N = 512;
    const xT = values(K * M, 7), w1 = values(K * H, 8, 0.2), w2 = values(H * N, 9, 0.2);
    const [y1, y2] = nki.load(OUTSIDER("mlp.py"), "mlp_kernel")(tensor(xT, [K, M]), tensor(w1, [K, H]), tensor(w2, [H, N])) as Tensor[];
    const h = Array.from(matmul(xT, w1, M, K, H, true), gelu);
    const hw = matmul(h, w2, M, H, N, false);
    expect(firstMismatch(f32(y1), Array.from(hw), 1e-4, 1e-5)).toBeNull();
    expect(firstMismatch(f32(y2), Array.from(hw, silu), 1e-4, 1e-5)).toBeNull();
  });

  it("bfloat16 matmul accumulating in float32 PSUM over K", () => {
    const K = 384, M = 256, N = 512;
    const a = toBf16(values(K * M, 10)), b = toBf16(values(K * N, 11));
    const out = nki.load(OUTSIDER("matmul_bf16.py"), "matmul_bf16_kernel")(tensor(a, [K, M], "bfloat16"), tensor(b, [K, N], "bfloat16")) as Tensor;
    expect(String(out.dtype)).toBe("float32");
    // bf16 products are exact in float32; only the float32 sums round.
    expect(firstMismatch(f32(out), Array.from(matmul(a, b, M, K, N, true)), 1e-5, 1e-5)).toBeNull();
  });

  it("column sums through nisa.nc_transpose and a reduction along the free axis", () => {
    const R = 384, C = 256, xv = values(R * C, 12);
    const out = nki.load(OUTSIDER("colsum.py"), "colsum_kernel")(tensor(xv, [R, C])) as Tensor;
    expect(out.sizes()).toEqual([C, 1]);
    const want = new Array<number>(C).fill(0);
    for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) want[c] += xv[r * C + c];
    expect(firstMismatch(f32(out), want, 1e-5, 1e-5)).toBeNull();
  });

  it("a masked tail tile: 300 rows, the last tile has 44", () => {
    const N = 300, D = 200, xv = values(N * D, 13);
    const out = nki.load(OUTSIDER("masked_tail.py"), "masked_tail_kernel")(tensor(xv, [N, D])) as Tensor;
    expect(f32(out)).toEqual(Array.from(xv, (x) => Math.fround(Math.fround(2 * x) + 1)));
  });

  it("an SPMD kernel over a 3-D grid with nl.program_id and nl.num_programs", () => {
    const B = 2, R = 256, C = 512, xv = values(B * R * C, 14);
    const out = nki.load(OUTSIDER("spmd3d.py"), "spmd3d_kernel").grid(2, 2, 2)(tensor(xv, [B, R, C])) as Tensor;
    const want = Array.from(xv, (x, i) => {
      const b = Math.floor(i / (R * C)), r = Math.floor((i % (R * C)) / C / 128), c = Math.floor((i % C) / 256);
      return Math.fround(Math.fround(x * (1 + b)) + (r * 2 + c));
    });
    expect(f32(out)).toEqual(want);
  });

  it("a helper function with keyword arguments and defaults; kernel keyword arguments", () => {
    const xv = values(128 * 64, 15, 4);
    const k = nki.load(OUTSIDER("helper_kwargs.py"), "helper_kernel");
    const plain = k(tensor(xv, [128, 64])) as Tensor;
    expect(f32(plain)).toEqual(Array.from(xv, (x) => Math.fround(Math.fround(2 * x) + 0.5)));
    const clamped = k(tensor(xv, [128, 64]), { shift: -1, clamp: 3 }) as Tensor;
    expect(f32(clamped)).toEqual(Array.from(xv, (x) => Math.min(Math.fround(Math.fround(2 * x) - 1), 3)));
  });

  it("nl.sequential_range carrying an accumulator tile", () => {
    const T = 5, P = 128, F = 96, xv = values(T * P * F, 16);
    const out = nki.load(OUTSIDER("prefix_tiles.py"), "prefix_tiles_kernel")(tensor(xv, [T, P, F])) as Tensor;
    const want = new Float32Array(T * P * F);
    for (let i = 0; i < T * P * F; i++) want[i] = i < P * F ? xv[i] : Math.fround(want[i - P * F] + xv[i]);
    expect(f32(out)).toEqual(Array.from(want));
  });

  it("nisa.iota, nl.where and nisa.affine_select", () => {
    const P = 128, F = 160, xv = values(P * F, 17);
    const out = nki.load(OUTSIDER("iota_where.py"), "iota_where_kernel")(tensor(xv, [P, F])) as Tensor;
    const want = Array.from(xv, (x, i) => {
      const p = Math.floor(i / F), f = i % F;
      return p - f >= 0 ? (i % 2 === 0 ? x : -x) : -1;
    });
    expect(f32(out)).toEqual(want);
  });

  it("nisa.activation with a bias tile and a scale, in both isa generations", () => {
    const P = 128, F = 256, xv = values(P * F, 18, 4), bv = values(P, 19);
    const x = tensor(xv, [P, F]), bias = tensor(bv, [P, 1]);
    const v1 = nki.load(OUTSIDER("activation_bias.py"), "activation_kernel")(x, bias) as Tensor;
    expect(firstMismatch(f32(v1), Array.from(xv, (v, i) => Math.tanh(0.5 * v + bv[Math.floor(i / F)])), 1e-6, 1e-7)).toBeNull();
    const v2 = nki.load(OUTSIDER("activation_bias_v2.py"), "activation_v2_kernel")(x, bias) as Tensor;
    expect(firstMismatch(f32(v2), Array.from(xv, (v, i) => Math.exp(-0.25 * v + bv[Math.floor(i / F)])), 1e-6, 1e-7)).toBeNull();
  });

  it("int32 arithmetic wraps: multiply-add, shifts, xor, and, max", () => {
    const n = 128 * 64, a = ints(n, 20, -(2 ** 31), 2 ** 31 - 1), b = ints(n, 21, -100000, 100000);
    const out = nki.load(OUTSIDER("int32_ops.py"), "int32_kernel")(tensor(a, [128, 64]), tensor(b, [128, 64])) as Tensor;
    expect(String(out.dtype)).toBe("int32");
    const want = Array.from(a, (x, i) => {
      const y = b[i];
      let s = (Math.imul(x, 65537) + y) | 0;
      s = s ^ (y << 3);
      s = Math.max(s, x >> 2);
      return (s - (x & y)) | 0;
    });
    expect(Array.from(out.data() as Int32Array)).toEqual(want);
  });

  it("softmax, var, rms_norm, abs_max/abs_min, gelu_apprx_sigmoid(_dx), expand_dims, no_reorder and the buffer predicates", () => {
    const P = 128, F = 96, xv = values(P * F, 22, 3), yv = values(P * F, 23, 3), wv = values(F, 24);
    const outs = nki.load(OUTSIDER("composed_nl.py"), "composed_kernel")(tensor(xv, [P, F]), tensor(yv, [P, F]), tensor(wv, [F])) as Tensor[];
    const [soft, vari, rms, amax, amin, gel, geldx] = outs.map(f32);
    const wantSoft: number[] = [], wantVar: number[] = [], wantRms: number[] = [];
    for (let r = 0; r < P; r++) {
      const row = Array.from(xv.subarray(r * F, (r + 1) * F));
      const mx = Math.max(...row), sum = row.reduce((s, v) => s + Math.exp(v - mx), 0);
      wantSoft.push(...row.map((v) => Math.exp(v - mx) / sum));
      const mean = row.reduce((s, v) => s + v, 0) / F;
      wantVar.push(row.reduce((s, v) => s + (v - mean) ** 2, 0) / F);
      const inv = 1 / Math.sqrt(row.reduce((s, v) => s + v * v, 0) / F + 1e-6);
      wantRms.push(...row.map((v, j) => v * inv * wv[j]));
    }
    expect(firstMismatch(soft, wantSoft, 1e-5, 1e-9)).toBeNull();
    expect(firstMismatch(vari, wantVar, 1e-5, 1e-6)).toBeNull();
    expect(firstMismatch(rms, wantRms, 1e-5, 1e-6)).toBeNull();
    expect(amax).toEqual(Array.from(xv, (v, i) => (Math.abs(v) > Math.abs(yv[i]) ? v : yv[i])));
    expect(amin).toEqual(Array.from(xv, (v, i) => (Math.abs(v) < Math.abs(yv[i]) ? v : yv[i])));
    expect(firstMismatch(gel, Array.from(xv, (v) => v / (1 + Math.exp(-1.702 * v))), 1e-6, 1e-7)).toBeNull();
    const sig = (v: number) => 1 / (1 + Math.exp(-1.702 * v));
    expect(firstMismatch(geldx, Array.from(xv, (v) => sig(v) + 1.702 * v * sig(v) * (1 - sig(v))), 1e-5, 1e-6)).toBeNull();
  });

  it("nisa.affine_select with a pattern (a causal mask) and nisa.scalar_tensor_tensor, current API", () => {
    const P = 128, F = 160, xv = values(P * F, 25), yv = values(P * F, 26);
    const [masked, fused, rev] = (nki.load(OUTSIDER("isa_current_select.py"), "causal_and_stt_kernel")(tensor(xv, [P, F]), tensor(yv, [P, F])) as Tensor[]).map(f32);
    expect(masked).toEqual(Array.from(xv, (v, i) => (Math.floor(i / F) - (i % F) >= 0 ? v : -9999)));
    expect(fused).toEqual(Array.from(xv, (v, i) => Math.fround(Math.fround(v * 2) + yv[i])));
    expect(rev).toEqual(Array.from(xv, (v, i) => Math.fround(Math.fround(3 - v) * yv[i])));
  });

  it("nl.shared_identity_matrix(dst=...) writes its destination; a Tensor-engine transpose with it", () => {
    const P = 128, F = 96, xv = values(P * F, 27);
    const out = f32(nki.load(OUTSIDER("identity_dst.py"), "identity_transpose_kernel")(tensor(xv, [P, F])) as Tensor);
    expect(out).toEqual(Array.from(out, (_, i) => xv[(i % P) * F + Math.floor(i / P)]));
  });

  it("nisa.exponential with a max_value tile or scalar and VectorE's sum (reset_reduce, load_reduce)", () => {
    const P = 128, F = 64, xv = values(P * F, 28, 4);
    const [e, s, e2, s2] = (nki.load(OUTSIDER("exponential.py"), "exponential_kernel")(tensor(xv, [P, F])) as Tensor[]).map(f32);
    const wantE: number[] = [], wantS: number[] = [], wantE2: number[] = [], wantS2: number[] = [];
    for (let r = 0; r < P; r++) {
      const row = Array.from(xv.subarray(r * F, (r + 1) * F));
      const mx = Math.max(...row);
      wantE.push(...row.map((v) => Math.exp(v - mx)));
      wantS.push(row.reduce((acc, v) => acc + Math.exp(v - mx), 0));
      wantE2.push(...row.map((v) => Math.exp(v - 1)));
      wantS2.push(10 + row.reduce((acc, v) => acc + Math.exp(v - 1), 0));
    }
    expect(firstMismatch(e, wantE, 1e-6, 1e-9)).toBeNull();
    expect(firstMismatch(s, wantS, 1e-5, 1e-9)).toBeNull();
    expect(firstMismatch(e2, wantE2, 1e-6, 1e-9)).toBeNull();
    expect(firstMismatch(s2, wantS2, 1e-5, 1e-9)).toBeNull();
  });

  it("nisa.tensor_scalar_cumulative: running sums and maxima, reset_reduce, load_reduce and reduce", () => {
    const P = 128, F = 48, xv = values(P * F, 29, 2);
    const [sum2, runMax, loaded, continued] = (nki.load(OUTSIDER("cumulative.py"), "cumulative_kernel")(tensor(xv, [P, F])) as Tensor[]).map(f32);
    const want: number[][] = [[], [], [], []];
    for (let r = 0; r < P; r++) {
      let a = 0, m = -Infinity, l = 5;
      const row = xv.subarray(r * F, (r + 1) * F);
      for (const v of row) { a = Math.fround(a + Math.fround(2 * v)); m = Math.max(m, v); l = Math.fround(l + Math.fround(v + 1)); want[0].push(a); want[1].push(m); want[2].push(l); }
      let c = l; // reduce continues from the register load_reduce left: the row's last value
      for (const v of row) { c = Math.fround(c + v); want[3].push(c); }
    }
    expect(sum2).toEqual(want[0]);
    expect(runMax).toEqual(want[1]);
    expect(loaded).toEqual(want[2]);
    expect(continued).toEqual(want[3]);
  });

  it("nisa.max8, nc_find_index8 and nc_match_replace8: the 8 largest of each row, their places, the row without them", () => {
    const P = 128, F = 64, xv = values(P * F, 30);
    const [top, idx, rest] = nki.load(OUTSIDER("top8.py"), "top8_kernel")(tensor(xv, [P, F])) as Tensor[];
    const wantTop: number[] = [], wantIdx: number[] = [], wantRest: number[] = [];
    for (let r = 0; r < P; r++) {
      const row = Array.from(xv.subarray(r * F, (r + 1) * F));
      const order = row.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0]).slice(0, 8);
      wantTop.push(...order.map(([v]) => v));
      wantIdx.push(...order.map(([, i]) => i));
      const replaced = new Set(order.map(([, i]) => i));
      wantRest.push(...row.map((v, i) => (replaced.has(i) ? -1000 : v)));
    }
    expect(f32(top)).toEqual(wantTop);
    expect(Array.from(idx.data() as ArrayLike<number>, Number)).toEqual(wantIdx);
    expect(f32(rest)).toEqual(wantRest);
  });

  it("nl.gather_flattened and nisa.nc_n_gather gather within each partition over its flattened free elements", () => {
    const P = 128, F = 64, G = 40, xv = values(P * F, 31), iv = ints(P * G, 32, 0, F);
    const [a, b] = (nki.load(OUTSIDER("gather.py"), "gather_kernel")(tensor(xv, [P, F]), tensor(iv, [P, G])) as Tensor[]).map(f32);
    const want = Array.from(iv, (j, k) => xv[Math.floor(k / G) * F + j]);
    expect(a).toEqual(want);
    expect(b).toEqual(want);
  });

  it("nisa.get_nc_version follows the device option: gen2 on trn1 (the default), gen3 on trn2", () => {
    const xv = values(128 * 16, 33);
    const onTrn1 = f32(nki.load(OUTSIDER("nc_version.py"), "versioned_kernel")(tensor(xv, [128, 16])) as Tensor);
    const onTrn2 = f32(nki.load(OUTSIDER("nc_version.py"), "versioned_kernel", { device: "trn2" })(tensor(xv, [128, 16])) as Tensor);
    expect(onTrn1).toEqual(Array.from(xv, (v) => Math.fround(v * 2)));
    expect(onTrn2).toEqual(Array.from(xv, (v) => Math.fround(v * 3)));
  });
});
