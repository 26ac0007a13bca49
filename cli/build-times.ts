// `--verbose` of run, check, profile and build: after a library was built, where the build's time went, stage by
// stage, as the compiler thread timed it (build/build-stages.ts): compiler start, compiling the kernel and the shape
// function, the device runtime, the link, each post-link pass, the optimiser, writing the library. On standard
// error, so that a command's output (and --json) stays as it is.
import { lastBuildTimes, type BuildTimes } from "../host/library/loader.js";
import { formatStages } from "../build/build-stages.js";

let shown: BuildTimes | null = null;

/** The lines of the breakdown of `times` (each prefixed as gpsimd's other build messages are). */
export function buildTimeLines(times: BuildTimes): string[] {
  return [`gpsimd: where the build of ${times.name} went (${times.millis.toFixed(0)} ms on the compiler thread):`, ...formatStages(times.stages, times.millis).map((l) => `gpsimd:   ${l}`)];
}

/** Prints the breakdown of the build of `name` just made, once; nothing when the library was up to date. */
export function showBuildTimes(name: string): void {
  const times = lastBuildTimes();
  if (!times || times === shown || times.name !== name) return;
  shown = times;
  process.stderr.write(`${buildTimeLines(times).join("\n")}\n`);
}
