// The error of a call whose accesses to the output do not fit together (host/checks/cross-core.ts): in a multicore
// call two cores wrote the same elements (CrossCoreWriteError) or a core read elements another wrote
// (CrossCoreRaceError); in any call some elements were never written (UnwrittenOutputError: by no core, or by the
// single-core kernel). Each names the statements that made the accesses, once a rerun of the call has found them
// (locate-rerun.ts): the error carries the accesses to look for, and `withPlaces` words it again with what was found.
import { CrossCoreWriteError, CrossCoreRaceError, UnwrittenOutputError, type GpsimdError } from "../checks/errors.js";
import { describePlace, functionName, type SourcePlace } from "../checks/source-locator.js";
import type { CrossCoreFindings } from "../checks/cross-core.js";
import type { WatchTarget, WatchedAccess } from "../checks/access-watch.js";
import type { Tensor } from "../device/tensor.js";

/** A cross-core error before its statements are known: the accesses that name them, and how to word it with them. */
export interface PendingPlaces {
  targets: WatchTarget[];
  /** The error again, each target's access (undefined: the rerun did not make it) in its message and details. */
  withPlaces(found: readonly (WatchedAccess | undefined)[]): GpsimdError;
}

/** Errors thrown before their places are known, with how to find them. */
const pending = new WeakMap<GpsimdError, PendingPlaces>();

/** What it takes to name the statements of a cross-core error (null: not such an error, or nothing to look for). */
export function pendingPlaces(e: unknown): PendingPlaces | null {
  return e && typeof e === "object" ? pending.get(e as GpsimdError) ?? null : null;
}

/** The call's cross-core error, or null: an overlap first, then a race, then output elements no core wrote. */
export function crossCoreError(op: string, f: CrossCoreFindings, out: Tensor): GpsimdError | null {
  if (!f.overlaps.length && !f.races.length && !f.unwritten) return null; // before any text is made: most calls are clean
  const tensor = `output (${out.describe()})`;
  const gapsNote = f.unwritten ? `\nalso: ${describeGaps(f, true)}` : "";
  if (f.overlaps.length) {
    const o = f.overlaps[0];
    const text = `${op}: cores ${o.cores[0]} and ${o.cores[1]} both wrote output elements [${o.start}, ${o.end}) of ${out.describe()}; each core must write a disjoint part of get_dst_tensor()${f.overlaps.slice(1).map((x) => `\nalso: cores ${x.cores[0]} and ${x.cores[1]} both wrote [${x.start}, ${x.end})`).join("")}${gapsNote}`;
    const details = { tensor, overlaps: f.overlaps, gaps: f.gaps, unwritten: f.unwritten, races: f.races };
    const make = (message: string, more: object) => new CrossCoreWriteError("E_CROSS_CORE_OVERLAP", message, { op, core: o.cores[1], details: { ...details, ...more } });
    const targets: WatchTarget[] = [
      { core: o.cores[0], kind: "write", start: o.start, end: o.end },
      { core: o.cores[1], kind: "write", start: o.start, end: o.end },
    ];
    return withPending(make(text, {}), targets, (found) => {
      const lines = targets.map((t, i) => `core ${t.core} ${accessText(t, found[i])}`).join("; ");
      return make(`${text}\n${lines}`, placeDetails(targets, found, 1));
    });
  }
  if (f.races.length) {
    const r = f.races[0];
    const more = f.races.slice(1).map((x) => `\nalso: core ${x.reader} read [${x.start}, ${x.end}), which core ${x.writer} wrote`).join("");
    const text = `${op}: core ${r.reader} read output elements [${r.start}, ${r.end}) of ${out.describe()}, which core ${r.writer} wrote in the same call; the cores do not synchronise, so what the read returns depends on timing (read-after-write or write-after-read between cores): a core may read back only elements it writes itself${more}${gapsNote}`;
    const details = { tensor, reader: r.reader, writer: r.writer, start: r.start, end: r.end, races: f.races, gaps: f.gaps, unwritten: f.unwritten };
    const make = (message: string, more: object) => new CrossCoreRaceError("E_CROSS_CORE_RACE", message, { op, core: r.reader, details: { ...details, ...more } });
    const targets: WatchTarget[] = [
      { core: r.reader, kind: "read", start: r.start, end: r.end },
      { core: r.writer, kind: "write", start: r.start, end: r.end },
    ];
    return withPending(make(text, {}), targets, (found) => {
      const lines = targets.map((t, i) => `core ${t.core} ${accessText(t, found[i])}`).join("; ");
      return make(`${text}\n${lines}`, placeDetails(targets, found, 0));
    });
  }
  if (f.unwritten) return unwrittenOutputError(op, f, out, true);
  return null;
}

