// The three seed kernels (examples/seeds-nki/) against plain TypeScript references.
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../nki/python/index.js";
import { registerNkiModules, findKernel, launchKernel } from "../../nki/language/run.js";
import { tensor } from "../../host/device/factories.js";
import type { Tensor } from "../../host/device/tensor.js";
import { setOutput } from "../../host/output.js";
import { giouOf } from "../../ops/giou/reference.js";

registerNkiModules();

/** Deterministic pseudo-random floats in [-r, r), rounded to float32. */
function values(n: number, seed: number, r = 10): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * r;
  }
  return out;
}

describe("tensor_add.py (nki_tensor_add_kernel_ on an SPMD grid)", () => {
  const program = loadProgram("examples/seeds-nki/tensor_add.py");

  test("a 2 x 2 grid over [256, 1024] adds every element (float32, exact)", () => {
    const av = values(256 * 1024, 1), bv = values(256 * 1024, 2);
    const a = tensor(av, [256, 1024], "float32"), b = tensor(bv, [256, 1024], "float32");
    const r = launchKernel(program, findKernel(program, "nki_tensor_add_kernel_"), [a, b], {}, { grid: [2, 2] });
    const c = (r.returned as Tensor).data() as Float32Array;
    const expected = new Float32Array(av.length);
    for (let i = 0; i < av.length; i++) expected[i] = av[i] + bv[i];
    let bad = -1;
    for (let i = 0; i < c.length && bad < 0; i++) if (c[i] !== expected[i]) bad = i;
    expect(bad).toBe(-1);
    expect(r.outputs).toEqual([r.returned]);
  });

  test("the caller nki_tensor_add launches the grid itself", () => {
    const av = values(256 * 1024, 3), bv = values(256 * 1024, 4);
    const a = tensor(av, [256, 1024], "float32"), b = tensor(bv, [256, 1024], "float32");
    const r = launchKernel(program, findKernel(program, "nki_tensor_add"), [a, b]);
    expect(r.outputs).toEqual([r.returned]); // the output the kernel it launched made
    const c = (r.returned as Tensor).data() as Float32Array;
    expect(c[0]).toBe(Math.fround(av[0] + bv[0]));
    expect(c[256 * 1024 - 1]).toBe(Math.fround(av[256 * 1024 - 1] + bv[256 * 1024 - 1]));
  });
});

/** Integers in [0, n) from a small LCG (deterministic). */
function randint(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return Math.floor((s / 2 ** 32) * n); };
}

/** Boxes as the blog makes them: sizes in [1, 256), top-left corners in [0, 255), bottom-right clipped to 255. */
function blogBoxes(batch: number, boxes: number, seed: number): Float32Array {
  const r = randint(seed);
  const out = new Float32Array(batch * boxes * 4);
  for (let i = 0; i < batch * boxes; i++) {
    const w = 1 + r(255), h = 1 + r(255), x = r(255), y = r(255);
    out.set([x, y, Math.min(x + w, 255), Math.min(y + h, 255)], i * 4);
  }
  return out;
}

describe("giou.py (giou_kernel, the blog's kernel, run as nki.trace with device_print)", () => {
  test("1024 x 256 boxes: every GIOU within float32 rounding of ops/giou/reference.ts", () => {
    const program = loadProgram("examples/seeds-nki/giou.py");
    const batch = 1024, n = 256;
    const p = blogBoxes(batch, n, 11), t = blogBoxes(batch, n, 12);
    const out = tensor(new Float32Array(batch * n), [batch, n], "float32");
    let printed = 0;
    const restore = setOutput({ printf: (s) => { if (s.startsWith("preds")) printed++; } });
    try {
      launchKernel(program, findKernel(program, "giou_kernel"), [tensor(p, [batch, n * 4], "float32"), tensor(t, [batch, n * 4], "float32"), out]);
    } finally { restore(); }
    expect(printed).toBe(16); // debug_print('preds', preds) in each of the 8 x 2 tiles
    const expected = giouOf(p, t, batch, n);
    const got = out.data() as Float32Array;
    let worst = 0;
    for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - expected[i]));
    expect(worst).toBeLessThan(2e-6); // the kernel rounds every instruction to float32, the reference once
    expect(got.some((v) => v < 0) && got.some((v) => v > 0.5)).toBe(true);
  });
});

/** AvgPool2D in plain TypeScript: [C, H, W] to [C, H/pool, W/pool]. */
function avgpool(x: Float32Array, c: number, h: number, w: number, pool: number): Float32Array {
  const ho = Math.floor(h / pool), wo = Math.floor(w / pool);
  const out = new Float32Array(c * ho * wo);
  for (let ch = 0; ch < c; ch++) for (let i = 0; i < ho; i++) for (let j = 0; j < wo; j++) {
    let s = 0;
    for (let a = 0; a < pool; a++) for (let b = 0; b < pool; b++) s += x[(ch * h + i * pool + a) * w + j * pool + b];
    out[(ch * ho + i) * wo + j] = s / (pool * pool);
  }
  return out;
}

describe("avgpool.py (tensor_avgpool_kernel: a 5-D mgrid view reduced over two axes)", () => {
  const program = loadProgram("examples/seeds-nki/avgpool.py");
  for (const [c, h, w, pool] of [[2, 6, 6, 2], [128, 64, 96, 4]]) {
    test(`C=${c}, H=${h}, W=${w}, pool ${pool}`, () => {
      const x = values(c * h * w, c + h + pool);
      const r = launchKernel(program, findKernel(program, "tensor_avgpool_kernel"), [tensor(x, [c, h, w], "float32"), pool]);
      const got = (r.returned as Tensor);
      expect(got.sizes()).toEqual([c, h / pool, w / pool]);
      const want = avgpool(x, c, h, w, pool);
      const data = got.data() as Float32Array;
      let worst = 0;
      for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(data[i] - want[i]));
      expect(worst).toBeLessThan(1e-5);
    });
  }
});
