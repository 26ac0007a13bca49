// Where the time from a save to its result went, for `gpsimd watch --verbose`: the wait for the save to settle,
// the command's work before the build (the up-to-date check, the registration check), the build on the compiler
// thread stage by stage (build/build-stages.ts; a detail under its stage, not counted twice), handing its answer
// back, and the rest of the command (loading the library onto the cores, the call or the check, printing).
import type { BuildRecord } from "../host/library/compile-service.js";
import { stagesTotal } from "../build/build-stages.js";
import { duration } from "./format.js";

/** The moments of one watch run (performance.now()). */
export interface RunMoments {
  /** The first change the run answers (the run's start, for the first run). */
  savedMs: number;
  /** The command started. */
  startMs: number;
  /** The command returned. */
  endMs: number;
}

/** The lines that split a run's time; `build` is the run's build, null when the library was up to date. */
export function runTimeLines(at: RunMoments, build: BuildRecord | null): string[] {
  const rows: [string, number][] = [["waiting for the save to settle", at.startMs - at.savedMs]];
  if (build) {
    const worker = build.answer.millis;
    rows.push(["before the build (up-to-date check, registration)", build.startMs - at.startMs]);
    rows.push([`build of ${build.name} on the compiler thread${build.optimizeLevel === undefined ? "" : ` (-O${build.optimizeLevel})`}`, worker]);
    const stages = build.answer.stages ?? [];
    // A detail (a post-link pass, build A or B of a stage running both) is a part of the stage listed before it:
    // shown under it, not added again ("between stages" is what no stage covers, as in build-stages.ts).
    const staged = stagesTotal(stages);
    for (const s of stages) rows.push([s.detail ? `    ${s.name}` : `  ${s.name}`, s.ms]);
    if (stages.length) rows.push(["  between stages", Math.max(0, worker - staged)]);
    rows.push(["handing the build back", build.endMs - build.startMs - worker]);
    rows.push(["loading onto the cores, the command's work, printing", at.endMs - build.endMs]);
  } else {
    rows.push(["the command (library up to date: no build)", at.endMs - at.startMs]);
  }
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, ms]) => `  ${name.padEnd(width)}  ${duration(Math.max(0, ms)).padStart(9)}`);
}
