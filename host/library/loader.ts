// custom_op.load and custom_op.load_library: build (or reuse) lib<name>.wasm,
// place its kernels in device memory, run its shape sources to collect the
// NEURON_LIBRARY definitions, and register the library under ops.<lib>.
import { SANITIZE_ABI } from "../checks/sanitizer-fast-path.js";
import { readFileSync, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import * as gpsimd from "../index.js";
import { decodeLibrary, LIBRARY_FORMAT, type LibraryParts, type LibraryManifest } from "./library-file.js";
import { cachedRuntimeHash } from "../../build/cpp/runtime-cache.js";
import { output } from "../output.js";
import { Library, placeModule } from "./library.js";
import { evaluateCppShapes } from "./cpp-shapes.js";
import { collectDefinitions, type LibraryDefinitions } from "./registry.js";
import { validateLoad, resolveRuntime, resolveCores, type LoadOptions, type LoadTimeOptions } from "./options.js";
import { BuildError, RegistryError, LibraryFormatError, OptionError } from "../checks/errors.js";
import { DEFAULT_HEAP_BYTES } from "../device/core-regions.js";
import { corePool } from "../cores/pool.js";
import { buildProgress } from "./build-progress.js";
import { buildSync, defaultBuildTimeoutMs } from "./compile-service.js";
import type { BuildStage } from "../../build/build-stages.js";
import { writeTypings } from "./typings.js";
import { cflagConstants } from "../../build/cflags.js";
import { inputsHash, readSources, treeHash } from "../../build/hash.js";
import { cppKernels, isCppSource } from "../../build/cpp/kernel-decls.js";
import { ASSEMBLY_DIR, BUILD_CODE_DIR, defaultBuildDir } from "../../build/paths.js";
import { CPP_INCLUDE_DIR } from "../../build/cpp/clang-driver.js";
import { includePathFlags } from "../../build/cpp/user-headers.js";
import { ABI_VERSION } from "../device/layout.js";
import { hbm } from "../device/hbm.js";
import { collectShapeFiles, transpileShapeSources, type ShapeModule } from "../../build/shape-sources.js";
import { kernelSignatures } from "../../build/signatures.js";

/** Loaded libraries by namespace (NEURON_LIBRARY name). */
const loaded = new Map<string, Library>();

/** The library registered as ops.<namespace>, if any. */
export function loadedLibrary(namespace: string): Library | undefined { return loaded.get(namespace); }
/** Namespaces of every loaded library. */
export function loadedNamespaces(): string[] { return [...loaded.keys()]; }

function list(v: string | string[]): string[] { return (typeof v === "string" ? [v] : v).map((f) => path.resolve(f)); }

/**
 * What every library is built with besides its own sources: the kernel library (assembly/), the C++ headers
 * (include/) and the build step's code (the passes that rewrite every kernel: stop polls, sanitize, call
 * sites, counting). Their hash is part of each library's, so a new gpsimd rebuilds old libraries.
 */
export const KERNEL_LIBRARY_DIRS: readonly string[] = [ASSEMBLY_DIR, CPP_INCLUDE_DIR, BUILD_CODE_DIR];
let kernelLibraryHash: string | null = null;
function hashKernelLibrary(): string {
  return (kernelLibraryHash ??= treeHash(KERNEL_LIBRARY_DIRS, [".ts", ".h", ".hpp", ".js"]));
}

/** The build settings that go into a library's hash (with the contents of its inputs). */
function hashSettings(o: LoadOptions, computeSrcs: string[], shapeSrcs: string[]): unknown {
  for (const file of [...computeSrcs, ...shapeSrcs]) {
    if (!existsSync(file)) throw new OptionError("E_NO_SOURCE", `custom_op.load(${o.name}): source file ${file} does not exist`, { details: { file } });
    if (!statSync(file).isFile()) throw new OptionError("E_NO_SOURCE", `custom_op.load(${o.name}): source ${file} is a folder, not a file; list its files in ${computeSrcs.includes(file) ? "compute_srcs" : "shape_srcs"}`, { details: { file } });
  }
  return { format: LIBRARY_FORMAT, abi: ABI_VERSION, kernels: hashKernelLibrary(), multicore: !!o.multicore, sanitize: o.sanitize ? SANITIZE_ABI : false, cflags: buildCflags(o), computeSrcs, shapeSrcs };
}

/** The compiler flags of a build: extra_cflags, then each of extra_include_paths as -I<absolute folder> (C++ only). */
function buildCflags(o: LoadOptions): string[] {
  return [...(o.extra_cflags ?? []), ...includePathFlags(o.extra_include_paths)];
}

/** The device runtime this process's builds merged, by sanitize mode (the compiler thread keeps it for the process). */
const builtRuntimes = new Map<boolean, string>();

/**
 * Whether a C++ library was merged with the device runtime a build would use now: the one this process's builds
 * used, else the disk cache's (checked: build/cpp/runtime-cache.ts). Without either the runtime must be compiled,
 * and the library is rebuilt with it. AssemblyScript libraries hold no separately built runtime.
 */
function runtimeIsCurrent(manifest: LibraryManifest, computeSrcs: string[]): boolean {
  if (!computeSrcs.some(isCppSource)) return true;
  const current = builtRuntimes.get(manifest.sanitize) ?? cachedRuntimeHash(manifest.sanitize);
  return manifest.runtime !== undefined && manifest.runtime === current;
}

/** The last build custom_op.load ran in this process: its name, total milliseconds on the compiler thread, and stages. */
export interface BuildTimes { name: string; millis: number; stages: BuildStage[] }
let lastBuild: BuildTimes | null = null;

/** Where the last build of this process went (build/build-stages.ts), or null: what `gpsimd <command> --verbose` prints. */
export function lastBuildTimes(): BuildTimes | null {
  return lastBuild;
}

/** Builds a library (unless lib<name>.wasm is up to date) and loads it; its operators appear under ops.<lib>. */
function load(options: LoadOptions): Library {
  validateLoad(options);
  const computeSrcs = list(options.compute_srcs);
  const shapeSrcs = list(options.shape_srcs);
  const dir = path.resolve(options.build_directory ?? defaultBuildDir(options.name));
  const file = path.join(dir, `lib${options.name}.wasm`);
  const settings = hashSettings(options, computeSrcs, shapeSrcs);
  const log = (text: string) => { if (options.verbose) process.stderr.write(`gpsimd: ${text}\n`); };
  let parts: LibraryParts | null = null;
  if (!options.force && existsSync(file)) {
    try {
      const existing = decodeLibrary(readFileSync(file), file);
      if (existing.manifest.hash === inputsHash(settings, readSources(existing.manifest.inputs)) && runtimeIsCurrent(existing.manifest, computeSrcs)) parts = existing;
    } catch { /* unreadable or old: rebuild */ }
  }
  if (parts) {
    log(`${file} is up to date`);
  } else {
    checkRegistrationBeforeBuild(options.name, file, computeSrcs, shapeSrcs);
    const stackSize = Number(cflagConstants(options.extra_cflags ?? []).STACK_SIZE ?? 0);
    log(`building ${file} from ${computeSrcs.length + shapeSrcs.length} source${computeSrcs.length + shapeSrcs.length === 1 ? "" : "s"}`);
    const progress = options.verbose ? buildProgress(options.name) : undefined;
    const answer = buildSync({
      name: options.name, computeSrcs, shapeSrcs, multicore: !!options.multicore, extraCflags: buildCflags(options),
      sanitize: !!options.sanitize, heapBytes: Math.max(DEFAULT_HEAP_BYTES, Number.isFinite(stackSize) ? stackSize : 0), hashSettings: settings,
    }, file, progress?.waiting, options.build_timeout_ms ?? defaultBuildTimeoutMs(sourceBytes([...computeSrcs, ...shapeSrcs])));
    progress?.done();
    for (const warning of answer.warnings ?? []) output().warn(`custom_op.load(${options.name}): ${warning}`);
    if (!answer.ok) {
      throw new BuildError("E_BUILD", `custom_op.load(${options.name}): the build failed:\n${answer.messages.join("\n")}`, { details: { messages: answer.messages } });
    }
    log(`built ${file} in ${answer.millis.toFixed(0)} ms`);
    lastBuild = { name: options.name, millis: answer.millis, stages: answer.stages ?? [] };
    parts = decodeLibrary(readLibraryFile(file), file);
    if (parts.manifest.runtime) builtRuntimes.set(parts.manifest.sanitize, parts.manifest.runtime);
  }
  const library = instantiate(parts, file, options);
  writeTypings(library);
  return library;
}

/** Bytes of the given source files (what the default build deadline grows with). */
function sourceBytes(files: string[]): number {
  return files.reduce((n, f) => n + statSync(f).size, 0);
}

/** Loads a library built earlier (possibly by another process). */
function load_library(libraryPath: string, options: LoadTimeOptions = {}): Library {
  if (typeof libraryPath !== "string") throw new OptionError("E_OPTION", `custom_op.load_library: expected the path of a lib<name>.wasm file, got ${typeof libraryPath}`);
  const file = path.resolve(libraryPath);
  if (!existsSync(file)) throw new LibraryFormatError("E_NO_LIBRARY", `custom_op.load_library: ${file} does not exist; build it with custom_op.load({ name, compute_srcs, shape_srcs, build_directory })`);
  return instantiate(decodeLibrary(readLibraryFile(file), file), file, options);
}

/** The bytes of a library file; a path that cannot be read (a folder, no permission) is LibraryFormatError. */
function readLibraryFile(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "EISDIR" ? "is a folder, not a lib<name>.wasm file" : `cannot be read (${(e as Error).message})`;
    throw new LibraryFormatError("E_LIBRARY_READ", `custom_op.load_library: ${file} ${why}`, { cause: e });
  }
}

