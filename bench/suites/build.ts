// How long builds take, as a kernel author meets them: edit -> result in `gpsimd watch` (a rebuild of a changed
// source and one call, compiler thread resident) for the seed's corrected giou.cpp + shape.cpp (C++, multicore) and
// for ops/giou multicore (AssemblyScript); a cold `gpsimd run` process with an empty cache folder; a cached load of
// an up-to-date library. The floor is g++ -std=c++14 -O2 -c of the same two C++ files (bench/build-timing.ts),
// timed in the same rounds. Each target is printed with the ratio of this run and "met" or its gap, and the C++
// build's stages (gpsimd ... --verbose) beside it, so a gap is explained.
import path from "node:path";
import { copyFileSync } from "node:fs";
import { custom_op } from "gpsimd";
import { seedCpp } from "../../examples/seeds-cpp.js";
import { PACKAGE_ROOT } from "../../ops/index.js";
import { WatchChild, cliProcess, breakdownIn, freshFolder, gxxHeaders, gxxMillis, hasGxx, load, median, WORK } from "../build-timing.js";
import type { Suite } from "../suite.js";

/** Edits timed per watch (after its first run). */
const ROUNDS = 3;
/** The longest a single run may take before the suite gives up (a cold build on a loaded machine takes minutes). */
const RUN_TIMEOUT_MS = 600_000;

const TARGET = { cppEditMs: 2000, cppEditVsGxx: 6, coldMs: 10_000, cachedMs: 50, ascEditMs: 500 };

function verdictLine(what: string, value: string, ok: boolean, gap: string): string {
  return `${what}: ${value} -> ${ok ? "met" : `NOT met (${gap})`}`;
}

/** The seed's corrected GIOU as C++ files of their own (so an edit touches nothing tracked). */
function cppCopy(): { kernel: string; shape: string; dir: string } {
  const dir = freshFolder("cpp-giou");
  const kernel = path.join(dir, "giou_fixed.cpp"), shape = path.join(dir, "shape.cpp");
  copyFileSync(seedCpp("giou-fixed.cpp"), kernel);
  copyFileSync(seedCpp("shape.cpp"), shape);
  return { kernel, shape, dir };
}

/** ops/giou's multicore variant as an operator folder of its own. */
function ascCopy(): { folder: string; kernel: string } {
  const folder = freshFolder("giou");
  for (const f of ["multicore.ts", "giou-f32x4.ts", "register-multicore.ts", "shape.ts"]) copyFileSync(path.join(PACKAGE_ROOT, "ops", "giou", f), path.join(folder, f));
  return { folder, kernel: path.join(folder, "multicore.ts") };
}

const GIOU_ARGS = ["giou", "--shape", "64,256,4", "--shape", "64,256,4", "--values", "boxes"];

