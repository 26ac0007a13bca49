// Which libraries an operator folder (or a list of files) holds. A folder
// follows the layout of ops/<op>/ — register-<variant>.ts calls
// NEURON_LIBRARY, <variant>.ts has the kernels, shape.ts the shape
// functions, reference.ts the TypeScript reference — or holds a C++ kernel
// (its .cpp files, the one calling NEURON_LIBRARY being shape.cpp), or says it
// all in a gpsimd.json manifest. README "Command line" documents them.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { OP_LIBRARIES, PACKAGE_ROOT, type OpLibrary } from "../ops/index.js";
import { UsageError } from "./options.js";

/** One library to build. Paths are absolute. */
export interface LibrarySpec {
  /** Build name: lib<name>.wasm. */
  name: string;
  compute: string[];
  shape: string[];
  multicore: boolean;
  cflags: string[];
  /** The folder's TypeScript reference, if it has one (a default for gpsimd check --ref). */
  reference?: string;
}

/** Choices from the command line that override the folder's. */
export interface SpecOverrides {
  variant?: string;
  name?: string;
  multicore?: boolean;
  cflags?: string[];
}

/** The manifest a folder may hold instead of following the layout. */
export const MANIFEST = "gpsimd.json";

interface ManifestEntry { compute: string[]; shape: string[]; multicore?: boolean; cflags?: string[]; reference?: string; }

const SHAPE_FILE = /^(register|shape)([-_.].*)?\.ts$/;
/** C++ sources (as custom_op.load tells them apart). */
const CPP_FILE = /\.(cpp|cc|cxx)$/;
/** Kernel and shape sources a command line may list: TypeScript / AssemblyScript and C++. */
export const SOURCE_FILE = /\.(ts|cpp|cc|cxx)$/;
/** A C++ shape source by its name (shape.cpp, shape-giou.cc): other C++ files are shape sources if they call NEURON_LIBRARY. */
const CPP_SHAPE_FILE = /^shape([-_.].*)?\.(cpp|cc|cxx)$/;
const KERNEL_EXPORT = /export\s+function\s+\w+\s*\([^)]*:\s*Tensor\b/;

/** The libraries in folder `dir` (one, if overrides.variant picks it). */
export function folderLibraries(dir: string, overrides: SpecOverrides = {}): LibrarySpec[] {
  const folder = path.resolve(dir);
  const all = existsSync(path.join(folder, MANIFEST)) ? fromManifest(folder) : fromLayout(folder);
  const picked = overrides.variant === undefined ? all : all.filter((s) => s.name === overrides.variant || s.name.endsWith(`_${overrides.variant}`));
  if (picked.length === 0) {
    throw new UsageError(`${dir} has no variant ${overrides.variant}; it has ${all.map((s) => s.name).join(", ")}`);
  }
  if (overrides.name !== undefined && picked.length > 1) throw new UsageError(`--name names one library, but ${dir} has ${picked.length}: ${picked.map((s) => s.name).join(", ")}; pick one with --variant`);
  return picked.map((s) => applyOverrides(s, overrides));
}

/** One library from explicit files: shape sources are --shape files, files named shape*.ts / register*.ts, and files that call NEURON_LIBRARY. */
export function filesLibrary(files: string[], shapeFiles: string[], overrides: SpecOverrides = {}): LibrarySpec {
  const all = [...files, ...shapeFiles].map((f) => path.resolve(f));
  for (const f of all) if (!existsSync(f)) throw new UsageError(`${f} does not exist`);
  const isShape = (f: string) => shapeFiles.map((s) => path.resolve(s)).includes(f) || SHAPE_FILE.test(path.basename(f)) || CPP_SHAPE_FILE.test(path.basename(f)) || callsNeuronLibrary(f);
  const shape = all.filter(isShape);
  const compute = all.filter((f) => !isShape(f));
  if (compute.length === 0) throw new UsageError("no kernel source among the files (every one looks like a shape source)");
  if (shape.length === 0) throw new UsageError("no shape source among the files: give the file that calls NEURON_LIBRARY (or name it with --shape)");
  const name = overrides.name ?? path.basename(compute[0]).replace(SOURCE_FILE, "");
  return applyOverrides({ name, compute, shape, multicore: false, cflags: [] }, overrides);
}

function applyOverrides(s: LibrarySpec, o: SpecOverrides): LibrarySpec {
  return { ...s, name: o.name ?? s.name, multicore: o.multicore ?? s.multicore, cflags: [...s.cflags, ...(o.cflags ?? [])] };
}

