// Post-link steps on Binaryen: the kernel's own instrumentation (sanitize
// mode's memory checks, stop polls and stack checks, before it meets the
// runtime: instrumentKernel), the merge of the device runtime (instrumented
// apart for sanitize mode: sanitizedRuntime) and the C++ kernel into one
// module (wasm-merge: the kernel's "gpsimd-abi" imports, its memory and stop
// word included, become the runtime's), then instrumentKernelModule (-O3; below
// -O2, as in gpsimd watch, the kernel alone before the merge: optimisesKernelAlone).
// Source maps go in and out of each step, so a kernel's errors, sanitize
// mode's included, keep naming its .cpp lines.
import binaryen from "binaryen";
import { instrumentMemory, isGpsimdRuntime } from "../sanitize-pass.js";
import { instrumentOwnership } from "../ownership-pass.js";
import { insertStopPolls } from "../stop-polls.js";
import { insertStackChecks } from "./stack-checks.js";
import { numberAllocationSites } from "../allocation-sites.js";
import { withoutBssInit } from "./static-image.js";
import { reservedNameUses } from "./reserved-names.js";
import { readFile, rm, writeFile } from "node:fs/promises";
import { buildTempDir } from "../build-temp.js";
import path from "node:path";
import { runBinaryenTool } from "./binaryen-tools.js";
import { ByteReader, SectionId, readSections } from "../wasm-reader.js";
import type { StubModule } from "./host-stubs.js";
import { timeStage, timeStageAsync, DETAIL } from "../build-stages.js";

/** A module and its source map (null: none). */
export interface MappedModule { wasm: Uint8Array; sourceMap: string | null }
/** Post-link settings. */
export interface KernelModuleOptions {
  sanitize: boolean;
  /** Binaryen's optimize level for the merged module instead of -O3 (`gpsimd watch`'s quick rebuilds; host/library/compile-service.ts). */
  optimizeLevel?: number;
}

/** The import module name the C++ headers use for the runtime's C ABI (include/gpsimd/abi.h). */
export const ABI_MODULE = "gpsimd-abi";
const FEATURES = ["--enable-simd", "--enable-threads", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals"];

async function withTemp<T>(f: (file: (name: string) => string) => Promise<T>): Promise<T> {
  const dir = await buildTempDir("gpsimd-cpp-");
  try { return await f((name) => path.join(dir, name)); } finally { await rm(dir, { recursive: true, force: true }); }
}

/**
 * The kernel after instrumentKernel, the functions that hold an atomic wait, and the kernel's symbols that take a name
 * reserved for the runtime (reserved-names.ts): the build must refuse both.
 */
export interface InstrumentedKernel extends MappedModule { atomicWaits: string[]; reservedNames: string[] }

/**
 * The C++ kernel's own instrumentation, on the linked kernel alone (so the runtime's functions, which asc polled
 * already, get no second poll): lld's zeroing of the statics at each instantiation goes (static-image.ts); in
 * sanitize mode, the memory checks (build/sanitize-pass.ts; the runtime gets its own, sanitizedRuntime), before the
 * code added next, which, as in an AssemblyScript build, is not itself checked; numbered tcm_malloc calls
 * (build/allocation-sites.ts); stop polls (build/stop-polls.ts) that read the runtime's stop word, which the kernel
 * imports and the merge joins to the runtime's; and stack checks (stack-checks.ts). The
 * kernel alone is small, so its text round trip that keeps the source map costs little (the whole merged module's
 * would cost seconds). Build B goes the same way without a map, so both builds get the same code.
 */
export async function instrumentKernel(kernel: Uint8Array, kernelMap: string | null, options: KernelModuleOptions): Promise<InstrumentedKernel> {
  let atomicWaits: string[] = [], reservedNames: string[] = [];
  const out = await withBinaryen({ wasm: kernel, sourceMap: kernelMap }, (module) => {
    reservedNames = reservedNameUses(module);
    if (reservedNames.length) return; // refused: the passes below would also collide with such a name
    withoutBssInit(module);
    // Every function of this module came from the kernel's sources (clang's link of them alone), so every one is the
    // kernel's, whatever its name: the runtime's own functions are in the runtime's module, instrumented apart.
    if (options.sanitize) timeStage("post-link pass: sanitize checks", () => instrumentMemory(module, { isRuntime: () => false }), DETAIL);
    // The default mode's checks of raw loads and stores (build/ownership-pass.ts), after the sanitizer's, which name first what they refuse.
    timeStage("post-link pass: ownership checks", () => instrumentOwnership(module, { isRuntime: () => false, checkStores: !options.sanitize, importFrom: ABI_MODULE, placeCalls: true, tagChecks: true }), DETAIL);
    const malloc = importedFunction(module, ABI_MODULE, "gpsimd_tcm_malloc");
    timeStage("post-link pass: allocation sites", () => { if (malloc) numberAllocationSites(module, { from: malloc, to: "gpsimd_tcm_malloc_at", import: { module: ABI_MODULE, base: "gpsimd_tcm_malloc_at" } }); }, DETAIL);
    atomicWaits = timeStage("post-link pass: stop polls", () => insertStopPolls(module, { stopWordFrom: ABI_MODULE }).atomicWaits, DETAIL);
    timeStage("post-link pass: stack checks", () => insertStackChecks(module, ABI_MODULE), DETAIL);
  });
  return { ...out, atomicWaits, reservedNames };
}

/** The internal name of the function the module imports as module.base, if it does. */
function importedFunction(module: binaryen.Module, from: string, base: string): string | null {
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (info.module === from && info.base === base) return info.name;
  }
  return null;
}

