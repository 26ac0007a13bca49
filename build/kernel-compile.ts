// What one compile of an AssemblyScript library's kernels is, at either static-data base: the asc target, the
// -D constants, and the passes gpsimd runs on asc's module before it is optimised (the sanitizer's checks, the
// default mode's ownership checks; build/asc.ts adds the stop polls and call sites). Builds A and B of a library
// (build/relocate.ts) must be the same compile but for the base, and they may run on two threads
// (build/second-build.ts): both make their input here, from settings that cross threads as plain data.
import type binaryen from "binaryen";
import type { AscInput } from "./asc.js";
import { cflagConstants } from "./cflags.js";
import { instrumentMemory, isGpsimdRuntime } from "./sanitize-pass.js";
import { instrumentOwnership } from "./ownership-pass.js";
import { WITHOUT_OWNERSHIP_CHECKS } from "./ownership-names.js";
import { isGpsimdRuntimeFile } from "./runtime-names.js";
import { timeStage } from "./build-stages.js";

/** The settings of a kernel compile: plain data (they are posted to the second build's thread). */
export interface KernelCompileSettings {
  /** Absolute paths of the kernel sources. */
  computeSrcs: string[];
  sanitize: boolean;
  extraCflags: string[];
  /** Binaryen's optimize level instead of the target's -O3 (a watch build's choice: build/optimize-level.ts). */
  optimizeLevel?: number;
}

/** The compile's input but for the base and the source texts (each build brings its own). */
export function kernelAscInput(settings: KernelCompileSettings, recordStages: boolean): Omit<AscInput, "memoryBase"> {
  const { sanitize, extraCflags } = settings;
  const stage = <T>(name: string, work: () => T): T => (recordStages ? timeStage(name, work) : work());
  return {
    sources: settings.computeSrcs, target: sanitize ? "sanitize" : "release",
    optimizeLevel: settings.optimizeLevel,
    constants: cflagConstants(extraCflags),
    // Before optimizing, so inlined checks keep their source lines; builds A and B get the same checks.
    // The sanitizer's checks go first, so that they, not the ownership checks (build/ownership-pass.ts), name an access they refuse.
    afterCompile: (module: binaryen.Module) => {
      if (sanitize) stage("sanitize pass", () => instrumentMemory(module, { isRuntime: isGpsimdRuntime }));
      // The SIMD helpers (assembly/simd.ts) check their ranges once per call instead; the library's @inline code is its own.
      if (!extraCflags.includes(WITHOUT_OWNERSHIP_CHECKS)) {
        stage("ownership pass", () => instrumentOwnership(module, { isRuntime: (name) => isGpsimdRuntime(name) || name.startsWith("~lib/gpsimd/simd/"), isRuntimeFile: isGpsimdRuntimeFile, tagChecks: true, checkStores: !sanitize }));
      }
    },
    recordStages,
  };
}