/**
 * The error of an output with elements never written (by no core of a multicore call, or by a single-core kernel):
 * the ranges, and the writes nearest the first gap, found by a rerun: the last one that ended where the gap starts
 * and the first one that starts where it ends.
 */
export function unwrittenOutputError(op: string, f: CrossCoreFindings, out: Tensor, multicore: boolean): GpsimdError {
  const rule = multicore ? "every element of get_dst_tensor() must be written by exactly one core"
    : "the output is not initialised (as on the device): the kernel must write every element of get_dst_tensor()";
  const text = `${op}: ${describeGaps(f, multicore)} of ${out.describe()}; ${rule}`;
  const details = { tensor: `output (${out.describe()})`, gaps: f.gaps, unwritten: f.unwritten };
  const make = (message: string, more: object) => new UnwrittenOutputError("E_UNWRITTEN_OUTPUT", message, { op, details: { ...details, ...more } });
  const [start, end] = f.gaps[0];
  const [before, after] = f.gapNeighbours[0];
  // Gaps lie between writes, so a gap with a write on neither side is the whole output.
  if (before < 0 && after < 0) return make(`${text}\n${multicore ? "no core wrote" : "the kernel made no write"} to get_dst_tensor() at all`, { places: [] });
  // The watch names the first access that touches a target, so each target is the one element next to the gap that
  // the check saw written: any write touching it ends exactly at the gap's start (or begins at its end), the nearest
  // a write can be. Watching the gap itself would find nothing, and watching the whole output, or the gap widened by
  // more than one element, could name a write farther away (the first to touch it, not the nearest).
  const sides: { side: "before" | "after"; target: WatchTarget; element: number }[] = [];
  if (before >= 0) sides.push({ side: "before", target: { core: before, kind: "write", start: start - 1, end: start }, element: start - 1 });
  if (after >= 0) sides.push({ side: "after", target: { core: after, kind: "write", start: end, end: end + 1 }, element: end });
  const targets = sides.map((s) => s.target);
  return withPending(make(text, {}), targets, (found) => {
    // A rerun whose write reaches into the gap did not write as the call did: its statement is not the one sought.
    const kept = sides.map((s, i) => {
      const a = found[i];
      return a && (s.side === "before" ? a.end <= start : a.start >= end) ? a : undefined;
    });
    const lines = sides.map((s, i) => {
      const heading = s.side === "before" ? `the last write before [${start}, ${end})` : `the first write after ${i ? "it" : `[${start}, ${end})`}`;
      const who = multicore ? `core ${s.target.core}` : "the kernel";
      const access = kept[i];
      return access ? `${heading}: ${who} wrote [${access.start}, ${access.end})${access.place ? describePlace(access.place) : ""}`
        : `${heading}: ${who} wrote element ${s.element} (its statement was not found again in a rerun)`;
    });
    const placed = placeDetails(targets, kept, 0);
    const places = (placed.places as object[]).map((p, i) => ({ side: sides[i].side, ...p }));
    return make(`${text}\n${lines.join("; ")}`, { ...placed, places });
  });
}

/** "3 output elements were never written: [5, 8)" (single core), "... were written by no core: ..." (multicore). */
export function describeGaps(f: CrossCoreFindings, multicore: boolean): string {
  return `${f.unwritten} output element${f.unwritten === 1 ? " was" : "s were"} ${multicore ? "written by no core" : "never written"}: ${f.gaps.map(([a, b]) => `[${a}, ${b})`).join(", ")}${f.gaps.length >= 8 ? ", ..." : ""}`;
}

function withPending(e: GpsimdError, targets: WatchTarget[], withPlaces: PendingPlaces["withPlaces"]): GpsimdError {
  pending.set(e, { targets, withPlaces });
  return e;
}

/** "wrote [2, 16) at giou (giou.cpp:52:9)" */
function accessText(t: WatchTarget, access: WatchedAccess | undefined): string {
  const verb = t.kind === "read" ? "read" : "wrote";
  if (!access) return `${verb} them (its statement was not found again in a rerun)`;
  return `${verb} [${access.start}, ${access.end})${access.place ? describePlace(access.place) : ""}`;
}

/** Each target's statement in details.places, and the main one's (index `main`) as the error's own file, line and column. */
function placeDetails(targets: WatchTarget[], found: readonly (WatchedAccess | undefined)[], main: number): Record<string, unknown> {
  const places = targets.map((t, i) => ({ core: t.core, access: t.kind, ...(found[i] ? { start: found[i]!.start, end: found[i]!.end } : {}), ...placeFields(found[i]?.place ?? null) }));
  return { places, ...placeFields(found[main]?.place ?? null) };
}

function placeFields(place: SourcePlace | null): Record<string, unknown> {
  return place ? { function: functionName(place), file: place.file ?? undefined, line: place.file ? place.line : undefined, column: place.file ? place.column : undefined } : {};
}
