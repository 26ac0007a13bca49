// The <library> argument of run, check and profile: a lib<name>.wasm file, an
// operator folder (built first, as gpsimd build does), or the name of a
// shipped library (relu_tcm, giou_multicore, ...). Builds go through
// custom_op.load, so an unchanged library is not rebuilt.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { custom_op, BuildError, GpsimdError, type Library, type LoadTimeOptions } from "../host/index.js";
import { OP_LIBRARIES, PACKAGE_ROOT, loadOp, type OpLibraryName } from "../ops/index.js";
import { folderLibraries, type LibrarySpec, type SpecOverrides } from "./op-folder.js";
import { CommandError, UsageError, EXIT, DEFAULT_OUT, type RuntimeChoices } from "./options.js";

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
      // On a terminal: what is built, and progress while a build takes more than a second.
      verbose: !!process.stderr.isTTY,
    });
    return { library, file, rebuilt: statSync(file).mtimeMs !== before, millis: performance.now() - t0 };
  } catch (e) {
    if (e instanceof BuildError) {
      const messages = (e.details as { messages?: string[] }).messages ?? [e.message];
      throw new CommandError(`gpsimd: ${spec.name} did not compile:\n${messages.map((m) => `  ${m}`).join("\n")}`, EXIT.BUILD);
    }
    if (e instanceof GpsimdError) throw new CommandError(`gpsimd: ${spec.name}: ${e.message}`, EXIT.LOAD);
    throw e;
  }
}

/** What a <library> argument resolved to: the library, its folder's spec, and the folder's reference.ts (gpsimd check's default). */
export interface Opened { library: Library; spec?: LibrarySpec; reference?: string; }

/** Opens the library an argument names (building a folder first). */
export function openLibrary(ref: string, overrides: SpecOverrides = {}, outDir = DEFAULT_OUT, device: RuntimeChoices = {}): Opened {
  const { sanitize, ...runtime } = device;
  if (ref.endsWith(".wasm")) {
    if (sanitize) throw new UsageError(`--sanitize: ${ref} is built already; give its operator folder (or sources) to build it with the sanitizer`);
    if (!existsSync(ref)) throw new CommandError(`gpsimd: ${ref} does not exist (build it with gpsimd build)`, EXIT.LOAD);
    try {
      return { library: custom_op.load_library(ref, runtime) };
    } catch (e) {
      throw new CommandError(`gpsimd: ${ref}: ${(e as Error).message}`, EXIT.LOAD);
    }
  }
  if (existsSync(ref) && statSync(ref).isDirectory()) {
    const specs = folderLibraries(ref, overrides);
    if (specs.length > 1) throw new CommandError(`gpsimd: ${ref} has ${specs.length} libraries (${specs.map((s) => s.name).join(", ")}); pick one with --variant`, EXIT.USAGE);
    return { library: buildSpec(specs[0], outDir, false, device).library, spec: specs[0], reference: specs[0].reference };
  }
  if (Object.hasOwn(OP_LIBRARIES, ref)) {
    try {
      const folder = path.join(PACKAGE_ROOT, "ops", path.dirname(OP_LIBRARIES[ref as OpLibraryName].compute[0]));
      const reference = path.join(folder, "reference.ts");
      return { library: loadOp(ref as OpLibraryName, { ...device, verbose: !!process.stderr.isTTY } as LoadTimeOptions), reference: existsSync(reference) ? reference : undefined };
    } catch (e) {
      throw new CommandError(`gpsimd: ${ref}: ${(e as Error).message}`, EXIT.LOAD);
    }
  }
  throw new CommandError(`gpsimd: no library ${ref}: expected a lib<name>.wasm file, an operator folder, or a shipped library (${Object.keys(OP_LIBRARIES).join(", ")})`, EXIT.LOAD);
}

/** Checks that the library has operator `op`. */
export function requireOp(library: Library, op: string): void {
  if (!library.ops.has(op)) throw new CommandError(`gpsimd: ${library.namespace} has no operator ${op}; it has ${[...library.ops.keys()].join(", ")}`, EXIT.LOAD);
}
