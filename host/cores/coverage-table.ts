// The output's shared coverage table: each core of a multicore launch with cross-core checks, when its kernel
// returns, enters its merged write intervals here and checks them against those the other cores entered, so that on
// a clean call the calling thread reads one word of verdict and a count of covered elements per core instead of
// reading and merging every core's write log (host/cores/outcome.ts). Anything the table cannot decide (an overlap,
// a gap, reads of the output, more runs than a slot holds) is left to the calling thread's full check from the logs,
// which words every error as before: the table only ever says "clean".
//
// Ordering (cores finish concurrently, on two or more threads). Every core enters in three steps:
//   1. it writes its intervals, its covered count and its largest end into its own slot, and PENDING as its verdict;
//   2. it publishes the slot: Atomics.store of the launch's seq into the slot's seq word;
//   3. it reads every other slot's seq word (Atomics.load); for each that holds this launch's seq it checks that
//      slot's intervals against its own; then it stores its verdict, CLEAN or OVERLAP (Atomics.store).
// Atomics are sequentially consistent: all the publishing stores and the loads of step 3 fall in one total order.
// Of two cores A and B, say A publishes first; B loads A's seq word after its own publish, so after A's, and sees
// it: B checks A's intervals (which A wrote before publishing, so B, having read A's publish, sees them). An overlap
// is therefore found by whichever of the two cores enters second (by both, if their loads both come late). A core
// that enters no slot (its kernel failed, it was never started) leaves an older seq there and its verdict unread.
// The calling thread reads the slots only after the launch's C_DONE count reached the core count: each core stores
// its verdict before it counts itself done (executor.ts), so the calling thread sees every verdict of the launch.
//
// Gaps: each clean core's intervals are merged (disjoint), and no two cores' intervals meet (no OVERLAP), so the
// elements covered are the sum of the cores' covered counts. When that sum is the output's element count and no
// interval ends past it, every element was written exactly once: the cores tile the output.
//
// The table lives in the pool's control block (protocol.ts), which the kernels cannot reach: only host code on the
// core threads writes it.
import { mergedIntervals } from "../checks/cross-core.js";
import { CTX_WLOG, CTX_WLOG_COUNT, MAX_WLOG } from "../device/layout.js";

/** Intervals one core's slot holds; a core with more merged runs than this leaves the decision to the calling thread. */
export const SLOT_RUNS = 16;

// Words of a slot (Uint32).
const S_SEQ = 0;      // the launch whose entry this is; written last of the entry (the publish)
const S_VERDICT = 1;  // PENDING, CLEAN, OVERLAP or UNDECIDED
const S_COVERED = 2;  // elements in the core's merged intervals
const S_END = 3;      // the largest end of its intervals (0 for none)
const S_RUNS = 4;     // how many intervals follow
const S_START = 5;    // the first interval's start (0 for none): with S_END, the span every interval lies in
const S_INTERVALS = 6; // [start, end) pairs, sorted and disjoint
/** Words per core slot. */
export const SLOT_WORDS = S_INTERVALS + 2 * SLOT_RUNS;

/** A core's verdict on its own entry. */
export const PENDING = 0;
/** No interval of this core meets one of a core that entered before it. */
export const CLEAN = 1;
/** An interval of this core meets one of another core's. */
export const OVERLAP = 2;
/** The table cannot decide for this core (reads of the output, too many runs): the calling thread checks in full. */
export const UNDECIDED = 3;

/** Bytes of the table for `cores` cores. */
export function coverageTableBytes(cores: number): number {
  return cores * SLOT_WORDS * 4;
}

/** What one core wrote and read of the output in this launch. */
export interface CoreEntry {
  /** Intervals [start, end, ...] as logged (any order, possibly touching or repeated). */
  writes: number[];
  /** Intervals it read: any makes the core UNDECIDED (the race check is the calling thread's). */
  reads: number[];
}

/**
 * Core `core`'s side, when its kernel has returned: enters its writes for launch `seq` and checks them against every
 * other core of the `cores` that entered before it (see the ordering argument above). Returns its verdict.
 */
export function enterCoverage(table: Uint32Array, core: number, cores: number, seq: number, entry: CoreEntry): number {
  const w = entry.writes;
  const runs = w.length === 2 ? (w[1] > w[0] ? w : []) : mergedIntervals(w);
  const base = core * SLOT_WORDS;
  if (entry.reads.length > 0 || runs.length > 2 * SLOT_RUNS) return enterUndecided(table, base, seq);
  for (let i = 0; i < runs.length; i++) table[base + S_INTERVALS + i] = runs[i];
  return publishAndCheck(table, core, cores, seq, runs.length >> 1);
}

