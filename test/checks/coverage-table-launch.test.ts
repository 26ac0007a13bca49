// The cores of real multicore calls enter the output's coverage table (host/cores/coverage-table.ts) when their
// kernels return: a clean call is decided there (the calling thread then reads no write log), an overlap is found by
// a core, a gap by the covered count, and the errors stay those of the full check (test/errors/cross-core-races).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import path from "node:path";
import { custom_op, ops, randn, shutdown, type Library, CrossCoreWriteError, UnwrittenOutputError } from "gpsimd";
import { loadOp } from "gpsimd/ops";
import { corePool } from "../../dist/host/cores/pool.js";
import { C_COMPLETE, C_COVERAGE_BYTE_OFFSET } from "../../dist/host/cores/protocol.js";
import { coverageClean, SLOT_WORDS, CLEAN, OVERLAP, UNDECIDED } from "../../dist/host/cores/coverage-table.js";
import { FIXTURES_DIR, TEST_BUILD_DIR, thrown } from "../helpers.js";

const N = 1000; // 8 cores of 125 elements

/** The pool's control block (private to the pool: read here to see what the cores entered). */
const control = () => (corePool() as unknown as { control: Int32Array }).control;
/** The last launch's seq and each core's verdict in the table. */
function lastLaunch(cores: number): { seq: number; verdicts: number[]; table: Uint32Array } {
  const c = control();
  const table = new Uint32Array(c.buffer, C_COVERAGE_BYTE_OFFSET);
  const seq = Atomics.load(c, C_COMPLETE);
  return { seq, table, verdicts: Array.from({ length: cores }, (_, k) => (table[k * SLOT_WORDS] === seq ? table[k * SLOT_WORDS + 1] : -1)) };
}

let races: Library;
beforeAll(() => {
  races = custom_op.load({
    name: "cc_races", compute_srcs: [path.join(FIXTURES_DIR, "cross-core-races", "kernels.ts")], shape_srcs: [path.join(FIXTURES_DIR, "cross-core-races", "register.ts")],
    build_directory: TEST_BUILD_DIR, multicore: true, threads: 2,
  });
}, 120_000);
afterAll(async () => { races?.unload(); await shutdown(); });

describe("cores enter their writes when their kernels return", () => {
  it("a clean call (ReLU on 8 cores): every core CLEAN for this launch, and the table covers the output", () => {
    const relu = loadOp("relu_multicore");
    const x = randn([32, 4096], { seed: 5 });
    for (let call = 0; call < 20; call++) {
      const y = ops.relu_multicore.relu_forward(x);
      const { seq, verdicts, table } = lastLaunch(relu.cores);
      expect(verdicts).toEqual(Array(relu.cores).fill(CLEAN));
      expect(coverageClean(table, relu.cores, seq, x.numel())).toBe(true);
      y.dispose();
    }
  });

  it("two cores writing the same elements: a core says OVERLAP, and the error is the full check's", () => {
    expect(thrown(() => ops.cc_races.overlapping(randn([N], { seed: 8 })))).toBeInstanceOf(CrossCoreWriteError);
    // The call ran again to find the statements (FLAG_WATCH: nothing entered), so the table still holds the call's own launch.
    const c = control(), table = new Uint32Array(c.buffer, C_COVERAGE_BYTE_OFFSET);
    const seqs = Array.from({ length: races.cores }, (_, k) => table[k * SLOT_WORDS]);
    expect(new Set(seqs).size).toBe(1);
    const verdicts = Array.from({ length: races.cores }, (_, k) => table[k * SLOT_WORDS + 1]);
    expect(verdicts).toContain(OVERLAP);
    expect(coverageClean(table, races.cores, seqs[0], N)).toBe(false);
  });

  it("elements no core wrote: every core CLEAN, the covered count short, and the error is the full check's", () => {
    expect(thrown(() => ops.cc_races.short_last(randn([N], { seed: 9 })))).toBeInstanceOf(UnwrittenOutputError);
    const c = control(), table = new Uint32Array(c.buffer, C_COVERAGE_BYTE_OFFSET);
    const seq = table[0];
    expect(Array.from({ length: races.cores }, (_, k) => [table[k * SLOT_WORDS], table[k * SLOT_WORDS + 1]])).toEqual(Array(races.cores).fill([seq, CLEAN]));
    expect(coverageClean(table, races.cores, seq, N)).toBe(false);
    expect(coverageClean(table, races.cores, seq, N - 5)).toBe(true); // what the cores wrote is [0, 995) exactly
  });

  it("a core that reads the output leaves the call to the calling thread (UNDECIDED), which finds it clean", () => {
    const x = randn([N], { seed: 3 });
    const y = ops.cc_races.own_second_pass(x);
    const { verdicts } = lastLaunch(races.cores);
    expect(verdicts).toEqual(Array(races.cores).fill(UNDECIDED));
    y.dispose();
  });
});