/** Evaluates the shape modules (CommonJS) with `gpsimd` bound to this package. */
function evaluateShapes(modules: ShapeModule[], origin: string): void {
  const byPath = new Map(modules.map((m) => [m.path.replace(/\.(ts|mts|js)$/, ""), m]));
  const cache = new Map<string, { exports: unknown }>();
  const fallback = createRequire(origin);
  const requireFrom = (from: string) => (spec: string): unknown => {
    if (spec === "gpsimd") return gpsimd;
    if (spec.startsWith(".")) {
      const key = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.(ts|mts|js)$/, "");
      if (byPath.has(key)) return run(byPath.get(key)!);
    }
    return fallback(spec);
  };
  const run = (m: ShapeModule): unknown => {
    const key = m.path.replace(/\.(ts|mts|js)$/, "");
    const hit = cache.get(key);
    if (hit) return hit.exports;
    const module = { exports: {} as unknown };
    cache.set(key, module);
    const fn = new Function("exports", "require", "module", "__filename", "__dirname", `${m.code}\n//# sourceURL=${m.path}`);
    fn(module.exports, requireFrom(m.path), module, m.path, path.posix.dirname(m.path));
    return module.exports;
  };
  for (const m of modules) run(m);
}

/**
 * What the shape sources register (`evaluate` runs them: TypeScript modules or a C++ shape module), checked against
 * the library-level rules (one NEURON_LIBRARY, at most 10 m.def, distinct operator names, exported kernels, a name
 * neither reserved nor already loaded); throws a RegistryError.
 */
