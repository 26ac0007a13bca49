// The split floor (bench/floors/split.ts) cuts a run into parts that the calling thread and the workers claim one at
// a time: whoever claims them, every element is computed once, and a run's parts never mix with the next run's.
import { describe, it, expect, afterAll } from "vitest";
import { PlainWasm } from "../../dist/bench/floors/plain-wasm.js"; // compiled: its floor threads start from dist

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
});
