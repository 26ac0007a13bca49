// The output's shared coverage table (host/cores/coverage-table.ts): each core of a multicore call enters its write
// intervals when its kernel returns and checks them against the cores that entered before it; the calling thread
// then reads a verdict and a covered count per core. The table may only say "clean" when the full check from the logs
// (checkCrossCore) finds nothing; an overlap must be found by whichever of two cores enters second.
import { describe, it, expect } from "vitest";
import { Worker } from "node:worker_threads";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { Rng } from "gpsimd";
import { checkCrossCore, type CoreWrites } from "../../host/checks/cross-core.js";
import { enterCoverage, enterCoreWrites, coverageClean, SLOT_WORDS, SLOT_RUNS, CLEAN, OVERLAP, UNDECIDED } from "../../host/cores/coverage-table.js";
import { CTX_WLOG, CTX_WLOG_COUNT, MAX_WLOG } from "../../host/device/layout.js";

const newTable = (cores = 8) => new Uint32Array(cores * SLOT_WORDS);

/** Every order of 0..n-1. */
function orders(n: number): number[][] {
  if (n === 1) return [[0]];
  return orders(n - 1).flatMap((o) => Array.from({ length: n }, (_, i) => [...o.slice(0, i), n - 1, ...o.slice(i)]));
}

/** Enters each core's writes in `order` for launch `seq`; returns the verdicts by core. */
function enterAll(table: Uint32Array, writes: number[][], order: number[], seq = 7, reads: number[][] = []): number[] {
  const verdicts: number[] = [];
  for (const core of order) verdicts[core] = enterCoverage(table, core, writes.length, seq, { writes: writes[core], reads: reads[core] ?? [] });
  return verdicts;
}

/** What the full check from the logs says. */
function fullCheckClean(writes: number[][], numel: number, reads: number[][] = []): boolean {
  const f = checkCrossCore(writes.map((intervals, core): CoreWrites => ({ core, intervals, reads: reads[core] })), numel);
  return !f.overlaps.length && !f.races.length && !f.unwritten;
}

describe("a clean call: the cores tile the output", () => {
  it("is clean in every order the cores enter, with runs in any order, touching runs and a core that wrote nothing", () => {
    const writes = [[0, 4], [10, 12, 4, 7], [], [7, 9, 9, 10]]; // core 1 logged its runs out of order, core 3 in two touching ones
    for (const order of orders(writes.length)) {
      const table = newTable();
      expect(enterAll(table, writes, order), `order ${order}`).toEqual([CLEAN, CLEAN, CLEAN, CLEAN]);
      expect(coverageClean(table, writes.length, 7, 12), `order ${order}`).toBe(true);
    }
  });

  it("an empty output written by no core is clean; the same cores with one element more to write are not", () => {
    const table = newTable();
    enterAll(table, [[], []], [1, 0]);
    expect(coverageClean(table, 2, 7, 0)).toBe(true);
    expect(coverageClean(table, 2, 7, 1)).toBe(false);
  });
});

describe("overlaps: found by whichever core enters second", () => {
  it("two cores writing the same elements: in every order, the later of the two says OVERLAP, and the call is not clean", () => {
    const writes = [[0, 6], [10, 12], [5, 8], [8, 10]]; // cores 0 and 2 both wrote [5, 6)
    for (const order of orders(writes.length)) {
      const table = newTable();
      const verdicts = enterAll(table, writes, order);
      const second = order.indexOf(0) > order.indexOf(2) ? 0 : 2;
      expect(verdicts[second], `order ${order}`).toBe(OVERLAP);
      expect(verdicts[2 - second], `order ${order}`).toBe(CLEAN); // it entered first: nothing to meet yet
      expect(verdicts[1], `order ${order}`).toBe(CLEAN);
      expect(verdicts[3], `order ${order}`).toBe(CLEAN);
      // Covered counts add up to 13 of 12 elements here, but the verdict alone already sends the call to the full check.
      expect(coverageClean(table, writes.length, 7, 12), `order ${order}`).toBe(false);
    }
  });

  it("an overlap that leaves the covered count exactly numel (a gap elsewhere) is not clean", () => {
    const writes = [[0, 5], [4, 9]]; // [4, 5) twice, [9, 10) unwritten: 10 elements counted for numel 10
    for (const order of orders(2)) {
      const table = newTable();
      enterAll(table, writes, order);
      expect(coverageClean(table, 2, 7, 10)).toBe(false);
    }
  });

  it("the same run entered by two cores, and a run inside another core's", () => {
    for (const writes of [[[0, 5], [0, 5], [5, 10]], [[0, 10], [3, 4], []]]) {
      for (const order of orders(writes.length)) {
        const table = newTable();
        expect(enterAll(table, writes, order), `${JSON.stringify(writes)} order ${order}`).toContain(OVERLAP);
        expect(coverageClean(table, writes.length, 7, 10)).toBe(false);
      }
    }
  });

  it("an entry of an earlier launch is not met: only this launch's seq counts", () => {
    const table = newTable();
    enterAll(table, [[0, 10], []], [0], 6); // launch 6: core 0 wrote everything
    const verdicts = enterAll(table, [[0, 5], [0, 5]], [1], 7); // launch 7: core 1 enters first; core 0's slot is launch 6's
    expect(verdicts[1]).toBe(CLEAN);
    expect(coverageClean(table, 2, 7, 5)).toBe(false); // core 0 has not entered launch 7
    expect(enterAll(table, [[5, 10], [0, 5]], [0], 7)[0]).toBe(CLEAN);
    expect(coverageClean(table, 2, 7, 10)).toBe(true);
  });
});