function registeredDefinitions(name: string, file: string, kernels: readonly string[], evaluate: (where: string) => void): LibraryDefinitions {
  const where = `lib${name} (${file})`;
  const found: LibraryDefinitions[] = collectDefinitions(where, kernels, () => evaluate(where));
  if (found.length === 0) throw new RegistryError("E_NO_LIBRARY_DECLARED", `${where}: the shape sources never call NEURON_LIBRARY(lib_name, (m) => m.def(...))`);
  if (found.length > 1) throw new RegistryError("E_TWO_LIBRARIES", `${where}: the shape sources declare ${found.length} libraries (${found.map((f) => f.lib).join(", ")}); one library per file`);
  const defs = found[0];
  const existing = loaded.get(defs.lib);
  if (existing) {
    throw new RegistryError("E_DUPLICATE_LIBRARY", `library ${defs.lib} is already registered by lib${existing.manifest.name} (${existing.path}); ${where} registers it again. Unload the first (library.unload()) or use another NEURON_LIBRARY name`, { details: { first: existing.path, second: file } });
  }
  return defs;
}

/**
 * Runs the shape sources' registration before the kernels compile (seconds), so a library-level mistake is reported
 * at once. Sources whose kernel signatures or shape code do not parse are left to the build, which names the place.
 */
