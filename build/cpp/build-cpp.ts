// Builds a library whose compute sources are C++: the device runtime (gpsimd's
// AssemblyScript kernel library exported as a C ABI, assembly/cpp-abi.ts) and
// the user's kernels compiled by clang, merged into ONE kernel module, built
// at two static-data bases like an AssemblyScript library so build/relocate.ts
// makes it relocatable. Everything downstream (library file, placement, core
// threads, errors) is the AssemblyScript path unchanged.
//
// Line tables: clang's DWARF line table of the kernel becomes a source map
// (dwarf-lines.ts; code inlined from gpsimd's headers placed at the kernel
// statement that called it); Binaryen carries it through the kernel's own
// passes (instrumentKernel: sanitize mode's checks, stop polls, stack checks),
// the merge and the post-link passes (instrumentKernelModule), and the source
// locator reads it.
import { readFile, writeFile, rm } from "node:fs/promises";
import { buildTempDir } from "../build-temp.js";
import { readdirSync, statSync, readFileSync } from "node:fs";
import path from "node:path";
import { compileOnce } from "../asc.js";
import { ASSEMBLY_DIR } from "../paths.js";
import { cachedRuntime, runtimeHash, RUNTIME_ENTRY_SOURCE, type Runtime } from "./runtime-cache.js";
import { makeRelocatable } from "../relocate.js";
import { readSections, readDataSegments, SectionId } from "../wasm-reader.js";
import { BUILD_BASE_A, BUILD_BASE_B } from "../../host/library/build-constants.js";
import { cppKernels, type CppKernel } from "./kernel-decls.js";
import { kernelExportsSource, cppStackBytes } from "./kernel-exports.js";
import { compileCpp, linkCpp, CPP_INCLUDE_DIR } from "./clang-driver.js";
export { isCppSource } from "./kernel-decls.js";
import { readLineTable, lineTableSourceMap } from "./dwarf-lines.js";
import { mergeRuntime, instrumentKernel, sanitizedRuntime, stripDwarf, withNamesOf } from "./post-link.js";
import { atomicWaitMessage } from "../stop-polls.js";
import { unavailableUses } from "./unavailable.js";
import { hostStubModules } from "./host-stubs.js";
import { kernelStaticEnd, reserveStaticData } from "./static-image.js";
import { cflagConstants } from "../cflags.js";
import { clang } from "./toolchain.js";
import { startWantedHeaders } from "./header-pch.js";
import { timeStage, timeStageAsync, DETAIL } from "../build-stages.js";
import { prebuiltRuntime } from "./prebuilt-runtime.js";
import { buildStarts, prepareBuildTools, prepareNextBuildTools } from "./binaryen-tools.js";
import type { RelocatableModule } from "../relocate.js";
import type { KernelSignature } from "../signatures.js";


/** What a C++ build produced: the relocatable module, its source map (of build A), the kernels, the texts compiled. */
export interface CppBuild {
  reloc: RelocatableModule;
  sourceMap: string;
  kernels: KernelSignature[];
  /** Every file the build read (sources and gpsimd's headers), for the library hash. */
  texts: Map<string, string>;
  /** The identity of the device runtime merged in (runtime-cache.ts: runtimeHash), recorded in the library. */
  runtimeHash: string;
  millis: { runtime: number; compile: number; link: number; merge: number };
}

/** What buildCpp builds: the kernel sources, clang flags of the author's, sanitize mode, and Binaryen's level for the merged module (default 3). */
export interface CppBuildRequest { computeSrcs: string[]; extraCflags: string[]; sanitize: boolean; optimizeLevel?: number }

/**
 * Builds the C++ compute sources; returns messages (file:line:column: error: ...) on failure. In gpsimd watch the
 * next build's Binaryen tool processes load after it (binaryen-tools.ts). gpsimd's precompiled headers that this
 * build's compiles (and the shape function's, compiled before it) lacked are made after it.
 */