function fromManifest(folder: string): LibrarySpec[] {
  const file = path.join(folder, MANIFEST);
  let parsed: { libraries?: Record<string, ManifestEntry> };
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new UsageError(`${file}: ${(e as Error).message}`);
  }
  const entries = Object.entries(parsed.libraries ?? {});
  if (entries.length === 0) throw new UsageError(`${file}: expected { "libraries": { "<name>": { "compute": [...], "shape": [...] } } }`);
  return entries.map(([name, e]) => {
    if (!Array.isArray(e.compute) || !Array.isArray(e.shape)) throw new UsageError(`${file}: library ${name} needs "compute" and "shape" lists of files`);
    const at = (f: string) => path.join(folder, f);
    return { name, compute: e.compute.map(at), shape: e.shape.map(at), multicore: e.multicore ?? false, cflags: e.cflags ?? [], reference: e.reference ? at(e.reference) : undefined };
  });
}

function callsNeuronLibrary(file: string): boolean {
  return readFileSync(file, "utf8").includes("NEURON_LIBRARY");
}

function fromLayout(folder: string): LibrarySpec[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new UsageError(`${folder} is not a folder`);
  const all = readdirSync(folder).sort();
  const files = all.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  const cpp = all.filter((f) => CPP_FILE.test(f));
  const cppShapes = cpp.filter((f) => CPP_SHAPE_FILE.test(f) || callsNeuronLibrary(path.join(folder, f)));
  const registers = files.filter((f) => /^register(-[\w-]+)?\.ts$/.test(f));
  const reference = files.includes("reference.ts") ? path.join(folder, "reference.ts") : undefined;
  const op = path.basename(folder);
  if (cppShapes.length > 0) return [cppLibrary(folder, op, cpp, cppShapes, registers, reference)];
  if (registers.length === 0) throw new UsageError(`${folder} has no register.ts or register-<variant>.ts (the file that calls NEURON_LIBRARY), no C++ shape source (shape.cpp) and no ${MANIFEST}`);
  const shapeHelpers = files.filter((f) => SHAPE_FILE.test(f) && !registers.includes(f));
  const tsKernels = files.filter((f) => !SHAPE_FILE.test(f) && !f.startsWith("reference") && KERNEL_EXPORT.test(readFileSync(path.join(folder, f), "utf8")));
  // C++ kernels with TypeScript shape sources: the .cpp files are the kernels when no .ts file exports one.
  const kernels = tsKernels.length > 0 ? tsKernels : cpp;
  return registers.map((reg) => {
    const variant = /^register-([\w-]+)\.ts$/.exec(reg)?.[1];
    const name = variant ? `${op}_${variant}` : op;
    const shipped = shippedEntry(folder, name);
    if (shipped) {
      const at = (f: string) => path.join(PACKAGE_ROOT, "ops", f);
      return { name, compute: shipped.compute.map(at), shape: shipped.shape.map(at), multicore: shipped.multicore, cflags: shipped.cflags ?? [], reference };
    }
    const ownFile = variant && [`${variant}.ts`, `${variant}.cpp`, `${variant}.cc`, `${variant}.cxx`].find((f) => all.includes(f));
    const own = ownFile ? [ownFile] : kernels;
    if (own.length === 0) throw new UsageError(`${folder}: no kernel source for ${name} (expected ${variant ?? op}.ts or ${variant ?? op}.cpp, .ts files exporting functions that take a Tensor, or .cpp files)`);
    return {
      name, compute: own.map((f) => path.join(folder, f)), shape: [reg, ...shapeHelpers].map((f) => path.join(folder, f)),
      multicore: /multicore/.test(variant ?? ""), cflags: [], reference,
    };
  });
}

/**
 * The one library of a folder whose shape sources are C++ (shape.cpp calls NEURON_LIBRARY): named after the folder,
 * its kernels every other .cpp file. Variants are for register-<variant>.ts folders or a manifest.
 */
function cppLibrary(folder: string, op: string, cpp: string[], cppShapes: string[], registers: string[], reference: string | undefined): LibrarySpec {
  if (registers.length > 0) throw new UsageError(`${folder} has both C++ shape sources (${cppShapes.join(", ")}) and ${registers.join(", ")}: keep one, or list the libraries in ${MANIFEST}`);
  const kernels = cpp.filter((f) => !cppShapes.includes(f));
  if (kernels.length === 0) throw new UsageError(`${folder}: no C++ kernel source beside ${cppShapes.join(", ")} (a .cpp file with the kernel functions)`);
  const at = (f: string) => path.join(folder, f);
  return { name: op, compute: kernels.map(at), shape: cppShapes.map(at), multicore: false, cflags: [], reference };
}

/** The shipped library's entry when folder is ops/<op> of this package (its build options, e.g. a larger kernel heap). */
function shippedEntry(folder: string, name: string): OpLibrary | undefined {
  if (path.dirname(folder) !== path.join(PACKAGE_ROOT, "ops")) return undefined;
  return (OP_LIBRARIES as Record<string, OpLibrary>)[name];
}