/**
 * Steps 2 and 3 for a slot whose intervals (step 1) are written: its covered count and end, the publish, the check
 * against the slots published before. Only the publish and the loads of the other seq words need to be atomic (their
 * total order is the argument above); the other words are ordered by them, and the verdict by the core's count of
 * itself as done, which the calling thread reads before it reads the table.
 */
function publishAndCheck(table: Uint32Array, core: number, cores: number, seq: number, count: number): number {
  const base = core * SLOT_WORDS;
  let covered = 0;
  for (let i = base + S_INTERVALS; i < base + S_INTERVALS + 2 * count; i += 2) covered += table[i + 1] - table[i];
  const start = count ? table[base + S_INTERVALS] : 0, end = count ? table[base + S_INTERVALS + 2 * count - 1] : 0;
  table[base + S_VERDICT] = PENDING; // never a stale verdict beside this launch's seq
  table[base + S_COVERED] = covered;
  table[base + S_START] = start;
  table[base + S_END] = end;
  table[base + S_RUNS] = count;
  Atomics.store(table, base + S_SEQ, seq);
  let verdict = CLEAN;
  if (count) {
    for (let other = 0, at = 0; other < cores; other++, at += SLOT_WORDS) {
      if (other === core || Atomics.load(table, at + S_SEQ) !== seq) continue;
      // Spans apart (the common case: each core's part of the output) meet nowhere; one run each is its span.
      if (start >= table[at + S_END] || table[at + S_START] >= end) continue;
      const runs = table[at + S_RUNS];
      if ((count === 1 && runs === 1) || meets(table, base + S_INTERVALS, count, at + S_INTERVALS, runs)) { verdict = OVERLAP; break; }
    }
  }
  table[base + S_VERDICT] = verdict;
  return verdict;
}

/** A slot the table cannot decide (reads, too many runs): published with no intervals, so no other core meets it. */
function enterUndecided(table: Uint32Array, base: number, seq: number): number {
  table[base + S_VERDICT] = UNDECIDED;
  table[base + S_COVERED] = 0;
  table[base + S_START] = 0;
  table[base + S_END] = 0;
  table[base + S_RUNS] = 0;
  Atomics.store(table, base + S_SEQ, seq);
  return UNDECIDED;
}

/** Whether two sorted, disjoint lists of intervals in the table share an element. */
function meets(table: Uint32Array, a: number, na: number, b: number, nb: number): boolean {
  let i = 0, j = 0;
  while (i < na && j < nb) {
    const aStart = table[a + 2 * i], aEnd = table[a + 2 * i + 1];
    const bStart = table[b + 2 * j], bEnd = table[b + 2 * j + 1];
    if (aStart < bEnd && bStart < aEnd) return true;
    if (aEnd <= bEnd) i++;
    else j++;
  }
  return false;
}

/**
 * The calling thread's side, once every core of launch `seq` is done: true when every one of the `cores` entered a
 * CLEAN verdict for this launch and together they cover [0, numel) exactly. False means "not decided here": the
 * calling thread then checks the logs in full (which finds what is wrong, if anything).
 */
export function coverageClean(table: Uint32Array, cores: number, seq: number, numel: number): boolean {
  // Plain reads: every core's entry happens-before the calling thread's load of the launch's completion.
  let covered = 0;
  for (let at = 0; at < cores * SLOT_WORDS; at += SLOT_WORDS) {
    if (table[at + S_SEQ] !== seq || table[at + S_VERDICT] !== CLEAN || table[at + S_END] > numel) return false;
    covered += table[at + S_COVERED];
  }
  return covered === numel;
}

/**
 * enterCoverage for a core whose kernel just returned: its writes are those drained from its log during the run and
 * those still in its context block's log (CTX_WLOG, read as the calling thread reads it), its reads as the run left
 * them. The common case, one run in the log and nothing drained, goes into the table without an array.
 */
export function enterCoreWrites(table: Uint32Array, core: number, cores: number, seq: number, view: DataView, ctx: number, drained: number[], reads: number[]): number {
  const n = Math.min(Math.max(view.getInt32(ctx + CTX_WLOG_COUNT, true), 0), MAX_WLOG); // kernel-writable: clamped, as writeLogCount does
  if (drained.length === 0 && reads.length === 0 && n <= 1) {
    const base = core * SLOT_WORDS;
    const start = n ? view.getUint32(ctx + CTX_WLOG, true) : 0, end = n ? view.getUint32(ctx + CTX_WLOG + 4, true) : 0;
    table[base + S_INTERVALS] = start;
    table[base + S_INTERVALS + 1] = end;
    return publishAndCheck(table, core, cores, seq, end > start ? 1 : 0);
  }
  const writes = drained.slice();
  for (let i = 0; i < n; i++) writes.push(view.getUint32(ctx + CTX_WLOG + 8 * i, true), view.getUint32(ctx + CTX_WLOG + 8 * i + 4, true));
  return enterCoverage(table, core, cores, seq, { writes, reads });
}
