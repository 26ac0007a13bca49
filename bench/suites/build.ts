// How long builds take, as a kernel author meets them: edit -> result in `gpsimd watch` (a rebuild of a changed
// source and one call, compiler thread resident) for the seed's corrected giou.cpp + shape.cpp (C++, multicore) and
// for ops/giou multicore (AssemblyScript); a cold `gpsimd run` process with an empty cache folder; a cached load of
// an up-to-date library. The floor is g++ -std=c++14 -O2 -c of the same two C++ files (bench/build-timing.ts),
// timed in the same rounds. setup() measures (its runs are processes: no case for the harness to time) and prints
// each round as it comes; finish() gives the targets, "met" or the gap, and the C++ builds' stages (gpsimd ...
// --verbose) that explain a gap: printed and saved as the run's findings, the targets also in the summary's table.
import path from "node:path";
import { copyFileSync } from "node:fs";
import { custom_op } from "gpsimd";
import { seedCpp } from "../../examples/seeds-cpp.js";
import { PACKAGE_ROOT } from "../../ops/index.js";
import { WatchChild, cliProcess, buildReport, freshFolder, gxxHeaders, gxxMillis, hasGxx, load, WORK, type BuildFigures } from "../build-timing.js";
import type { Suite } from "../suite.js";

/** Edits timed per watch (after its first run). */
const ROUNDS = 3;
/** The longest a single run may take before the suite gives up (a cold build on a loaded machine takes minutes). */
const RUN_TIMEOUT_MS = 600_000;

/** What setup() measured, for finish(). */
let figures: BuildFigures | null = null;

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
    "edit -> result: a comment appended to the kernel file of a running `gpsimd watch run` (child process), timed from the write to the watch's verdict line (a rebuild and one call of 64 x 256 box pairs, multicore). Each round (its floor, then its edit) starts once the watch's processes are idle (under 10 % of a CPU for 0.4 s), as an author's next save comes seconds after a result: after a C++ result the watch loads the next build's Binaryen tools (build/cpp/binaryen-tools.ts); the wait is printed with each round.",
    "floor: g++ -std=c++14 -O2 -c of the same giou.cpp and shape.cpp against gpsimd's headers with = delete(\"...\") reduced to = delete, timed in the same rounds.",
    "cold: `gpsimd run` of the C++ files in a new process with an empty cache folder (the package's own build products, dist/prebuilt/ made by `npm run build`, are there: the device runtime and gpsimd's precompiled headers). cached: custom_op.load of the up-to-date library, in this process.",
    "Every figure comes with the 1-minute load average when it was taken (2 vCPUs shared with other work).",
  ],
  // Everything is measured here, in setup: the suite has no workloads for the harness to time (its runs are processes).
  async setup() {
    figures = null;
    const progress = (l: string) => console.log(`  ${l}`);
    const cpp = cppCopy();
    const gxxInclude = hasGxx() ? gxxHeaders() : null;
    const gxx = () => (gxxInclude ? gxxMillis([cpp.kernel, cpp.shape], gxxInclude) : NaN);

    // C++ edit -> result, each round beside its g++ floor.
    const cppOut = freshFolder("cpp-out");
    const cppWatch = new WatchChild([cpp.kernel, cpp.shape, ...GIOU_ARGS, "--multicore", "--out", cppOut, "--verbose"]);
    const cppRounds: BuildFigures["cppRounds"] = [];
    try {
      const first = await cppWatch.started(RUN_TIMEOUT_MS);
      progress(`C++ watch started: first run ${(first.ms / 1000).toFixed(1)} s (${first.verdict}), load ${load()}`);
      for (let i = 0; i < ROUNDS; i++) {
        const settled = await cppWatch.idle();
        const floor = gxx();
        const run = await cppWatch.edit(cpp.kernel, `// edit ${i}\n`, RUN_TIMEOUT_MS);
        if (run.verdict !== "ok") throw new Error(`the C++ rebuild ended "${run.verdict}":\n${run.output}`);
        cppRounds.push({ ms: run.ms, gxx: floor, load: load(), output: run.output });
        progress(`  C++ edit ${i + 1}: ${(run.ms / 1000).toFixed(2)} s, g++ floor ${(floor / 1000).toFixed(2)} s (ratio ${(run.ms / floor).toFixed(1)}x), load ${load()}; the watch was idle ${(settled / 1000).toFixed(1)} s after the last result`);
      }
    } finally {
      cppWatch.stop();
    }

    // AssemblyScript edit -> result.
    const asc = ascCopy();
    const ascOut = freshFolder("asc-out");
    const ascWatch = new WatchChild([asc.folder, ...GIOU_ARGS, "--out", ascOut]);
    const ascRounds: BuildFigures["ascRounds"] = [];
    try {
      const first = await ascWatch.started(RUN_TIMEOUT_MS);
      progress(`AssemblyScript watch started: first run ${(first.ms / 1000).toFixed(1)} s (${first.verdict}), load ${load()}`);
      for (let i = 0; i < ROUNDS; i++) {
        await ascWatch.idle();
        const run = await ascWatch.edit(asc.kernel, `// edit ${i}\n`, RUN_TIMEOUT_MS);
        if (run.verdict !== "ok") throw new Error(`the AssemblyScript rebuild ended "${run.verdict}":\n${run.output}`);
        ascRounds.push({ ms: run.ms, load: load() });
        progress(`  AssemblyScript edit ${i + 1}: ${(run.ms / 1000).toFixed(2)} s, load ${load()}`);
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
    const coldLoad = load();
    progress(`cold gpsimd run: ${(cold.ms / 1000).toFixed(1)} s (g++ floor ${(coldFloor / 1000).toFixed(2)} s just before), load ${coldLoad}`);
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
    progress(`cached load: first ${cached[0].toFixed(1)} ms, each ${cached.map((ms) => ms.toFixed(1)).join(", ")} ms, load ${load()}`);
    progress(`(work folders in ${path.relative(PACKAGE_ROOT, WORK)})`);
    figures = { cppRounds, ascRounds, cold: { ms: cold.ms, gxx: coldFloor, load: coldLoad, output: cold.output }, cached, load: load() };
    return [];
  },
  // The targets and the builds' breakdowns, once: printed by the harness and saved with the results (findings).
  finish(meta) {
    if (!figures) return [];
    const { findings, targets } = buildReport({ ...figures, load: load() });
    meta.targets = targets;
    return findings;
  },
};