export async function buildCpp(req: CppBuildRequest): Promise<CppBuild | { messages: string[] }> {
  buildStarts();
  try {
    return await buildCppModule(req);
  } finally {
    startWantedHeaders();
    prepareNextBuildTools();
  }
}

async function buildCppModule(req: CppBuildRequest): Promise<CppBuild | { messages: string[] }> {
  const texts = new Map<string, string>();
  const kernels: CppKernel[] = [];
  const messages: string[] = [];
  for (const file of req.computeSrcs) {
    const text = await readFile(file, "utf8");
    texts.set(file, text);
    const found = cppKernels(file, text);
    kernels.push(...found.kernels);
    messages.push(...found.problems.map((p) => `${p.file}:${p.line}: error: ${p.message}`));
  }
  if (!messages.length && kernels.length === 0) messages.push(`${req.computeSrcs.join(", ")}: no kernel found: a kernel is a top-level function returning torch::Tensor`);
  if (messages.length) return { messages };

  const t0 = performance.now();
  const runtime = await timeStageAsync("device runtime", () => buildRuntime(req.sanitize));
  if ("messages" in runtime) return runtime;
  const t1 = performance.now();
  const stack = cppStackBytes(Number(cflagConstants(req.extraCflags).STACK_SIZE ?? 0) || 0);
  await timeStageAsync("compiler start", () => clang());
  // Timed inside: with or without gpsimd's precompiled headers (header-pch.ts).
  const compiling = compileCpp(req.computeSrcs, texts, kernelExportsSource(kernels, stack), req.extraCflags);
  // In gpsimd watch, the Binaryen tools this build runs after clang that are not loaded yet load while it compiles;
  // forked once the compile is asked for (a fork costs this thread 10-40 ms). See binaryen-tools.ts.
  setImmediate(prepareBuildTools);
  const compiled = await compiling;
  if ("messages" in compiled) return compiled;
  const t2 = performance.now();
  // The kernel's static data follows the runtime's, at the same distance from either base.
  const [kernelA, kernelB] = await timeStageAsync("link (builds A and B)", () => Promise.all([
    linkCpp(compiled.objects, BUILD_BASE_A + runtime.dataBytes),
    linkCpp(compiled.objects, BUILD_BASE_B + runtime.dataBytes),
  ]));
  if ("messages" in kernelA) return kernelA;
  if ("messages" in kernelB) return kernelB;
  const t3 = performance.now();
  // Host-only calls are named by the rows as compiled; the source map places header code at the kernel statement.
  const unavailable = timeStage("host-only calls", () => unavailableUses(kernelA.wasm, readLineTable(kernelA.wasm), compiled.sourceName));
  if (unavailable.length) return { messages: unavailable };
  const kernelMap = timeStage("line tables: DWARF to source map", () => lineTableSourceMap(readLineTable(kernelA.wasm, (file) => compiled.sourceName(file).startsWith("~lib/")), compiled.sourceName));
  // Sanitize checks, stop polls and stack checks in the kernel's own code; the DWARF goes (the source map has the lines).
  const options = { sanitize: req.sanitize, optimizeLevel: req.optimizeLevel };
  const [polledA, polledB] = await timeStageAsync("post-link passes on the kernel (builds A and B)", () => Promise.all([instrumentKernel(stripDwarf(kernelA.wasm), kernelMap, options), instrumentKernel(stripDwarf(kernelB.wasm), null, options)]));
  if (polledA.reservedNames.length) return { messages: polledA.reservedNames };
  if (polledA.atomicWaits.length) return { messages: [`error: ${atomicWaitMessage(polledA.atomicWaits)}`] };
  const stubs = hostStubModules(kernelA.wasm); // the same imports in both links
  const [mergedA, mergedB] = await timeStageAsync("merge with the runtime, optimise (builds A and B)", () => Promise.all([mergeRuntime(runtime.a, polledA, options, stubs), mergeRuntime(runtime.b, polledB, options, stubs)]));
  const reloc = timeStage("relocate", () => makeRelocatable(
    reserveStaticData(mergedA.wasm, kernelStaticEnd(kernelA.wasm)), reserveStaticData(withNamesOf(mergedB.wasm, mergedA.wasm), kernelStaticEnd(kernelB.wasm)), BUILD_BASE_A, BUILD_BASE_B,
  ));
  for (const [file, text] of headerTexts()) texts.set(file, text);
  const t4 = performance.now();
  return {
    reloc, sourceMap: mergedA.sourceMap ?? "", kernels: kernels.map(({ paramsText: _p, returnText: _r, ...k }) => k), texts, runtimeHash: runtimeHash(runtime),
    millis: { runtime: t1 - t0, compile: t2 - t1, link: t3 - t2, merge: t4 - t3 },
  };
}

