// Cross-core checks of a multicore output: each core logs the element
// intervals it copied into the output (and, in multicore, those it read);
// afterwards no element may have been written by two cores, none read by a
// core while another core wrote it (the cores do not synchronise: the value
// read depends on timing), and every element must have been written by one.

/** Element intervals one core wrote, as [start, end, start, end, ...], and those it read. */
export interface CoreWrites { core: number; intervals: number[]; reads?: number[]; }

/** Elements [start, end) that `reader` read and `writer`, another core, wrote in the same call. */
export interface Race { reader: number; writer: number; start: number; end: number; }

/** Elements [start, end) written by both cores. */
export interface Overlap { cores: [number, number]; start: number; end: number; }

/** What the check found. */
export interface CrossCoreFindings {
  overlaps: Overlap[];
  races: Race[];
  /** Ranges [start, end) of the output that no core wrote. */
  gaps: [number, number][];
  /** For each gap, the core whose write ends where it starts (-1: none, the gap starts at 0) and the core whose write begins where it ends (-1: none). */
  gapNeighbours: [number, number][];
  unwritten: number;
}

/** Sorts and merges one core's intervals. */
function merged(intervals: number[]): [number, number][] {
  // A core whose copies each continued the last is one interval: the common case, on every call.
  if (intervals.length === 2) return intervals[1] > intervals[0] ? [[intervals[0], intervals[1]]] : [];
  const pairs: [number, number][] = [];
  for (let i = 0; i < intervals.length; i += 2) if (intervals[i + 1] > intervals[i]) pairs.push([intervals[i], intervals[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const p of pairs) {
    const last = out[out.length - 1];
    if (last && p[0] <= last[1]) last[1] = Math.max(last[1], p[1]);
    else out.push([p[0], p[1]]);
  }
  return out;
}

/** Intervals [start, end, ...] sorted and merged, in the same flat form. */
export function mergedIntervals(intervals: number[]): number[] {
  return merged(intervals).flat();
}

/**
 * True when the cores' writes tile [0, numel) exactly, each element written by one core, and no core read the output:
 * what every clean call of a kernel that splits its output into runs looks like. It decides only that case, without
 * allocating (a handful of intervals, on every call); anything else (a core writing the same elements twice, reads,
 * out-of-order runs past INLINE_RUNS) gets false, and checkCrossCore decides it in full.
 */
export function tilesExactly(writes: readonly CoreWrites[], numel: number): boolean {
  let runs = 0;
  for (const w of writes) {
    if (w.reads?.length) return false;
    runs += w.intervals.length >> 1;
  }
  if (runs > INLINE_RUNS) return false;
  // Walk the runs in order of their starts: each must begin where the one before ended.
  let covered = 0;
  for (let taken = 0; taken < runs; taken++) {
    let found = false;
    for (const w of writes) {
      const iv = w.intervals;
      for (let i = 0; i < iv.length; i += 2) {
        if (iv[i] !== covered) continue;
        if (iv[i + 1] <= covered) return false; // an empty run: let the full check sort it out
        covered = iv[i + 1];
        found = true;
        break;
      }
      if (found) break;
    }
    if (!found) return false;
  }
  return covered === numel;
}

/** Runs tilesExactly looks at; more (a core that logged many out-of-order runs) go to checkCrossCore. */
const INLINE_RUNS = 64;

/** Finds overlaps between cores and gaps in [0, numel). Reports at most `limit` of each. */
export function checkCrossCore(writes: CoreWrites[], numel: number, limit = 8): CrossCoreFindings {
  const all: { core: number; start: number; end: number }[] = [];
  for (const w of writes) for (const [start, end] of merged(w.intervals)) all.push({ core: w.core, start, end });
  all.sort((a, b) => a.start - b.start || a.core - b.core);
  const overlaps: Overlap[] = [];
  const gaps: [number, number][] = [];
  const gapNeighbours: [number, number][] = [];
  let unwritten = 0;
  let covered = 0; // everything below is written
  let owner = -1;  // the core whose interval reaches `covered`
  for (const iv of all) {
    if (iv.start > covered) {
      if (covered < numel) {
        const end = Math.min(iv.start, numel);
        unwritten += end - covered;
        if (gaps.length < limit) { gaps.push([covered, end]); gapNeighbours.push([owner, iv.core]); }
      }
    } else if (iv.start < covered && owner !== iv.core && overlaps.length < limit) {
      overlaps.push({ cores: [Math.min(owner, iv.core), Math.max(owner, iv.core)] as [number, number], start: iv.start, end: Math.min(covered, iv.end) });
    }
    if (iv.end > covered) { covered = iv.end; owner = iv.core; }
  }
  if (covered < numel) {
    unwritten += numel - covered;
    if (gaps.length < limit) { gaps.push([covered, numel]); gapNeighbours.push([owner, -1]); }
  }
  return { overlaps, races: findRaces(writes, limit), gaps, gapNeighbours, unwritten };
}

/**
 * Elements a core read that another core wrote (read-after-write and write-after-read alike: nothing orders them).
 * A core reading back what it wrote itself is fine. Reports at most `limit`, by reader, then element.
 */
function findRaces(cores: CoreWrites[], limit: number): Race[] {
  const races: Race[] = [];
  if (!cores.some((c) => c.reads?.length)) return races;
  const written = cores.map((c) => ({ core: c.core, intervals: merged(c.intervals) }));
  for (const reader of cores) {
    for (const [a, b] of merged(reader.reads ?? [])) {
      for (const w of written) {
        if (w.core === reader.core) continue;
        // The first of w's intervals (sorted, disjoint) that ends after a, then each that starts before b.
        let lo = 0, hi = w.intervals.length;
        while (lo < hi) { const mid = (lo + hi) >>> 1; if (w.intervals[mid][1] <= a) lo = mid + 1; else hi = mid; }
        for (let i = lo; i < w.intervals.length && w.intervals[i][0] < b; i++) {
          races.push({ reader: reader.core, writer: w.core, start: Math.max(a, w.intervals[i][0]), end: Math.min(b, w.intervals[i][1]) });
          if (races.length >= limit) return races;
        }
      }
    }
  }
  return races;
}