/**
 * Runs a binaryen.js pass on a module, source map in and out. binaryen.js reads no source map, but it parses text
 * carrying `;;@ file:line:column` annotations and writes a source map: so a module with a map goes through wasm-dis
 * (source map in, annotated text out), then binaryen.js. A module without one (build B) is read as it is: the same
 * code, without the text round trip.
 */
async function withBinaryen(m: MappedModule, pass: (module: binaryen.Module) => void): Promise<MappedModule> {
  const text = m.sourceMap === null ? null : await timeStageAsync("post-link: line tables (wasm-dis, build A)", () => withTemp(async (f) => {
    await writeFile(f("in.wasm"), m.wasm);
    await writeFile(f("in.map"), m.sourceMap!);
    const { stdout } = await runBinaryenTool("wasm-dis", [f("in.wasm"), "-sm", f("in.map"), ...FEATURES]);
    return stdout;
  }), DETAIL);
  const debugInfo = binaryen.getDebugInfo();
  binaryen.setDebugInfo(true); // keeps names and debug locations; a global setting of binaryen.js, restored below
  const module = timeStage("post-link: read the kernel", () => (text === null ? binaryen.readBinary(m.wasm) : binaryen.parseText(text)), DETAIL);
  try {
    module.setFeatures(binaryen.Features.All);
    pass(module);
    const out = timeStage("post-link: write the kernel", () => module.emitBinary(m.sourceMap !== null ? "module.map" : null), DETAIL);
    // Without the sourceMappingURL section that comes with the map, build A has the same sections as B.
    return { wasm: withoutCustomSections(out.binary, (name) => name === "sourceMappingURL"), sourceMap: m.sourceMap !== null ? out.sourceMap : null };
  } finally {
    module.dispose();
    binaryen.setDebugInfo(debugInfo);
  }
}

/**
 * The merged, instrumented kernel module: the runtime (sanitizedRuntime's output in sanitize mode), then the kernel
 * (instrumentKernel's output, without its DWARF). Both were sanitized before the optimiser inlines the runtime's
 * entries (stream writes, tensor ops) into the kernel's functions: inlined, the runtime's stores to its own
 * bookkeeping would be checked as the kernel's.
 */
