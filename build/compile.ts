// Builds one operator library: compiles the kernel sources twice (at two
// static-data bases, so addresses can be found and moved at load time),
// reads the kernels' signatures, transpiles the shape functions, and packs
// it all into the parts of a lib<name>.wasm file.
import { readFile } from "node:fs/promises";
import { compileOnce, type AscDiagnostic } from "./asc.js";
import { makeRelocatable } from "./relocate.js";
import { kernelSignatures, type KernelSignature } from "./signatures.js";
import { transpileShapeSources, collectShapeFiles, typeCheckShapeSources, type ShapeModule } from "./shape-sources.js";
import { compileCppShapes } from "./cpp/shape-module.js";
import { BUILD_BASE_A, BUILD_BASE_B } from "../host/library/build-constants.js";
import { ABI_VERSION } from "../host/device/layout.js";
import { LIBRARY_FORMAT, type LibraryParts } from "../host/library/library-file.js";
import { inputsHash } from "./hash.js";
import { kernelAscInput, type KernelCompileSettings } from "./kernel-compile.js";
import { startSecondBuild, sameTexts } from "./second-build.js";
import { buildCpp, isCppSource } from "./cpp/build-cpp.js";
import { MissingCompilerError } from "./cpp/toolchain.js";
import { timeStage, timeStageAsync } from "./build-stages.js";

/** What to build. Paths are absolute. */
export interface BuildRequest {
  name: string;
  computeSrcs: string[];
  shapeSrcs: string[];
  multicore: boolean;
  extraCflags: string[];
  sanitize: boolean;
  heapBytes: number;
  /** Settings that, with the contents of every source read, make the library's hash (build/hash.ts). */
  hashSettings: unknown;
  /**
   * Binaryen's optimize level instead of -O3 (`gpsimd watch`: host/library/compile-service.ts, which also puts it in
   * hashSettings): for AssemblyScript kernels asconfig.json's, for C++ kernels the merged module's (clang's -O3 stays).
   * The checks are the same at every level: they are inserted before the optimiser runs.
   */
  optimizeLevel?: number;
}

/** A failed build: the compiler's messages with file and line. */
export interface BuildFailure { messages: string[]; }


function formatDiagnostic(d: AscDiagnostic): string {
  return `${d.file ? `${d.file}:${d.line}:${d.column}: ` : ""}${d.category}: ${d.message}`;
}

/**
 * The shape sources as the library file holds them: TypeScript transpiled, or C++ compiled to a host module (base64).
 * `compiled`: see compileCppShapes (C++ shape sources only).
 */
async function buildShapes(req: BuildRequest, compiled?: () => void): Promise<{ modules: ShapeModule[]; cppShapeModule?: string; files: { file: string; text: string }[]; errors: string[] }> {
  if (req.shapeSrcs.some(isCppSource)) {
    const cpp = await compileCppShapes(req.shapeSrcs, req.extraCflags, compiled);
    if ("messages" in cpp) return { modules: [], files: [], errors: cpp.messages };
    return { modules: [], cppShapeModule: Buffer.from(cpp.wasm).toString("base64"), files: [...cpp.texts].map(([file, text]) => ({ file, text })), errors: [] };
  }
  const files = collectShapeFiles(req.shapeSrcs);
  const { modules, errors } = transpileShapeSources(files);
  return { modules, files, errors };
}

/** Type-check results of recent shape sources, by their texts: a rebuild after a kernel edit does not check them again. */
const shapeChecks = new Map<string, string[]>();
const SHAPE_CHECKS_KEPT = 16;

/**
 * typeCheckShapeSources, answered from shapeChecks when the same files with the same texts were checked before in
 * this process. What else a check reads (gpsimd's host typings, TypeScript's lib, installed packages) does not
 * change while the process runs: shape-sources.ts keeps them parsed for the same reason.
 */
function typeCheckedShapes(files: { file: string; text: string }[]): string[] {
  const key = JSON.stringify(files.map(({ file, text }) => [file, text]));
  const known = shapeChecks.get(key);
  if (known) return known;
  const errors = typeCheckShapeSources(files);
  if (shapeChecks.size >= SHAPE_CHECKS_KEPT) shapeChecks.delete(shapeChecks.keys().next().value!);
  shapeChecks.set(key, errors);
  return errors;
}

