// Build times of a C++ library (the blog's corrected giou.cpp and shape.cpp):
// cold (a new process compiles: clang loads its ~105 MB of resources first),
// warm (the same process compiles again), and cached (a new process loads the
// up-to-date lib<name>.wasm without compiling). Each phase runs in its own
// process so nothing is shared that a user would not share.
//   node dist/bench/cpp-build-times.js
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { custom_op, shutdown, type Library } from "gpsimd";
import { seedCpp } from "../examples/seeds-cpp.js";
import { OPS_BUILD_DIR } from "../ops/index.js";

const NAME = "bench_cpp_build_times";
/** Marks the child's answer among anything else it prints. */
const RESULT = "build-times: ";

function loadSeed(force: boolean): { lib: Library; millis: number } {
  const start = performance.now();
  const lib = custom_op.load({
    name: NAME, compute_srcs: [seedCpp("giou-fixed.cpp")], shape_srcs: [seedCpp("shape.cpp")],
    build_directory: OPS_BUILD_DIR, multicore: true, force, verbose: true, extra_cflags: [`-Dmy_ops=${NAME}`],
  });
  return { lib, millis: performance.now() - start };
}

const phase = process.argv[2];
if (phase === "cold") {
  const cold = loadSeed(true);
  cold.lib.unload();
  const warm = loadSeed(true);
  warm.lib.unload();
  await shutdown();
  process.stdout.write(`\n${RESULT}${JSON.stringify({ cold: cold.millis, warm: warm.millis })}\n`);
} else if (phase === "cached") {
  const runs = Array.from({ length: 5 }, () => { const r = loadSeed(false); r.lib.unload(); return r.millis; });
  await shutdown();
  process.stdout.write(`\n${RESULT}${JSON.stringify({ cached: Math.min(...runs), first: runs[0] })}\n`);
} else {
  const self = fileURLToPath(import.meta.url);
  const run = (p: string) => {
    const out = execFileSync(process.execPath, [self, p], { cwd: path.dirname(self), stdio: ["ignore", "pipe", "inherit"] }).toString();
    return JSON.parse(out.split("\n").find((l) => l.startsWith(RESULT))!.slice(RESULT.length));
  };
  const { cold, warm } = run("cold");
  const { cached, first } = run("cached");
  console.log(`C++ library build (giou-fixed.cpp + shape.cpp, multicore):`);
  console.log(`  cold   ${cold.toFixed(0)} ms  (new process: clang starts, then compiles and links)`);
  console.log(`  warm   ${warm.toFixed(0)} ms  (same process, compiler loaded)`);
  console.log(`  cached ${first.toFixed(1)} ms  (new process, lib unchanged: no compile; then ${cached.toFixed(1)} ms at best for a reload)`);
}