describe("gaps: the covered count decides", () => {
  it("elements unwritten at the start, in the middle and at the end: every core clean, the call not", () => {
    for (const writes of [[[1, 5], [5, 10]], [[0, 4], [5, 10]], [[0, 5], [5, 9]], [[], []]]) {
      for (const order of orders(2)) {
        const table = newTable();
        expect(enterAll(table, writes, order)).toEqual([CLEAN, CLEAN]);
        expect(coverageClean(table, 2, 7, 10), JSON.stringify(writes)).toBe(false);
      }
    }
  });

  it("writes past the end of the output are not clean even when the count matches", () => {
    const table = newTable();
    enterAll(table, [[0, 4], [6, 12]], [0, 1]); // 10 elements counted, [4, 6) unwritten, [10, 12) past the end
    expect(coverageClean(table, 2, 7, 10)).toBe(false);
  });
});

describe("what the table leaves to the calling thread", () => {
  it("a core that read the output (the race check is the calling thread's) and one with more runs than its slot holds", () => {
    const table = newTable();
    const verdicts = enterAll(table, [[0, 5], [5, 10]], [0, 1], 7, [[], [2, 3]]);
    expect(verdicts).toEqual([CLEAN, UNDECIDED]);
    expect(coverageClean(table, 2, 7, 10)).toBe(false);
    const runs: number[] = []; // SLOT_RUNS + 1 runs that do not touch
    for (let i = 0; i <= SLOT_RUNS; i++) runs.push(2 * i, 2 * i + 1);
    const t2 = newTable();
    expect(enterCoverage(t2, 0, 1, 7, { writes: runs, reads: [] })).toBe(UNDECIDED);
    expect(coverageClean(t2, 1, 7, 2 * SLOT_RUNS + 1)).toBe(false);
  });

  it("never says clean where the full check finds something, and takes every unbroken split (random cases, random orders)", () => {
    const rng = new Rng(22);
    for (let trial = 0; trial < 3000; trial++) {
      const numel = rng.int(0, 40);
      const bounds = [0, numel];
      for (let i = rng.int(0, 10); i > 0; i--) bounds.push(rng.int(0, numel));
      bounds.sort((a, b) => a - b);
      const cores = rng.int(1, 8);
      const writes: number[][] = Array.from({ length: cores }, () => []);
      for (let i = 0; i + 1 < bounds.length; i++) writes[rng.int(0, cores - 1)].push(bounds[i], bounds[i + 1]);
      const kind = rng.int(0, 4);
      const victim = writes[rng.int(0, cores - 1)];
      if (kind === 1 && victim.length) victim[rng.int(0, victim.length - 1)] += rng.int(-2, 2);
      if (kind === 2 && victim.length) victim.splice(0, 2);
      if (kind === 3) victim.push(rng.int(0, numel), rng.int(0, numel + 2)); // a run written again, or past the end
      const order = Array.from({ length: cores }, (_, i) => i);
      for (let i = cores - 1; i > 0; i--) { const j = rng.int(0, i); [order[i], order[j]] = [order[j], order[i]]; }
      const table = newTable();
      enterAll(table, writes, order, trial + 1);
      const clean = coverageClean(table, cores, trial + 1, numel);
      const context = JSON.stringify({ numel, writes, order });
      if (clean) expect(fullCheckClean(writes, numel), context).toBe(true);
      if (kind === 0) expect(clean, context).toBe(true);
    }
  });
});

