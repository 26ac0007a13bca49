// The <library> argument of run, check and profile: a lib<name>.wasm file, an
// operator folder (built first, as gpsimd build does), the name of a shipped
// library (relu_tcm, giou_multicore, ...), or kernel and shape files (built
// first, as gpsimd build <files...> does). Builds go through custom_op.load,
// so an unchanged library is not rebuilt.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { custom_op, BuildError, GpsimdError, type Library, type LoadTimeOptions } from "../host/index.js";
import { OP_LIBRARIES, PACKAGE_ROOT, loadOp, type OpLibraryName } from "../ops/index.js";
import { folderLibraries, filesLibrary, SOURCE_FILE, type LibrarySpec, type SpecOverrides } from "./op-folder.js";
import { CommandError, UsageError, EXIT, DEFAULT_OUT, listOption, runtimeOptions, type RuntimeChoices } from "./options.js";
import { showBuildTimes } from "./build-times.js";

/** A built (or found up to date) library. */
export interface Built {
  library: Library;
  file: string;
  /** False when the file was up to date. */
  rebuilt: boolean;
  millis: number;
}

/** Builds (unless up to date) and loads one library; compile errors become a CommandError (exit 3) listing file:line messages. */
export function buildSpec(spec: LibrarySpec, outDir: string, force = false, device: RuntimeChoices = {}): Built {
  const file = path.resolve(outDir, `lib${spec.name}.wasm`);
  const before = existsSync(file) ? statSync(file).mtimeMs : -1;
  const t0 = performance.now();
  try {
    const library = custom_op.load({
      name: spec.name, compute_srcs: spec.compute, shape_srcs: spec.shape, multicore: spec.multicore,
      extra_cflags: spec.cflags, build_directory: path.resolve(outDir), force, ...device,
      // On a terminal (or with --verbose): what is built, and progress while a build takes more than a second.
      verbose: !!device.verbose || !!process.stderr.isTTY,
    });
    if (device.verbose) showBuildTimes(spec.name);
    return { library, file, rebuilt: statSync(file).mtimeMs !== before, millis: performance.now() - t0 };
  } catch (e) {
    if (e instanceof BuildError) {
      const messages = (e.details as { messages?: string[] }).messages ?? [e.message];
      throw new CommandError(`gpsimd: ${spec.name} did not compile:\n${messages.map((m) => `  ${m}`).join("\n")}`, EXIT.BUILD, e);
    }
    if (e instanceof GpsimdError) throw new CommandError(`gpsimd: ${spec.name}: ${e.message}`, EXIT.LOAD, e);
    throw e;
  }
}

/** What a <library> argument resolved to: the library, its folder's spec, and the folder's reference.ts (gpsimd check's default). */
export interface Opened { library: Library; spec?: LibrarySpec; reference?: string; }

/** Opens the library an argument names (building a folder first). */
export function openLibrary(ref: string, overrides: SpecOverrides = {}, outDir = DEFAULT_OUT, device: RuntimeChoices = {}): Opened {
  const { sanitize, verbose: _verbose, ...runtime } = device;
  const buildChoice = overrides.multicore ? "--multicore" : overrides.cflags?.length ? "--cflag" : null;
  const isFolder = existsSync(ref) && statSync(ref).isDirectory();
  if (buildChoice && !isFolder) throw new UsageError(`${buildChoice}: ${ref} is built with its own options; give an operator folder or source files to build with ${buildChoice}`);
  if (ref.endsWith(".wasm")) {
    if (sanitize) throw new UsageError(`--sanitize: ${ref} is built already; give its operator folder (or sources) to build it with the sanitizer`);
    if (!existsSync(ref)) throw new CommandError(`gpsimd: ${ref} does not exist (build it with gpsimd build)`, EXIT.LOAD);
    try {
      return { library: custom_op.load_library(ref, runtime) };
    } catch (e) {
      throw new CommandError(`gpsimd: ${ref}: ${(e as Error).message}`, EXIT.LOAD);
    }
  }
  if (isFolder) {
    const specs = folderLibraries(ref, overrides);
    if (specs.length > 1) throw new CommandError(`gpsimd: ${ref} has ${specs.length} libraries (${specs.map((s) => s.name).join(", ")}); pick one with --variant`, EXIT.USAGE);
    return { library: buildSpec(specs[0], outDir, false, device).library, spec: specs[0], reference: specs[0].reference };
  }
  if (Object.hasOwn(OP_LIBRARIES, ref)) {
    try {
      const folder = path.join(PACKAGE_ROOT, "ops", path.dirname(OP_LIBRARIES[ref as OpLibraryName].compute[0]));
      const reference = path.join(folder, "reference.ts");
      const library = loadOp(ref as OpLibraryName, { ...device, verbose: !!device.verbose || !!process.stderr.isTTY } as LoadTimeOptions);
      if (device.verbose) showBuildTimes(ref);
      return { library, reference: existsSync(reference) ? reference : undefined };
    } catch (e) {
      throw new CommandError(`gpsimd: ${ref}: ${(e as Error).message}`, EXIT.LOAD);
    }
  }
  throw new CommandError(`gpsimd: no library ${ref}: expected a lib<name>.wasm file, an operator folder, or a shipped library (${Object.keys(OP_LIBRARIES).join(", ")})`, EXIT.LOAD);
}

/** What run, check and profile operate on: the library (built if need be), the operator, the folder's reference. */
export interface Target extends Opened { opName: string }

/**
 * Reads `<library> <op>` or `<files...> <op>` from a command's positionals and opens the library with the command's
 * LIBRARY_OPTIONS and RUNTIME_OPTIONS; checks that the operator exists.
 */
export function openTarget(command: string, positionals: string[], values: Record<string, unknown>): Target {
  if (positionals.length < 2) throw new UsageError(`gpsimd ${command}: give a library and an operator (gpsimd ${command} --help)`);
  const refs = positionals.slice(0, -1);
  const opName = positionals[positionals.length - 1];
  const overrides: SpecOverrides = { variant: values.variant as string | undefined, multicore: values.multicore ? true : undefined, cflags: listOption(values, "cflag") };
  const outDir = (values.out as string | undefined) ?? DEFAULT_OUT;
  const device = runtimeOptions(values);
  let opened: Opened;
  if (refs.length > 1 || SOURCE_FILE.test(refs[0])) {
    const notSource = refs.find((r) => !SOURCE_FILE.test(r));
    if (notSource) throw new UsageError(`gpsimd ${command}: ${notSource} is not a kernel or shape source (.ts, .cpp, .cc, .cxx): give one library, or source files, then the operator`);
    const spec = filesLibrary(refs, [], overrides);
    opened = { library: buildSpec(spec, outDir, false, device).library, spec };
  } else {
    opened = openLibrary(refs[0], overrides, outDir, device);
  }
  requireOp(opened.library, opName);
  return { ...opened, opName };
}

/** Checks that the library has operator `op`. */
export function requireOp(library: Library, op: string): void {
  if (!library.ops.has(op)) throw new CommandError(`gpsimd: ${library.namespace} has no operator ${op}; it has ${[...library.ops.keys()].join(", ")}`, EXIT.LOAD);
}
