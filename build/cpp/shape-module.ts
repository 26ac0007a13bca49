// C++ shape sources (shape.cpp with NEURON_LIBRARY) become one small
// WebAssembly module for the host: compiled with clang against the same
// headers as kernels, with the tensor functions left as imports that the host
// answers with meta tensors (host/library/cpp-shapes.ts). It is stored in the
// library file, so a library loads without a compiler.
import { readFile } from "node:fs/promises";
import { readdirSync } from "node:fs";
import path from "node:path";
import { ASSEMBLY_DIR } from "../paths.js";

/** The C++ headers gpsimd ships (torch/torch.h, torchneuron/register.h, ...). */
export const INCLUDE_DIR = path.join(path.dirname(ASSEMBLY_DIR), "include");

/** Source extensions that make a source C++. */
export const CPP_EXTENSIONS = [".cpp", ".cc", ".cxx"];
/** True for a C++ source file. */
export function isCppSource(file: string): boolean { return CPP_EXTENSIONS.includes(path.extname(file).toLowerCase()); }

const HEADER = /\.(h|hh|hpp|hxx|inc)$/i;

/** The clang flags of shape modules: C++14 as on the device, no libc, the host answers the imports. */
function shapeFlags(extraCflags: string[]): string[] {
  const allowed = extraCflags.filter((f) => /^-(D|U|std=|O)/.test(f));
  return ["-std=c++14", "-O2", "-DGPSIMD_SHAPE_MODULE", "-fno-exceptions", "-fno-rtti", "-nostdlib", `-I${INCLUDE_DIR}`, ...allowed,
    "-Wl,--no-entry", "-Wl,--export-table"];
}

/** A virtual file tree for the compiler: each file at its absolute path, so clang's messages name real files. */
type Tree = { [name: string]: Tree | string | Uint8Array };
function place(tree: Tree, file: string, content: string | Uint8Array): void {
  const parts = file.split(path.sep).filter(Boolean);
  let dir = tree;
  for (const p of parts.slice(0, -1)) dir = (dir[p] ??= {}) as Tree;
  dir[parts[parts.length - 1]] = content;
}
/** Places the headers of a folder; their texts go into the library's hash (a changed header rebuilds). */
async function placeFolder(tree: Tree, texts: Map<string, string>, dir: string, keep: (name: string) => boolean, recursive: boolean): Promise<void> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory() && recursive) await placeFolder(tree, texts, file, keep, true);
    else if (entry.isFile() && keep(entry.name)) {
      const text = await readFile(file, "utf8");
      texts.set(file, text);
      place(tree, file, text);
    }
  }
}

/** What the compiler said, or the module. */
export type ShapeModuleResult = { wasm: Uint8Array; texts: Map<string, string> } | { messages: string[] };

/** Compiles the C++ shape sources into one host module. */
export async function compileCppShapes(sources: string[], extraCflags: string[]): Promise<ShapeModuleResult> {
  const { commands } = await import("@yowasp/clang");
  const tree: Tree = {};
  const texts = new Map<string, string>();
  for (const file of sources) {
    const text = await readFile(file, "utf8");
    texts.set(file, text);
    place(tree, file, text);
    await placeFolder(tree, texts, path.dirname(file), (n) => HEADER.test(n), false);
  }
  await placeFolder(tree, texts, INCLUDE_DIR, () => true, true);
  const out = path.join(path.dirname(sources[0]), ".gpsimd-shape.wasm");
  let stderr = "";
  const decoder = new TextDecoder();
  try {
    const files = await commands["clang++"]([...shapeFlags(extraCflags), ...sources, "-o", out], tree, {
      stderr: (bytes: Uint8Array | null) => { if (bytes) stderr += decoder.decode(bytes, { stream: true }); },
    });
    const wasm = lookup(files as Tree, out);
    if (!(wasm instanceof Uint8Array)) return { messages: [stderr.trim() || "clang produced no shape module"] };
    return { wasm, texts };
  } catch (e) {
    if (stderr) return { messages: stderr.trim().split("\n") };
    throw e;
  }
}

function lookup(tree: Tree, file: string): Tree | string | Uint8Array | undefined {
  let node: Tree | string | Uint8Array | undefined = tree;
  for (const p of file.split(path.sep).filter(Boolean)) node = node && typeof node === "object" && !(node instanceof Uint8Array) ? node[p] : undefined;
  return node;
}
