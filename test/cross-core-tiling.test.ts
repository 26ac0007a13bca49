// tilesExactly (host/checks/cross-core.ts) lets a clean multicore call skip the full cross-core check. It may only say
// "clean" when the full check (checkCrossCore) finds nothing: compared here on hand-made cases and on random ones.
import { describe, it, expect } from "vitest";
import { tilesExactly, checkCrossCore, type CoreWrites } from "../host/checks/cross-core.js";
import { Rng } from "gpsimd";

const cores = (...runs: number[][]): CoreWrites[] => runs.map((intervals, core) => ({ core, intervals }));
const clean = (w: CoreWrites[], numel: number) => {
  const f = checkCrossCore(w, numel);
  return !f.overlaps.length && !f.races.length && !f.unwritten;
};

describe("tilesExactly: the clean call's shortcut past the full cross-core check", () => {
  it("says clean for outputs split into runs, in any core order, and for an empty output", () => {
    expect(tilesExactly(cores([0, 4], [4, 8], [8, 10]), 10)).toBe(true);
    expect(tilesExactly(cores([8, 10], [0, 4], [4, 8]), 10)).toBe(true);
    expect(tilesExactly(cores([0, 2, 6, 8], [2, 6, 8, 10]), 10)).toBe(true); // interleaved runs of two cores
    expect(tilesExactly(cores([0, 3, 3, 5], [5, 10]), 10)).toBe(true); // a core's runs that continue each other
    expect(tilesExactly(cores([], []), 0)).toBe(true);
  });

  it("leaves every other case to the full check: overlaps, gaps, short or long coverage, reads, empty runs", () => {
    expect(tilesExactly(cores([0, 6], [4, 10]), 10)).toBe(false); // cores 0 and 1 both wrote [4, 6)
    expect(tilesExactly(cores([0, 5], [0, 5], [5, 10]), 10)).toBe(false); // the same run twice
    expect(tilesExactly(cores([0, 4], [5, 10]), 10)).toBe(false); // [4, 5) unwritten
    expect(tilesExactly(cores([1, 10]), 10)).toBe(false); // [0, 1) unwritten
    expect(tilesExactly(cores([0, 9]), 10)).toBe(false); // [9, 10) unwritten
    expect(tilesExactly(cores([0, 11]), 10)).toBe(false); // past the end
    expect(tilesExactly(cores([0, 6, 2, 4], [6, 10]), 10)).toBe(false); // a core writing [2, 4) twice: fine, but not a tiling
    expect(tilesExactly(cores([0, 5, 5, 5], [5, 10]), 10)).toBe(false); // an empty run
    expect(tilesExactly([{ core: 0, intervals: [0, 5], reads: [6, 7] }, { core: 1, intervals: [5, 10] }], 10)).toBe(false); // a read: races are the full check's
    expect(tilesExactly(cores(Array.from({ length: 200 }, (_, i) => i)), 200)).toBe(false); // too many runs: the full check
  });

  it("never says clean where the full check finds something (random splits, some broken)", () => {
    const rng = new Rng(25);
    for (let trial = 0; trial < 3000; trial++) {
      const numel = rng.int(0, 40);
      const bounds = [0, numel];
      for (let i = rng.int(0, 8); i > 0; i--) bounds.push(rng.int(0, numel));
      bounds.sort((a, b) => a - b);
      const w: CoreWrites[] = Array.from({ length: rng.int(1, 8) }, (_, core) => ({ core, intervals: [] as number[] }));
      for (let i = 0; i + 1 < bounds.length; i++) w[rng.int(0, w.length - 1)].intervals.push(bounds[i], bounds[i + 1]);
      // Break some: move a bound, drop a run, or add a read.
      const kind = rng.int(0, 3);
      const victim = w[rng.int(0, w.length - 1)];
      if (kind === 1 && victim.intervals.length) victim.intervals[rng.int(0, victim.intervals.length - 1)] += rng.int(-2, 2);
      if (kind === 2 && victim.intervals.length) victim.intervals.splice(0, 2);
      if (kind === 3) victim.reads = [rng.int(0, numel), numel];
      const shortcut = tilesExactly(w, numel);
      if (shortcut) expect(clean(w, numel), JSON.stringify({ numel, w })).toBe(true);
      // An unbroken split into non-empty runs is what clean calls look like: the shortcut must take it.
      const unbroken = kind === 0 && bounds.every((b, i) => i === 0 || b > bounds[i - 1]);
      if (unbroken) expect(shortcut, JSON.stringify({ numel, w })).toBe(true);
    }
  });
});
