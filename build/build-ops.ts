// Builds every shipped operator library into build/out (what `npm run build`
// does after compiling the TypeScript): tests, examples and benchmarks then
// find them up to date. A library whose sources did not change is not rebuilt.
import { OP_LIBRARIES, OPS_BUILD_DIR, loadOp, type OpLibraryName } from "../ops/index.js";
import { buildEngineCache } from "../nki/machine/engine-build.js";
import { prebuildCppProducts } from "./cpp/prebuild.js";
import { PREBUILT_DIR } from "./paths.js";

const names = Object.keys(OP_LIBRARIES) as OpLibraryName[];
const started = performance.now();
process.stdout.write(`gpsimd: building ${names.length} operator libraries into ${OPS_BUILD_DIR}\n`);
for (const [i, name] of names.entries()) {
  const t0 = performance.now();
  loadOp(name).unload();
  process.stdout.write(`  [${String(i + 1).padStart(2)}/${names.length}] ${name.padEnd(20)} ${(performance.now() - t0).toFixed(0).padStart(5)} ms\n`);
}
process.stdout.write(`gpsimd: libraries ready in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
// What C++ builds need from gpsimd alone (the device runtime, precompiled headers), into the package's own folder
// (build/cpp/prebuild.ts): a user's first C++ build, even with an empty cache folder, then starts from them.
const prebuildStart = performance.now();
process.stdout.write(`gpsimd: C++ device runtime and precompiled headers into ${PREBUILT_DIR}\n`);
await prebuildCppProducts((line) => process.stdout.write(`  ${line}\n`));
process.stdout.write(`gpsimd: C++ build products ready in ${((performance.now() - prebuildStart) / 1000).toFixed(1)} s\n`);
// The NKI tile engine, into the per-user cache (nki/machine/engine-build.ts): the first NKI kernel then skips asc.
const engineStart = performance.now();
await buildEngineCache();
process.stdout.write(`gpsimd: NKI tile engine ready in ${((performance.now() - engineStart) / 1000).toFixed(1)} s\n`);