/** Builds the library; returns its parts, or the messages that explain why it failed. */
export async function buildLibrary(req: BuildRequest): Promise<LibraryParts | BuildFailure> {
  const cpp = req.computeSrcs.filter(isCppSource);
  if (cpp.length && cpp.length !== req.computeSrcs.length) {
    return { messages: [`a library's compute sources are all C++ (.cpp, .cc, .cxx) or all AssemblyScript; got ${req.computeSrcs.map((f) => f.split("/").pop()).join(", ")}`] };
  }
  if (cpp.length) return buildCppLibrary(req);
  const messages: string[] = [];
  const kernels: KernelSignature[] = [];
  for (const file of req.computeSrcs) {
    const text = await readFile(file, "utf8");
    const { kernels: found, problems } = timeStage("kernel signatures", () => kernelSignatures(file, text));
    kernels.push(...found);
    messages.push(...problems.map((p) => `${p.file}:${p.line}: error: ${p.message}`));
  }
  const shapes = await timeStageAsync("shape sources", () => buildShapes(req));
  const shapeFiles = shapes.files;
  messages.push(...shapes.errors);
  if (messages.length) return { messages };
  messages.push(...timeStage("shape type-check", () => typeCheckedShapes(shapeFiles)));
  if (messages.length) return { messages };

  const settings: KernelCompileSettings = { computeSrcs: req.computeSrcs, sanitize: req.sanitize, extraCflags: req.extraCflags, optimizeLevel: req.optimizeLevel };
  const sourceCache = new Map<string, string>(); // A's texts; B must compile the same, even if a file changes meanwhile
  const second = startSecondBuild(settings, BUILD_BASE_B); // B on the second thread while A compiles here
  const a = await compileOnce({ ...kernelAscInput(settings, true), memoryBase: BUILD_BASE_A, sourceCache });
  const errors = a.diagnostics.filter((d) => d.category === "error");
  if (errors.length || !a.binary) return { messages: errors.length ? errors.map(formatDiagnostic) : [a.text || "the compiler produced no module"] };
  const fromSecond = await timeStageAsync("build B: wait for the second thread", () => second);
  let binaryB = fromSecond && !fromSecond.failure && sameTexts(sourceCache, new Map(fromSecond.texts)) ? fromSecond.binary : null;
  if (!fromSecond || fromSecond.failure || !sameTexts(sourceCache, new Map(fromSecond.texts))) {
    const b = await timeStageAsync("build B: on this thread", () => compileOnce({ ...kernelAscInput(settings, false), memoryBase: BUILD_BASE_B, sourceCache }));
    binaryB = b.binary;
    if (!binaryB) return { messages: [b.text || "the second compile produced no module"] };
  }
  if (!binaryB) return { messages: [fromSecond?.text || "the second compile produced no module"] };
  const binaryA = a.binary;

  const reloc = timeStage("relocate", () => makeRelocatable(binaryA, binaryB!, BUILD_BASE_A, BUILD_BASE_B));
  // The hash covers exactly the texts this build compiled.
  const texts = new Map<string, string>([...sourceCache, ...shapeFiles.map(({ file, text }) => [file, text] as const)]);
  for (const f of [...sourceCache.keys()]) if (!a.files.includes(f) && !req.computeSrcs.includes(f)) texts.delete(f);
  const inputs = [...texts.keys()].sort();
  return {
    manifest: {
      format: LIBRARY_FORMAT, name: req.name, abi: ABI_VERSION, multicore: req.multicore, sanitize: req.sanitize,
      extraCflags: req.extraCflags, heapBytes: req.heapBytes, kernels, shapeModules: shapes.modules, cppShapeModule: shapes.cppShapeModule,
      hash: timeStage("library hash", () => inputsHash(req.hashSettings, texts)), inputs,
      computeSrcs: req.computeSrcs, shapeSrcs: req.shapeSrcs,
    },
    wasm: reloc.wasm, codeRelocs: reloc.codeRelocs, data: reloc.data, dataRelocs: reloc.dataRelocs,
    offsetMap: reloc.offsetMap, sourceMap: a.sourceMap ?? "",
  };
}

/**
 * A library whose compute sources are C++ (build/cpp/): the same parts, from one merged kernel module. The kernel's
 * build starts as soon as clang has compiled the shape sources, so that the shape module's stop polls (a tool
 * process) run beside it; a shape source that does not compile is reported before any kernel work starts.
 */
async function buildCppLibrary(req: BuildRequest): Promise<LibraryParts | BuildFailure> {
  let kernel: Promise<Awaited<ReturnType<typeof buildCpp>> | BuildFailure> | null = null;
  const startKernel = () => {
    kernel ??= buildCpp({ computeSrcs: req.computeSrcs, extraCflags: req.extraCflags, sanitize: req.sanitize, optimizeLevel: req.optimizeLevel }).catch((e: unknown) => {
      if (e instanceof MissingCompilerError) return { messages: [e.message] };
      throw e;
    });
  };
  let shapes: Awaited<ReturnType<typeof buildShapes>>;
  try {
    shapes = await buildShapes(req, startKernel);
  } catch (e) {
    await (kernel as Promise<unknown> | null)?.catch(() => {}); // no build's work outlives it
    throw e;
  }
  const shapeFiles = shapes.files;
  if (shapes.errors.length) {
    await (kernel as Promise<unknown> | null)?.catch(() => {});
    return { messages: shapes.errors };
  }
  startKernel();
  const built = await kernel!;
  if ("messages" in built) return built;
  const texts = new Map<string, string>([...built.texts, ...shapeFiles.map(({ file, text }) => [file, text] as const)]);
  const { reloc } = built;
  return {
    manifest: {
      format: LIBRARY_FORMAT, name: req.name, abi: ABI_VERSION, multicore: req.multicore, sanitize: req.sanitize,
      extraCflags: req.extraCflags, heapBytes: req.heapBytes, kernels: built.kernels, shapeModules: shapes.modules, cppShapeModule: shapes.cppShapeModule,
      hash: inputsHash(req.hashSettings, texts), inputs: [...texts.keys()].sort(), runtime: built.runtimeHash,
      computeSrcs: req.computeSrcs, shapeSrcs: req.shapeSrcs,
    },
    wasm: reloc.wasm, codeRelocs: reloc.codeRelocs, data: reloc.data, dataRelocs: reloc.dataRelocs,
    offsetMap: reloc.offsetMap, sourceMap: built.sourceMap,
  };
}
