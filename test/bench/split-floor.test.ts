// The split floor (bench/floors/split.ts) cuts a run into parts that the calling thread and the workers claim one at
// a time: whoever claims them, every element is computed once, and a run's parts never mix with the next run's.
import { describe, it, expect, afterAll } from "vitest";
import { PlainWasm } from "../../dist/bench/floors/plain-wasm.js"; // compiled: its floor threads start from dist
import { giouOf } from "../../ops/giou/reference.js";

describe("split floor", () => {
  const made: PlainWasm[] = [];
  afterAll(async () => { for (const w of made) await w.close(); });

  it("computes ReLU of every element once over 2 and 3 threads, for totals below, at and above the part count", async () => {
    for (const threads of [2, 3]) {
      const wasm = await PlainWasm.create(1 << 20);
      made.push(wasm);
      for (const total of [16, 48, 1000, 65536 + 16]) {
        const x = Float32Array.from({ length: total }, (_, i) => (i % 3 === 0 ? -1 : 1) * (i + 1));
        const xs = wasm.place(x), out = wasm.place(new Float32Array(total).fill(Number.NaN));
        await wasm.splitRun(threads, "relu_forward", [out, xs], total, 16);
        expect(Array.from(wasm.read(out, total))).toEqual(Array.from(x, (v) => Math.max(v, 0)));
      }
    }
  }, 60_000);

  it("back-to-back runs on other arrays each finish whole before the next starts", async () => {
    const wasm = await PlainWasm.create(1 << 24);
    made.push(wasm);
    const total = 1 << 16;
    for (let run = 0; run < 20; run++) {
      const x = Float32Array.from({ length: total }, (_, i) => ((i + run) % 2 ? 1 : -1) * (run + 1));
      const xs = wasm.place(x), out = wasm.place(new Float32Array(total).fill(Number.NaN));
      await wasm.splitRun(2, "relu_forward", [out, xs], total, 16);
      const got = wasm.read(out, total);
      expect(got.every((v, i) => v === Math.max(x[i], 0)), `run ${run}`).toBe(true);
    }
  }, 60_000);

  it("the TCM scheme's floor (copies through a 16 KB buffer per thread) gives the reference GIOU, on one thread and split", async () => {
    const wasm = await PlainWasm.create(1 << 22);
    made.push(wasm);
    // 3 rows of 1000 boxes: parts end inside a 256-pair chunk, and the last chunk of a part is short.
    const rows = 3, boxes = 1000, n = rows * boxes;
    const box = (i: number, k: number) => { const x = (i * 7919 + k * 104729) % 97, y = (i * 31 + k * 17) % 89; return [x, y, x + 1 + (i % 13), y + 1 + (k % 11)]; };
    const pred = Float32Array.from({ length: n * 4 }, (_, j) => box(j >> 2, 1)[j & 3]);
    const target = Float32Array.from({ length: n * 4 }, (_, j) => box(j >> 2, 2)[j & 3]);
    const expected = giouOf(pred, target, rows, boxes);
    const ps = wasm.place(pred), ts = wasm.place(target);
    // Three threads over 3000 pairs: parts of 372-376 pairs, which two threads run at once, each through its own buffer.
    for (const threads of [1, 2, 3]) {
      const out = wasm.place(new Float32Array(n).fill(Number.NaN));
      if (threads === 1) wasm.exports.giou_tcm(out, ps, ts, 0, n);
      else await wasm.splitRun(threads, "giou_tcm", [out, ps, ts], n, 4);
      const got = wasm.read(out, n);
      const worst = got.reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i])), 0);
      expect(worst, `${threads} thread(s)`).toBeLessThan(1e-5);
    }
  }, 60_000);

  it("the ReLU TCM scheme's floor gives ReLU of every element, on one thread and split, sizes off the 4 KB chunk", async () => {
    const wasm = await PlainWasm.create(1 << 22);
    made.push(wasm);
    for (const total of [16, 1000, 999 * 17 + 1, 65536 + 48]) {
      const x = Float32Array.from({ length: total }, (_, i) => (i % 5 < 2 ? -1 : 1) * (i + 0.5));
      const xs = wasm.place(x);
      for (const threads of [1, 2]) {
        const out = wasm.place(new Float32Array(total).fill(Number.NaN));
        if (threads === 1) wasm.exports.relu_forward_tcm(out, xs, 0, total);
        else await wasm.splitRun(threads, "relu_forward_tcm", [out, xs], total, 16);
        expect(Array.from(wasm.read(out, total)), `${total} elements, ${threads} thread(s)`).toEqual(Array.from(x, (v) => Math.max(v, 0)));
      }
    }
  }, 60_000);
});
