// Post-link steps on Binaryen: merge the device runtime and the C++ kernel
// into one module (wasm-merge: the kernel's "gpsimd-abi" imports become
// direct calls into the runtime), then instrumentKernelModule, where the
// wasm-level passes for any kernel module run (sanitize today; the stop polls
// plug in here). Source maps go in and out of each step (Binaryen keeps an
// instruction's source place when a pass moves or copies it), so a kernel's
// errors keep naming its .cpp lines after every pass.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const binaryenBin = (tool: string) => path.join(path.dirname(createRequire(import.meta.url).resolve("binaryen/package.json")), "bin", tool);

/** A module and its source map (null: none). */
export interface MappedModule { wasm: Uint8Array; sourceMap: string | null }

/** The import module name the C++ headers use for the runtime's C ABI (include/gpsimd/abi.h). */
export const ABI_MODULE = "gpsimd-abi";
const FEATURES = ["--enable-simd", "--enable-threads", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals"];

async function withTemp<T>(f: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), "gpsimd-cpp-"));
  try { return await f(dir); } finally { await rm(dir, { recursive: true, force: true }); }
}

/** One module: the runtime, then the kernel linked against its exports; one shared memory import (env.memory). */
export async function mergeRuntime(runtime: MappedModule, kernel: Uint8Array, kernelMap: string | null): Promise<MappedModule> {
  return withTemp(async (dir) => {
    const f = (n: string) => path.join(dir, n);
    await writeFile(f("runtime.wasm"), runtime.wasm);
    await writeFile(f("kernel.wasm"), kernel);
    const maps = runtime.sourceMap && kernelMap;
    if (maps) { await writeFile(f("runtime.map"), runtime.sourceMap!); await writeFile(f("kernel.map"), kernelMap!); }
    await run(process.execPath, [binaryenBin("wasm-merge"),
      f("runtime.wasm"), ABI_MODULE, ...(maps ? ["-ism", f("runtime.map")] : []),
      f("kernel.wasm"), "kernel", ...(maps ? ["-ism", f("kernel.map")] : []),
      "-o", f("merged.wasm"), ...(maps ? ["-osm", f("merged.map")] : []), "-g", ...FEATURES,
    ], { maxBuffer: 1 << 26 });
    return { wasm: new Uint8Array(await readFile(f("merged.wasm"))), sourceMap: maps ? await readFile(f("merged.map"), "utf8") : null };
  });
}

/** Passes that every kernel module gets after linking: today the sanitizer's memory instrumentation (sanitize mode). */
export async function instrumentKernelModule(m: MappedModule, options: { sanitize: boolean }): Promise<MappedModule> {
  const passes: string[] = [];
  if (options.sanitize) passes.push("--instrument-memory");
  // Strip DWARF (the source map carries the lines) and the runtime's C ABI exports the host does not call.
  return withTemp(async (dir) => {
    const f = (n: string) => path.join(dir, n);
    await writeFile(f("in.wasm"), m.wasm);
    if (m.sourceMap) await writeFile(f("in.map"), m.sourceMap);
    await run(process.execPath, [binaryenBin("wasm-opt"), f("in.wasm"), ...(m.sourceMap ? ["-ism", f("in.map"), "-osm", f("out.map")] : []),
      ...passes, "--strip-dwarf", "-g", ...FEATURES, "-o", f("out.wasm")], { maxBuffer: 1 << 26 });
    return { wasm: new Uint8Array(await readFile(f("out.wasm"))), sourceMap: m.sourceMap ? await readFile(f("out.map"), "utf8") : null };
  });
}