export async function mergeRuntime(runtime: Uint8Array, kernel: MappedModule, options: KernelModuleOptions, stubs: StubModule[] = []): Promise<MappedModule> {
  const build = kernel.sourceMap !== null ? "A" : "B";
  const level = options.optimizeLevel ?? 3;
  if (optimisesKernelAlone(options)) {
    const optimised = await timeStageAsync(`optimise -O${level} the kernel (wasm-opt, build ${build})`, () => instrumentKernelModule(kernel, options), DETAIL);
    return timeStageAsync(`post-link: merge with the runtime (wasm-merge, build ${build})`, () => merge(runtime, optimised.wasm, optimised.sourceMap, stubs), DETAIL);
  }
  const merged = await timeStageAsync(`post-link: merge with the runtime (wasm-merge, build ${build})`, () => merge(runtime, kernel.wasm, kernel.sourceMap, stubs), DETAIL);
  return timeStageAsync(`optimise -O${level} (wasm-opt, build ${build})`, () => instrumentKernelModule(merged, options), DETAIL);
}

/**
 * Whether the optimiser runs on the kernel alone, before the merge, instead of on the merged module: below -O2,
 * where Binaryen inlines nothing (its inlining passes run from -O2 on), so no pass joins the runtime's code and the
 * kernel's, and every pass works function by function or finds nothing to do across the merged module (-O1 removed
 * no function from it). The runtime is asc's -O3 output already: -O1 again changed 10 of its 88 KB and took most
 * of wasm-opt's time on the merged module (0.3 of 0.35-0.5 s of work; the kernel alone 0.05 s, load 4). Not in
 * sanitize mode: there the runtime's checks are added after asc (sanitizedRuntime) and -O1 still tidies them.
 */
export function optimisesKernelAlone(options: KernelModuleOptions): boolean {
  return (options.optimizeLevel ?? 3) < 2 && !options.sanitize;
}

/**
 * Sanitize mode's memory instrumentation of the device runtime (build/sanitize-pass.ts, the same as for
 * AssemblyScript kernels), once per compiled runtime (build-cpp.ts caches it): its functions (~lib/gpsimd/...)
 * checked as the kernel library, the standard library's and the SIMD helpers as the kernel. Names are trusted here
 * only because this module is gpsimd's own compile of assembly/ alone: no kernel source is in it. The runtime has no
 * source map, so it is read as a binary, without the text round trip.
 */
export function sanitizedRuntime(wasm: Uint8Array): Uint8Array {
  const module = binaryen.readBinary(wasm);
  try {
    module.setFeatures(binaryen.Features.All);
    instrumentMemory(module, { isRuntime: isGpsimdRuntime });
    return module.emitBinary();
  } finally {
    module.dispose();
  }
}

/**
 * The runtime goes in without a source map: its functions keep their names (~lib/gpsimd/...), so the source locator
 * treats them as library frames and names the kernel's frame that called them; and the map stays small.
 */
async function merge(runtime: Uint8Array, kernel: Uint8Array, kernelMap: string | null, stubs: StubModule[]): Promise<MappedModule> {
  return withTemp(async (f) => {
    await writeFile(f("runtime.wasm"), runtime);
    await writeFile(f("kernel.wasm"), kernel);
    await Promise.all(stubs.map((s, i) => writeFile(f(`stub${i}.wasm`), s.wasm)));
    const maps = kernelMap !== null;
    if (maps) await writeFile(f("kernel.map"), kernelMap);
    await runBinaryenTool("wasm-merge", [
      f("runtime.wasm"), ABI_MODULE,
      f("kernel.wasm"), "kernel", ...(maps ? ["-ism", f("kernel.map")] : []),
      ...stubs.flatMap((s, i) => [f(`stub${i}.wasm`), s.name]),
      "-o", f("merged.wasm"), ...(maps ? ["-osm", f("merged.map")] : []), "-g", ...FEATURES,
    ]);
    return { wasm: new Uint8Array(await readFile(f("merged.wasm"))), sourceMap: maps ? await readFile(f("merged.map"), "utf8") : null };
  });
}

/**
 * The wasm-level passes every merged C++ kernel module gets, as Binaryen pass flags: -O3, which inlines the
 * runtime's small checked entries (accessor get/set, stream read/write) into the kernel's loops. (Sanitize mode's
 * instrumentation came before, on each part: instrumentKernel, sanitizedRuntime.)
 */