function checkRegistrationBeforeBuild(name: string, file: string, computeSrcs: string[], shapeSrcs: string[]): void {
  const kernels: string[] = [];
  for (const src of computeSrcs) {
    const text = readFileSync(src, "utf8");
    const { kernels: found, problems } = isCppSource(src) ? cppKernels(src, text) : kernelSignatures(src, text);
    if (problems.length) return;
    kernels.push(...found.map((k) => k.name));
  }
  if (shapeSrcs.some(isCppSource)) return; // C++ shape sources register from their compiled module, after the build
  const shapes = transpileShapeSources(collectShapeFiles(shapeSrcs));
  if (shapes.errors.length) return;
  try {
    registeredDefinitions(name, file, kernels, () => evaluateShapes(shapes.modules, shapeSrcs[0] ?? file));
  } catch (e) {
    // C++ kernels are found by a declaration scan: one that a syntax error hides is the compiler's to report, at its line.
    if (e instanceof RegistryError && e.code === "E_UNKNOWN_KERNEL" && computeSrcs.some(isCppSource)) return;
    throw e;
  }
}

function instantiate(parts: LibraryParts, file: string, options: LoadTimeOptions): Library {
  const manifest = parts.manifest;
  const kernels = manifest.kernels.map((k) => k.name);
  // C++ shape code runs under the library's timeout_ms (as configured later, once the library exists).
  let made: Library | undefined;
  const shapeTimeout = () => made?.options.timeout_ms ?? (typeof options.timeout_ms === "number" ? options.timeout_ms : 30_000);
  const defs = registeredDefinitions(manifest.name, file, kernels, (where) => manifest.cppShapeModule
    ? evaluateCppShapes(Buffer.from(manifest.cppShapeModule, "base64"), where, shapeTimeout)
    : evaluateShapes(manifest.shapeModules, manifest.shapeSrcs[0] ?? file));
  const runtime = resolveRuntime(pickRuntime(options), undefined, `load ${manifest.name}`);
  const { cores, threads } = resolveCores(options, manifest.multicore);
  const placed = placeModule(parts);
  let library: Library;
  try {
    library = new Library(defs.lib, file, manifest, placed, defs.defs, runtime, cores, threads, corePool);
  } catch (e) {
    hbm().release(placed.staticBase);
    throw e;
  }
  made = library;
  loaded.set(defs.lib, library);
  if (library.multicore) corePool().prepare(library);
  const unload = library.unload.bind(library);
  library.unload = () => { unload(); if (loaded.get(defs.lib) === library) loaded.delete(defs.lib); };
  return library;
}

function pickRuntime(o: LoadTimeOptions): LoadTimeOptions {
  const { checks, leak_is_error, cross_core_checks, print_all_cores, timeout_ms, trace } = o;
  return Object.fromEntries(Object.entries({ checks, leak_is_error, cross_core_checks, print_all_cores, timeout_ms, trace }).filter(([, v]) => v !== undefined));
}

/** Unloads the library registered as namespace (or the given library). */
function unload(library: Library | string): void {
  const lib = typeof library === "string" ? loaded.get(library) : library;
  if (!lib) throw new RegistryError("E_UNKNOWN_LIBRARY", `no library ${String(library)} is loaded; loaded: ${[...loaded.keys()].join(", ") || "(none)"}`);
  lib.unload();
}

/** Build and load operator libraries, as torch_neuronx.xla_impl.custom_op. */
export const custom_op = { load, load_library, unload };
