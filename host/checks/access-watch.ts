// Which kernel statement made an access: the cross-core checks see element ranges, not statements (the write and
// read logs keep no call sites, so they cost nothing per call). When a check fails, the call is run again on the
// calling thread (host/cores/locate-rerun.ts) with FLAG_WATCH: the kernel library then reports every access of the
// output to the host (assembly/writelog.ts), and an access that touches a watched range is named here by the
// kernel statement that made it (the stack of the host import, as for any violation). Only the first access of each
// target takes a stack walk.
import type { SourcePlace } from "./source-locator.js";

/** Access kinds as the kernel library reports them (assembly/writelog.ts ACCESS_READ, ACCESS_WRITE). */
export const ACCESS_READ = 0;
export const ACCESS_WRITE = 1;

/** An access to name: the first one `core` makes of `kind` that touches elements [start, end). */
export interface WatchTarget { core: number; kind: "read" | "write"; start: number; end: number; }

/** What a watched access turned out to be: its statement and the elements it touched. */
export interface WatchedAccess { place: SourcePlace | null; start: number; end: number; }

/** The targets of one rerun, and the first access found for each. */
export class AccessWatch {
  readonly found: (WatchedAccess | undefined)[];

  constructor(readonly targets: readonly WatchTarget[]) {
    this.found = targets.map(() => undefined);
  }

  /** An access the kernel library reported: `place` is called (a stack walk) only for a target's first hit. */
  record(core: number, kind: number, start: number, end: number, place: () => SourcePlace | null): void {
    const name = kind === ACCESS_READ ? "read" : "write";
    let at: SourcePlace | null | undefined;
    this.targets.forEach((t, i) => {
      if (this.found[i] || t.core !== core || t.kind !== name || start >= t.end || end <= t.start) return;
      at ??= place();
      this.found[i] = { place: at, start, end };
    });
  }
}

let active: AccessWatch | null = null;

/** The watch of the rerun in progress on this thread, if any. */
export function activeWatch(): AccessWatch | null {
  return active;
}

/** Runs `run` with `watch` active (accesses the kernel library reports go to it). */
export function withWatch<T>(watch: AccessWatch, run: () => T): T {
  active = watch;
  try {
    return run();
  } finally {
    active = null;
  }
}