export function kernelModulePasses(options: KernelModuleOptions): string[] {
  // printf's runtime entries stay calls: inlined, the call instruction that carries the kernel's printf line would be
  // replaced by runtime code without one, and a kernel whose only statement is a printf would keep no line at all.
  // So do the TCM entries (gpsimd_tcm_malloc[_at], gpsimd_tcm_free, gpsimd_to_tcm_*, gpsimd_from_tcm_*): the allocator
  // that takes a site needs its site operand to reach a call (build/allocation-sites.ts), and a copy's errors, its
  // cross-core write and read records and their reruns name the copy's line through its call (a copy entry that only
  // forwards to the runtime's copy is small enough to be inlined, and the copy's statement then kept no line at all:
  // test/cpp/cross-core-races). Each no-inline pass takes one name pattern: the full and partial variants (both
  // together are --no-inline) mark the TCM entries.
  return [
    "--no-inline", "--pass-arg=no-inline@*gpsimd_printf*",
    "--no-full-inline", "--no-partial-inline", "--pass-arg=no-full-inline@*gpsimd_*tcm*", "--pass-arg=no-partial-inline@*gpsimd_*tcm*",
    `-O${options.optimizeLevel ?? 3}`, "--always-inline-max-function-size=100",
  ];
}

/**
 * Runs the post-link passes on a kernel module (wasm-opt), source map in and out. What the line mapping needs from a
 * pass: Binaryen keeps each existing instruction's source place (its debug location) when a pass moves, wraps or
 * copies it; code a pass adds (a poll, a check) gets no place or its neighbour's, so a trap inside it is named by the
 * kernel frame that called into it. A pass that must run on a module without a source map loses nothing else.
 */
export async function instrumentKernelModule(m: MappedModule, options: KernelModuleOptions): Promise<MappedModule> {
  const passes = kernelModulePasses(options);
  if (!passes.length) return m;
  return withTemp(async (f) => {
    await writeFile(f("in.wasm"), m.wasm);
    if (m.sourceMap) await writeFile(f("in.map"), m.sourceMap);
    await runBinaryenTool("wasm-opt", [f("in.wasm"), ...(m.sourceMap ? ["-ism", f("in.map"), "-osm", f("out.map")] : []),
      ...passes, "-g", ...FEATURES, "-o", f("out.wasm")]);
    return { wasm: new Uint8Array(await readFile(f("out.wasm"))), sourceMap: m.sourceMap ? await readFile(f("out.map"), "utf8") : null };
  });
}

/**
 * `target` with the "name" custom section of `source` in place of its own. Build B's kernel is read from its binary
 * and build A's from annotated text (it carries the source map), and the two readers name some locals differently;
 * the code is the same, which makeRelocatable checks, and only build A's names reach the library.
 */
export function withNamesOf(target: Uint8Array, source: Uint8Array): Uint8Array {
  const names = (wasm: Uint8Array) => readSections(wasm).filter((s) => s.id === SectionId.custom && customSectionName(wasm, s.contentStart) === "name");
  const [ours, theirs] = [names(target), names(source)];
  if (ours.length !== 1 || theirs.length !== 1) return target;
  const parts = [target.subarray(0, ours[0].start), source.subarray(theirs[0].start, theirs[0].end), target.subarray(ours[0].end)];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** The module without its DWARF sections (custom sections named .debug_*, all after the code: no offset moves). */
export function stripDwarf(wasm: Uint8Array): Uint8Array {
  return withoutCustomSections(wasm, (name) => name.startsWith(".debug_"));
}

/** The module without the custom sections `drop` names (ones after the code, so that no offset moves). */
function withoutCustomSections(wasm: Uint8Array, drop: (name: string) => boolean): Uint8Array {
  const kept = readSections(wasm).filter((s) => !(s.id === SectionId.custom && drop(customSectionName(wasm, s.contentStart))));
  const parts = [wasm.subarray(0, 8), ...kept.map((s) => wasm.subarray(s.start, s.end))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

function customSectionName(wasm: Uint8Array, at: number): string {
  const r = new ByteReader(wasm, at);
  const n = r.u32();
  return new TextDecoder().decode(wasm.subarray(r.pos, r.pos + n));
}