export const buildSuite: Suite = {
  name: "build",
  title: "Build times: edit -> result in gpsimd watch (C++ giou.cpp + shape.cpp, AssemblyScript ops/giou), cold CLI, cached load",
  notes: [
    "edit -> result: a comment appended to the kernel file of a running `gpsimd watch run` (child process), timed from the write to the watch's verdict line (a rebuild and one call of 64 x 256 box pairs, multicore).",
    "floor: g++ -std=c++14 -O2 -c of the same giou.cpp and shape.cpp against gpsimd's headers with = delete(\"...\") reduced to = delete, timed in the same rounds.",
    "cold: `gpsimd run` of the C++ files in a new process with an empty cache folder (the device runtime is compiled first). cached: custom_op.load of the up-to-date library, in this process.",
    "Every figure comes with the 1-minute load average when it was taken (2 vCPUs shared with other work).",
  ],
  // Everything is measured here, in setup: the suite has no workloads for the harness to time (its runs are processes).
  async setup() {
    // Progress as it comes; the targets and breakdowns together at the end.
    const lines: string[] = [];
    const progress = (l: string) => console.log(`  ${l}`);
    const say = (l: string) => { lines.push(l); };
    const both = (l: string) => { progress(l); say(l); };
    const cpp = cppCopy();
    const gxxInclude = hasGxx() ? gxxHeaders() : null;
    const gxx = () => (gxxInclude ? gxxMillis([cpp.kernel, cpp.shape], gxxInclude) : NaN);

    // C++ edit -> result, each round beside its g++ floor.
    const cppOut = freshFolder("cpp-out");
    const cppWatch = new WatchChild([cpp.kernel, cpp.shape, ...GIOU_ARGS, "--multicore", "--out", cppOut, "--verbose"]);
    const cppRounds: { ms: number; gxx: number; load: string; output: string }[] = [];
    try {
      const first = await cppWatch.started(RUN_TIMEOUT_MS);
      both(`C++ watch started: first run ${(first.ms / 1000).toFixed(1)} s (${first.verdict}), load ${load()}`);
      for (let i = 0; i < ROUNDS; i++) {
        const floor = gxx();
        const run = await cppWatch.edit(cpp.kernel, `// edit ${i}\n`, RUN_TIMEOUT_MS);
        if (run.verdict !== "ok") throw new Error(`the C++ rebuild ended "${run.verdict}":\n${run.output}`);
        cppRounds.push({ ms: run.ms, gxx: floor, load: load(), output: run.output });
        both(`  C++ edit ${i + 1}: ${(run.ms / 1000).toFixed(2)} s, g++ floor ${(floor / 1000).toFixed(2)} s (ratio ${(run.ms / floor).toFixed(1)}x), load ${load()}`);
      }
    } finally {
      cppWatch.stop();
    }

    // AssemblyScript edit -> result.
    const asc = ascCopy();
    const ascOut = freshFolder("asc-out");
    const ascWatch = new WatchChild([asc.folder, ...GIOU_ARGS, "--out", ascOut]);
    const ascRounds: number[] = [];
    try {
      const first = await ascWatch.started(RUN_TIMEOUT_MS);
      both(`AssemblyScript watch started: first run ${(first.ms / 1000).toFixed(1)} s (${first.verdict}), load ${load()}`);
      for (let i = 0; i < ROUNDS; i++) {
        const run = await ascWatch.edit(asc.kernel, `// edit ${i}\n`, RUN_TIMEOUT_MS);
        if (run.verdict !== "ok") throw new Error(`the AssemblyScript rebuild ended "${run.verdict}":\n${run.output}`);
        ascRounds.push(run.ms);
        both(`  AssemblyScript edit ${i + 1}: ${(run.ms / 1000).toFixed(2)} s, load ${load()}`);
      }
    } finally {
      ascWatch.stop();
    }

    // Cold: a new process, an empty cache folder; then a cached load of what it built.
    const cache = freshFolder("cold-cache");
    const coldOut = freshFolder("cold-out");
    const coldFloor = gxx();
    const cold = await cliProcess(["run", cpp.kernel, cpp.shape, ...GIOU_ARGS, "--multicore", "--out", coldOut, "--verbose"], { ...process.env, GPSIMD_CACHE_DIR: cache });
    if (cold.code !== 0) throw new Error(`the cold gpsimd run failed (exit ${cold.code}):\n${cold.output}`);
    both(`cold gpsimd run: ${(cold.ms / 1000).toFixed(1)} s (g++ floor ${(coldFloor / 1000).toFixed(2)} s just before), load ${load()}`);
    const savedCache = process.env.GPSIMD_CACHE_DIR;
    process.env.GPSIMD_CACHE_DIR = cache;
    const cached: number[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const start = performance.now();
        const lib = custom_op.load({ name: "giou_fixed", compute_srcs: [cpp.kernel], shape_srcs: [cpp.shape], multicore: true, build_directory: coldOut });
        cached.push(performance.now() - start);
        lib.unload();
      }
    } finally {
      if (savedCache === undefined) delete process.env.GPSIMD_CACHE_DIR;
      else process.env.GPSIMD_CACHE_DIR = savedCache;
    }
    both(`cached load: first ${cached[0].toFixed(1)} ms, median of 5 ${median(cached).toFixed(1)} ms, load ${load()}`);

    // The targets.
    const cppMs = median(cppRounds.map((r) => r.ms));
    const ratio = median(cppRounds.map((r) => r.ms / r.gxx));
    const gxxMs = median(cppRounds.map((r) => r.gxx));
    const ascMs = median(ascRounds);
    say("");
    say(`targets (this run; C++ rounds' load ${cppRounds.map((r) => r.load).join(", ")}; now ${load()}):`);
    say(verdictLine("C++ edit -> result <= 2 s", `${(cppMs / 1000).toFixed(2)} s (median of ${ROUNDS})`, cppMs <= TARGET.cppEditMs, `${(cppMs / TARGET.cppEditMs).toFixed(1)}x the target`));
    say(verdictLine("C++ edit -> result <= 6x g++ -O2 -c", `${ratio.toFixed(1)}x (g++ ${(gxxMs / 1000).toFixed(2)} s for both files)`, ratio <= TARGET.cppEditVsGxx, `${(ratio / TARGET.cppEditVsGxx).toFixed(1)}x the target`));
    say(verdictLine("cold CLI (empty cache) <= 10 s", `${(cold.ms / 1000).toFixed(1)} s`, cold.ms <= TARGET.coldMs, `${(cold.ms / TARGET.coldMs).toFixed(1)}x the target`));
    say(verdictLine("cached load <= 50 ms", `${median(cached).toFixed(1)} ms (median)`, median(cached) <= TARGET.cachedMs, `${(median(cached) / TARGET.cachedMs).toFixed(1)}x the target`));
    say(verdictLine("AssemblyScript edit -> result <= 0.5 s", `${(ascMs / 1000).toFixed(2)} s (median of ${ROUNDS})`, ascMs <= TARGET.ascEditMs, `${(ascMs / TARGET.ascEditMs).toFixed(1)}x the target`));
    // Where a C++ build's time went: the median round's, and the cold run's.
    const mid = [...cppRounds].sort((a, b) => a.ms - b.ms)[cppRounds.length >> 1];
    say("");
    say("the median C++ edit's build (gpsimd --verbose):");
    for (const l of breakdownIn(mid.output)) say(`  ${l}`);
    say("the cold run's build:");
    for (const l of breakdownIn(cold.output)) say(`  ${l}`);
    say(`(work folders in ${path.relative(PACKAGE_ROOT, WORK)})`);
    for (const l of lines) console.log(`  ${l}`);
    return [];
  },
};