/**
 * The device runtime at both bases, once per process and sanitize setting: from the cache folder (runtime-cache.ts),
 * else the package's own prebuilt one (prebuilt-runtime.ts; then stored in the cache folder as a compiled one is),
 * else compiled.
 */
const runtimes = new Map<boolean, Promise<Runtime | { messages: string[] }>>();

function buildRuntime(sanitize: boolean): Promise<Runtime | { messages: string[] }> {
  let r = runtimes.get(sanitize);
  if (!r) {
    r = cachedRuntime(sanitize, async () => timeStage("device runtime: the package's prebuilt one", () => prebuiltRuntime(sanitize), DETAIL)
      ?? await timeStageAsync("device runtime: compiled (asc, builds A and B)", () => compileRuntime(sanitize), DETAIL));
    runtimes.set(sanitize, r);
  }
  return r;
}

/** Compiles the device runtime at both bases (asc); `npm run build` keeps one in the package (prebuild.ts). */
export async function compileRuntime(sanitize: boolean): Promise<Runtime | { messages: string[] }> {
  const dir = await buildTempDir("gpsimd-runtime-");
  const entry = path.join(dir, "device-runtime.ts");
  await writeFile(entry, RUNTIME_ENTRY_SOURCE);
  try {
    return await compileRuntimeFrom(entry, sanitize);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function compileRuntimeFrom(entry: string, sanitize: boolean): Promise<Runtime | { messages: string[] }> {
  const input = { sources: [entry], target: sanitize ? "sanitize" as const : "release" as const, constants: {}, exportMemory: true, keepCallSites: false, sourceCache: new Map<string, string>() };
  const [a, b] = await Promise.all([compileOnce({ ...input, memoryBase: BUILD_BASE_A }), compileOnce({ ...input, memoryBase: BUILD_BASE_B })]);
  const errors = [...a.diagnostics, ...b.diagnostics].filter((d) => d.category === "error");
  if (errors.length || !a.binary || !b.binary) {
    return { messages: errors.length ? errors.map((d) => `${d.file}:${d.line}:${d.column}: error: ${d.message}`) : ["the device runtime did not compile"] };
  }
  // Sanitize mode: the runtime's memory checks, here once (and in the disk cache); the kernel gets its own (post-link.ts).
  const [ra, rb] = sanitize ? [sanitizedRuntime(a.binary), sanitizedRuntime(b.binary)] : [a.binary, b.binary];
  return { a: ra, b: rb, dataBytes: align(dataEnd(a.binary) - BUILD_BASE_A, 64) };
}

function dataEnd(wasm: Uint8Array): number {
  const data = readSections(wasm).find((s) => s.id === SectionId.data);
  if (!data) return BUILD_BASE_A;
  return Math.max(BUILD_BASE_A, ...readDataSegments(wasm, data).map((s) => s.offset[0].fields[0].value + s.data.end - s.data.start));
}

function align(n: number, to: number): number { return Math.ceil(n / to) * to; }

/** gpsimd's C++ headers and the ABI source: part of every C++ library's hash. */
function headerTexts(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else out.set(file, readFileSync(file, "utf8"));
    }
  };
  walk(CPP_INCLUDE_DIR);
  out.set(path.join(ASSEMBLY_DIR, "cpp-abi.ts"), readFileSync(path.join(ASSEMBLY_DIR, "cpp-abi.ts"), "utf8"));
  return out;
}
