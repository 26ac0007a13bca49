// The tile engine's searches along a tile (nki/machine/engine.ts): tensor_tensor_scan, gathers within
// partitions, max8 / nc_find_index8 / nc_match_replace8, against plain TypeScript references and the
// instructions' documented examples.
import { describe, it, expect, beforeAll } from "vitest";
import { tileEngine, EngineDType as D, type Operand, type TileEngine } from "../../nki/machine/engine.js";
import { hbm } from "../../host/device/hbm.js";
import { operand, get, getRaw, set, encode, fillWith, indices, markAllWritten, rng, expectElements } from "./engine-helpers.js";

let e: TileEngine;
beforeAll(() => { e = tileEngine(); });

describe("scan", () => {
  it("a cumulative sum and a linear recurrence, each step rounded to float32, with a scalar or per-row initial value", () => {
    const r = rng(17);
    const shape = [3, 2, 700]; // rows longer than a chunk
    const d0 = operand(D.F32, shape, { reversed: true }), d1 = operand(D.BF16, shape), init = operand(D.F32, [3, 2, 1]);
    fillWith(d0, () => r(1)); fillWith(d1, () => r(1)); fillWith(init, () => r(2));
    const out = operand(D.F32, shape, { gap: 2 });
    const check = (op0: (x: number, p: number) => number, op1: (t: number, y: number) => number, start: (i: number[]) => number, o: Operand) => {
      for (const rowIndex of indices([3, 2])) {
        let prev = Math.fround(start(rowIndex));
        for (let k = 0; k < shape[2]!; k++) {
          const i = [...rowIndex, k];
          prev = Math.fround(op1(Math.fround(op0(get(d0, i), prev)), get(d1, i)));
          expect(getRaw(o, i), `[${i.join(", ")}]`).toBe(encode(o.dtype, prev));
        }
      }
    };
    expect(e.scan(out, d0, d1, 0.1, "add", "add")).toBeNull();
    check((x, p) => x + p, (t, y) => t + y, () => 0.1, out);
    // tensor_scalar_cumulative's form: op0 with an immediate first, then the running op1 (data1 a number)
    const t = operand(D.F32, shape);
    e.tensorScalar(t, d0, "multiply", 3);
    e.scan(out, t, 1, init, "maximum", "multiply");
    check((x, p) => Math.max(x * Math.fround(3), p), (u) => u, ([a, b]) => get(init, [a!, b!, 0]), out);
    const out16 = operand(D.BF16, shape);
    e.scan(out16, d0, d1, init, "multiply", "rsub");
    check((x, p) => x * p, (t, y) => y - t, ([a, b]) => get(init, [a!, b!, 0]), out16);
  });
});

describe("gather", () => {
  it("within partitions, over data's flattened free elements, into another dtype", () => {
    const r = rng(64);
    const data = operand(D.BF16, [4, 3, 5], { gap: 2 }), idx = operand(D.U32, [4, 7], { reversed: true }), out = operand(D.F32, [4, 7]);
    fillWith(data, () => r(9));
    fillWith(idx, () => Math.floor((r(1) + 1) * 7.5));
    expect(e.gather(out, data, idx)).toBeNull();
    expectElements(out, ([p, j]) => { const k = get(idx, [p!, j!]); return get(data, [p!, Math.floor(k / 5), k % 5]); });
    const ints = operand(D.I16, [4, 15]), iout = operand(D.I32, [4, 7]);
    fillWith(ints, (_, k) => k * 1000 - 30000);
    e.gather(iout, ints, idx);
    expectElements(iout, ([p, j]) => get(ints, [p!, get(idx, [p!, j!])]));
  });

  it("names an index out of range, an unwritten index and an unwritten gathered element, writing nothing", () => {
    const data = operand(D.F32, [2, 6], { init: true }), idx = operand(D.I32, [2, 3], { init: true }), out = operand(D.F32, [2, 3]);
    fillWith(data, (_, k) => k); fillWith(idx, ([p, j]) => (p === 1 && j === 1 ? 6 : j! * 2)); fillWith(out, () => -1);
    markAllWritten(data);
    expect(e.gather(out, data, idx)).toEqual({ operand: 1, index: [0, 0] });
    markAllWritten(idx);
    expect(e.gather(out, data, idx)).toEqual({ outOfRange: true, operand: 1, index: [1, 1], value: 6, size: 6 });
    set(idx, [1, 1], 5);
    hbm().bytes()[data.init! + 6 + 4] = 0; // data[1, 4], gathered by idx[1, 2]
    expect(e.gather(out, data, idx)).toEqual({ operand: 0, index: [1, 4] });
    expectElements(out, () => -1);
    e.markInit(data, true);
    expect(e.gather(out, data, idx)).toBeNull();
    expectElements(out, ([p, j]) => p! * 6 + [0, p === 1 ? 5 : 2, 4][j!]!);
  });
});

describe("max8, find_index8, match_replace8", () => {
  it("max8 gives each partition's 8 largest values in descending order", () => {
    const r = rng(8);
    const data = operand(D.BF16, [3, 4, 10], { reversed: true }), out = operand(D.F32, [3, 8]);
    fillWith(data, () => Math.round(r(50)));
    expect(e.max8(out, data)).toBeNull();
    for (let p = 0; p < 3; p++) {
      const v: number[] = [];
      for (const i of indices([4, 10])) v.push(get(data, [p, ...i]));
      v.sort((x, y) => y - x);
      expect([...Array(8).keys()].map((i) => get(out, [p, i]))).toEqual(v.slice(0, 8));
    }
  });

  it("find_index8 pairs duplicate values with successive occurrences and marks absent ones with all ones", () => {
    const data = operand(D.F32, [2, 3, 4]), vals = operand(D.F32, [2, 8]), out = operand(D.U32, [2, 8]);
    const rows = [[5, 1, 5, 2, 5, 9, 0, 1, 7, 7, 3, 5], [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]];
    fillWith(data, ([p, a, b]) => rows[p!]![a! * 4 + b!]!);
    const want = [[5, 5, 1, 42, 5, 7, 1, 5], [2, 2, 2, 0, 9, 2, 1, 2]];
    fillWith(vals, ([p, i]) => want[p!]![i!]!);
    e.findIndex8(out, data, vals);
    expectElements(out, ([p, i]) => [[0, 2, 1, 2 ** 32 - 1, 4, 8, 7, 11], [8, 9, 10, 0, 2 ** 32 - 1, 11, 4, 2 ** 32 - 1]][p!]![i!]!);
  });

  it("match_replace8 takes the values in reverse order, replaces the matches and reports their positions (the documented example)", () => {
    const data = operand(D.F32, [1, 11]), vals = operand(D.F32, [1, 8]), out = operand(D.BF16, [1, 11]), idx = operand(D.U32, [1, 8]);
    fillWith(data, (_, k) => [1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8][k]!);
    fillWith(vals, (_, k) => [3, 8, 8, 8, 8, 8, 8, 8][k]!);
    expect(e.matchReplace8(out, data, vals, -1.5, idx)).toBeNull();
    expectElements(idx, ([, i]) => [2, 10, 9, 8, 7, 6, 5, 4][i!]!);
    expectElements(out, ([, k]) => [1, 2, -1.5, 4, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5][k!]!);
    expectElements(data, ([, k]) => [1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8][k!]!);
  });
});
