// Post-link steps on Binaryen: merge the device runtime and the C++ kernel
// into one module (wasm-merge: the kernel's "gpsimd-abi" imports, its memory
// included, become the runtime's functions and shared memory), then
// instrumentKernelModule, where the wasm-level passes for any kernel module
// run (sanitize today; the stop polls plug in here). Source maps go in and out
// of each step, so a kernel's errors keep naming its .cpp lines.
import binaryen from "binaryen";
import { instrumentMemory, isGpsimdRuntime } from "../sanitize-pass.js";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ByteReader, SectionId, readSections } from "../wasm-reader.js";
import type { StubModule } from "./host-stubs.js";

const run = promisify(execFile);
const binaryenBin = (tool: string) => path.join(path.dirname(createRequire(import.meta.url).resolve("binaryen/package.json")), "bin", tool);

/** A module and its source map (null: none). */
export interface MappedModule { wasm: Uint8Array; sourceMap: string | null }
/** Post-link settings. */
export interface KernelModuleOptions { sanitize: boolean }

/** The import module name the C++ headers use for the runtime's C ABI (include/gpsimd/abi.h). */
export const ABI_MODULE = "gpsimd-abi";
const FEATURES = ["--enable-simd", "--enable-threads", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals"];

async function withTemp<T>(f: (file: (name: string) => string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), "gpsimd-cpp-"));
  try { return await f((name) => path.join(dir, name)); } finally { await rm(dir, { recursive: true, force: true }); }
}

/** The merged, instrumented kernel module: the runtime, then the kernel (without its DWARF: the source map has the lines). */
export async function mergeRuntime(runtime: Uint8Array, kernel: Uint8Array, kernelMap: string | null, options: KernelModuleOptions, stubs: StubModule[] = []): Promise<MappedModule> {
  const merged = await merge(runtime, stripDwarf(kernel), kernelMap, stubs);
  // Sanitize before the optimiser inlines the runtime's entries (stream writes, tensor ops) into the kernel's
  // functions: inlined, the runtime's stores to its own bookkeeping would be checked as the kernel's.
  return instrumentKernelModule(options.sanitize ? sanitized(merged) : merged, options);
}

/**
 * Sanitize mode: gpsimd's own memory instrumentation (build/sanitize-pass.ts, the same as for AssemblyScript kernels),
 * on the whole merged module, the runtime's functions (~lib/gpsimd/...) checked as the kernel library. It is a
 * binaryen.js pass, and binaryen.js reads no source map: sanitize builds of C++ kernels name functions, not lines.
 */
function sanitized(m: MappedModule): MappedModule {
  const module = binaryen.readBinary(m.wasm);
  try {
    module.setFeatures(binaryen.Features.All);
    instrumentMemory(module, { isRuntime: isGpsimdRuntime });
    return { wasm: module.emitBinary(), sourceMap: null };
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
    await run(process.execPath, [binaryenBin("wasm-merge"),
      f("runtime.wasm"), ABI_MODULE,
      f("kernel.wasm"), "kernel", ...(maps ? ["-ism", f("kernel.map")] : []),
      ...stubs.flatMap((s, i) => [f(`stub${i}.wasm`), s.name]),
      "-o", f("merged.wasm"), ...(maps ? ["-osm", f("merged.map")] : []), "-g", ...FEATURES,
    ], { maxBuffer: 1 << 26 });
    return { wasm: new Uint8Array(await readFile(f("merged.wasm"))), sourceMap: maps ? await readFile(f("merged.map"), "utf8") : null };
  });
}

/**
 * The wasm-level passes every merged C++ kernel module gets, as Binaryen pass flags: -O3, which inlines the
 * runtime's small checked entries (accessor get/set, stream read/write) into the kernel's loops. (Sanitize mode's
 * instrumentation follows, on the result: sanitized().)
 */
export function kernelModulePasses(_options: KernelModuleOptions): string[] {
  return ["-O3", "--always-inline-max-function-size=100"];
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
    await run(process.execPath, [binaryenBin("wasm-opt"), f("in.wasm"), ...(m.sourceMap ? ["-ism", f("in.map"), "-osm", f("out.map")] : []),
      ...passes, "-g", ...FEATURES, "-o", f("out.wasm")], { maxBuffer: 1 << 26 });
    return { wasm: new Uint8Array(await readFile(f("out.wasm"))), sourceMap: m.sourceMap ? await readFile(f("out.map"), "utf8") : null };
  });
}

/** The module without its DWARF sections (custom sections named .debug_*, all after the code: no offset moves). */
export function stripDwarf(wasm: Uint8Array): Uint8Array {
  const kept = readSections(wasm).filter((s) => !(s.id === SectionId.custom && customSectionName(wasm, s.contentStart).startsWith(".debug_")));
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
