// Builds one operator library: compiles the kernel sources twice (at two
// static-data bases, so addresses can be found and moved at load time),
// reads the kernels' signatures, transpiles the shape functions, and packs
// it all into the parts of a lib<name>.wasm file.
import { readFile } from "node:fs/promises";
import { compileOnce, type AscDiagnostic } from "./asc.js";
import { makeRelocatable } from "./relocate.js";
import { kernelSignatures, type KernelSignature } from "./signatures.js";
import { transpileShapeSources, collectShapeFiles } from "./shape-sources.js";
import { compileCppShapes, isCppSource } from "./cpp/shape-module.js";
import { BUILD_BASE_A, BUILD_BASE_B } from "../host/library/build-constants.js";
import { ABI_VERSION } from "../host/device/layout.js";
import { LIBRARY_FORMAT, type LibraryParts } from "../host/library/library-file.js";
import { inputsHash } from "./hash.js";
import { cflagConstants } from "./cflags.js";

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
}

/** A failed build: the compiler's messages with file and line. */
export interface BuildFailure { messages: string[]; }

/** Binaryen pass that routes every load and store through the sanitizer's checks. */
const SANITIZE_PASSES = ["instrument-memory"];


function formatDiagnostic(d: AscDiagnostic): string {
  return `${d.file ? `${d.file}:${d.line}:${d.column}: ` : ""}${d.category}: ${d.message}`;
}

/** Builds the library; returns its parts, or the messages that explain why it failed. */
export async function buildLibrary(req: BuildRequest): Promise<LibraryParts | BuildFailure> {
  const messages: string[] = [];
  const kernels: KernelSignature[] = [];
  for (const file of req.computeSrcs) {
    const { kernels: found, problems } = kernelSignatures(file, await readFile(file, "utf8"));
    kernels.push(...found);
    messages.push(...problems.map((p) => `${p.file}:${p.line}: error: ${p.message}`));
  }
  const cppShapes = req.shapeSrcs.some(isCppSource) ? await compileCppShapes(req.shapeSrcs, req.extraCflags) : null;
  if (cppShapes && "messages" in cppShapes) messages.push(...cppShapes.messages);
  const shapeFiles = cppShapes && "texts" in cppShapes ? [...cppShapes.texts].map(([file, text]) => ({ file, text })) : collectShapeFiles(req.shapeSrcs);
  const shapes = cppShapes ? { modules: [], errors: [] } : transpileShapeSources(shapeFiles);
  messages.push(...shapes.errors);
  if (messages.length) return { messages };

  const input = {
    sources: req.computeSrcs, optimizeLevel: 3,
    constants: cflagConstants(req.extraCflags),
    passes: req.sanitize ? SANITIZE_PASSES : [],
    sourceCache: new Map<string, string>(), // both compiles must see the same text, even if a file changes meanwhile
  };
  const a = await compileOnce({ ...input, memoryBase: BUILD_BASE_A });
  const errors = a.diagnostics.filter((d) => d.category === "error");
  if (errors.length || !a.binary) return { messages: errors.length ? errors.map(formatDiagnostic) : [a.text || "the compiler produced no module"] };
  const b = await compileOnce({ ...input, memoryBase: BUILD_BASE_B });
  if (!b.binary) return { messages: [b.text || "the second compile produced no module"] };

  const reloc = makeRelocatable(a.binary, b.binary, BUILD_BASE_A, BUILD_BASE_B);
  // The hash covers exactly the texts this build compiled.
  const texts = new Map<string, string>([...input.sourceCache, ...shapeFiles.map(({ file, text }) => [file, text] as const)]);
  for (const f of [...input.sourceCache.keys()]) if (!a.files.includes(f) && !req.computeSrcs.includes(f)) texts.delete(f);
  const inputs = [...texts.keys()].sort();
  return {
    manifest: {
      format: LIBRARY_FORMAT, name: req.name, abi: ABI_VERSION, multicore: req.multicore, sanitize: req.sanitize,
      extraCflags: req.extraCflags, heapBytes: req.heapBytes, kernels, shapeModules: shapes.modules,
      ...(cppShapes && "wasm" in cppShapes ? { cppShapeModule: Buffer.from(cppShapes.wasm).toString("base64") } : {}),
      hash: inputsHash(req.hashSettings, texts), inputs,
      computeSrcs: req.computeSrcs, shapeSrcs: req.shapeSrcs,
    },
    wasm: reloc.wasm, codeRelocs: reloc.codeRelocs, data: reloc.data, dataRelocs: reloc.dataRelocs,
    offsetMap: reloc.offsetMap, sourceMap: a.sourceMap ?? "",
  };
}
