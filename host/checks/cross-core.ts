// Cross-core checks of a multicore output: each core logs the element
// intervals it copied into the output; afterwards no element may have been
// written by two cores, and every element must have been written by one.

/** Element intervals one core wrote, as [start, end, start, end, ...]. */
export interface CoreWrites { core: number; intervals: number[]; }

/** Elements [start, end) written by both cores. */
export interface Overlap { cores: [number, number]; start: number; end: number; }

/** What the check found. */
export interface CrossCoreFindings {
  overlaps: Overlap[];
  /** Ranges [start, end) of the output that no core wrote. */
  gaps: [number, number][];
  unwritten: number;
}

/** Sorts and merges one core's intervals. */
function merged(intervals: number[]): [number, number][] {
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

/** Finds overlaps between cores and gaps in [0, numel). Reports at most `limit` of each. */
export function checkCrossCore(writes: CoreWrites[], numel: number, limit = 8): CrossCoreFindings {
  const all: { core: number; start: number; end: number }[] = [];
  for (const w of writes) for (const [start, end] of merged(w.intervals)) all.push({ core: w.core, start, end });
  all.sort((a, b) => a.start - b.start || a.core - b.core);
  const overlaps: Overlap[] = [];
  const gaps: [number, number][] = [];
  let unwritten = 0;
  let covered = 0; // everything below is written
  let owner = -1;  // the core whose interval reaches `covered`
  for (const iv of all) {
    if (iv.start > covered) {
      if (covered < numel) {
        const end = Math.min(iv.start, numel);
        unwritten += end - covered;
        if (gaps.length < limit) gaps.push([covered, end]);
      }
    } else if (iv.start < covered && owner !== iv.core && overlaps.length < limit) {
      overlaps.push({ cores: [Math.min(owner, iv.core), Math.max(owner, iv.core)] as [number, number], start: iv.start, end: Math.min(covered, iv.end) });
    }
    if (iv.end > covered) { covered = iv.end; owner = iv.core; }
  }
  if (covered < numel) {
    unwritten += numel - covered;
    if (gaps.length < limit) gaps.push([covered, numel]);
  }
  return { overlaps, gaps, unwritten };
}