describe("a core's entry from its context block's write log (enterCoreWrites)", () => {
  /** A context block at 0 whose log holds `runs`, with `count` as its entry count. */
  function logOf(runs: number[], count = runs.length / 2): DataView {
    const view = new DataView(new ArrayBuffer(CTX_WLOG + 8 * MAX_WLOG));
    view.setInt32(CTX_WLOG_COUNT, count, true);
    runs.forEach((v, i) => view.setUint32(CTX_WLOG + 4 * i, v, true));
    return view;
  }

  it("one run (the common case), several runs, runs drained during the run, and an empty log", () => {
    const table = newTable();
    expect(enterCoreWrites(table, 0, 4, 3, logOf([0, 8]), 0, [], [])).toBe(CLEAN);
    expect(enterCoreWrites(table, 1, 4, 3, logOf([12, 16, 8, 10]), 0, [], [])).toBe(CLEAN); // out of order
    expect(enterCoreWrites(table, 2, 4, 3, logOf([20, 24]), 0, [10, 12, 16, 20], [])).toBe(CLEAN); // drained first
    expect(enterCoreWrites(table, 3, 4, 3, logOf([]), 0, [], [])).toBe(CLEAN);
    expect(coverageClean(table, 4, 3, 24)).toBe(true);
    expect(enterCoreWrites(table, 3, 4, 4, logOf([23, 25]), 0, [], [])).toBe(CLEAN); // launch 4: the others not entered yet
    expect(coverageClean(table, 4, 4, 25)).toBe(false);
  });

  it("a drained run that meets another core's, and a log count the kernel overwrote (clamped as the calling thread clamps it)", () => {
    const table = newTable();
    expect(enterCoreWrites(table, 0, 2, 3, logOf([0, 4]), 0, [], [])).toBe(CLEAN);
    expect(enterCoreWrites(table, 1, 2, 3, logOf([6, 8]), 0, [3, 6], [])).toBe(OVERLAP);
    const table2 = newTable();
    expect(enterCoreWrites(table2, 0, 1, 3, logOf([0, 4], -5), 0, [], [])).toBe(CLEAN); // a negative count: no entries
    expect(coverageClean(table2, 1, 3, 0)).toBe(true);
    expect(enterCoreWrites(table2, 0, 1, 4, logOf([0, 4], 1 << 30), 0, [], [])).toBe(CLEAN); // past MAX_WLOG: the log's capacity
    expect(coverageClean(table2, 1, 4, 4)).toBe(true);
  });

  it("a core that read the output is UNDECIDED", () => {
    expect(enterCoreWrites(newTable(), 0, 1, 3, logOf([0, 4]), 0, [], [1, 2])).toBe(UNDECIDED);
  });
});

describe("cores entering at the same time on two threads", () => {
  it("an overlap is always found, whatever the interleaving (two threads, 20000 launches)", async () => {
    const LAUNCHES = 20_000;
    const shared = new SharedArrayBuffer(2 * SLOT_WORDS * 4 + 16);
    const table = new Uint32Array(shared, 16, 2 * SLOT_WORDS);
    const sync = new Int32Array(shared, 0, 4); // [0]: launch both threads may enter, [1]: threads done with it
    const verdicts = new Uint8Array(new SharedArrayBuffer(2 * LAUNCHES));
    const module = pathToFileURL(path.resolve("dist/host/cores/coverage-table.js")).href;
    // Core c writes [c * 5, c * 5 + 6): cores 0 and 1 meet at element 5, in every launch.
    const code = `
      const { workerData } = require("node:worker_threads");
      import(${JSON.stringify(module)}).then(({ enterCoverage }) => {
        const { shared, verdictBuffer, core, launches, slotWords } = workerData;
        const sync = new Int32Array(shared, 0, 4), table = new Uint32Array(shared, 16, 2 * slotWords), verdicts = new Uint8Array(verdictBuffer);
        for (let seq = 1; seq <= launches; seq++) {
          while (Atomics.load(sync, 0) < seq) {} // both threads start the launch together
          verdicts[2 * (seq - 1) + core] = enterCoverage(table, core, 2, seq, { writes: [core * 5, core * 5 + 6], reads: [] });
          if (Atomics.add(sync, 1, 1) === 1) { Atomics.store(sync, 1, 0); Atomics.add(sync, 0, 1); } // the second one done starts the next
        }
      });`;
    Atomics.store(sync, 0, 1);
    const threads = [0, 1].map((core) => new Worker(code, { eval: true, workerData: { shared, verdictBuffer: verdicts.buffer, core, launches: LAUNCHES, slotWords: SLOT_WORDS } }));
    await Promise.all(threads.map((t) => new Promise((resolve, reject) => { t.on("exit", resolve); t.on("error", reject); })));
    let both = 0;
    for (let i = 0; i < LAUNCHES; i++) {
      const [a, b] = [verdicts[2 * i], verdicts[2 * i + 1]];
      expect(a === OVERLAP || b === OVERLAP, `launch ${i + 1}: verdicts ${a}, ${b}`).toBe(true);
      if (a === OVERLAP && b === OVERLAP) both++;
    }
    expect(coverageClean(table, 2, LAUNCHES, 11)).toBe(false);
    console.log(`both cores found the overlap in ${both} of ${LAUNCHES} launches (the rest: only the later one)`);
  }, 60_000);
});
