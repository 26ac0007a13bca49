// C++ shape sources (shape.cpp with NEURON_LIBRARY) become one small
// WebAssembly module for the host: compiled with clang against the same
// headers as kernels, with the tensor functions left as imports that the host
// answers with meta tensors (host/library/cpp-shapes.ts). It is stored in the
// library file, so a library loads without a compiler.
import { readFile } from "node:fs/promises";
import { readdirSync } from "node:fs";
import path from "node:path";
import { CPP_INCLUDE_DIR } from "./clang-driver.js";
import { clang, MissingCompilerError, type FileTree } from "./toolchain.js";
import { HEADER_FILE, headersUnder, splitIncludeFlags } from "./user-headers.js";
import { stoppableShapeModule } from "./shape-polls.js";
import { buildStarts } from "./binaryen-tools.js";
import { readyPrecompiledHeader, prepareHeadersInBackground, forgetPrecompiledHeader, unitTakesPch, withPch as addPch, PCH_FILE } from "./header-pch.js";
import { timeStage, timeStageAsync, DETAIL } from "../build-stages.js";
import { createHash } from "node:crypto";

/** The clang flags of shape modules: C++14 as on the device, no libc, the host answers the imports. */
function shapeFlags(extraCflags: string[]): string[] {
  const allowed = extraCflags.filter((f) => /^-(D|U|std=|O|W|I.)/.test(f)).map((f) => (f.startsWith("-I") ? `-I${path.resolve(f.slice(2))}` : f));
  return ["--target=wasm32-wasip1", "-std=c++14", "-O2", "-gline-tables-only", "-gdwarf-4", "-DGPSIMD_SHAPE_MODULE", "-fno-color-diagnostics", "-fno-caret-diagnostics", "-fno-exceptions", "-fno-rtti", "-nostdlib", `-I${CPP_INCLUDE_DIR}`, ...allowed,
    "-Wl,--no-entry", "-Wl,--export-table"];
}

/** A virtual file tree for the compiler: each file at its absolute path, so clang's messages name real files. */
type Tree = FileTree;
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

/** Places the author's headers under a folder (its sub-folders too: #include "util/math.h"). */
function placeHeaders(tree: Tree, texts: Map<string, string>, dir: string): void {
  for (const [rel, text] of headersUnder(dir)) {
    const file = path.join(dir, rel);
    if (HEADER_FILE.test(file)) { texts.set(file, text); place(tree, file, text); }
  }
}

/**
 * What the precompiled header of a shape compile without extra_cflags is made from (its flags without the link's,
 * gpsimd's headers placed at their paths, their texts): the one `npm run build` makes into the package (prebuild.ts).
 */
export async function defaultShapePchInputs(): Promise<{ flags: string[]; tree: FileTree; headerTexts: Map<string, string> }> {
  const tree: Tree = {};
  const headerTexts = new Map<string, string>();
  await placeFolder(tree, headerTexts, CPP_INCLUDE_DIR, () => true, true);
  return { flags: shapeFlags([]).filter((f) => !f.startsWith("-Wl,")), tree, headerTexts };
}

/** What the compiler said, or the module. */
export type ShapeModuleResult = { wasm: Uint8Array; texts: Map<string, string> } | { messages: string[] };

/**
 * Shape modules of recent builds in this process, by everything they are made of (the flags, each source and header
 * text by path): a kernel edit in `gpsimd watch` does not compile the unchanged shape sources again (1.5-2.3 s of a
 * rebuild). The compiler is the same for the whole process.
 */
const recentModules = new Map<string, { wasm: Uint8Array; texts: Map<string, string> }>();
const RECENT_MODULES_KEPT = 4;

function moduleKey(sources: string[], flags: string[], texts: Map<string, string>): string {
  const h = createHash("sha256").update(JSON.stringify({ sources, flags }));
  for (const file of [...texts.keys()].sort()) h.update(`\0${file}\0`).update(texts.get(file)!);
  return h.digest("hex");
}

/**
 * Compiles the C++ shape sources into one host module. `compiled` is called once clang has made it, before its stop
 * polls (a tool process, then a Binaryen pass): the caller may start the kernel's compile on this thread meanwhile;
 * the polls' time is then a detail of the build (they overlap other stages), not a stage of its own.
 */
export async function compileCppShapes(sources: string[], extraCflags: string[], compiled?: () => void): Promise<ShapeModuleResult> {
  let run;
  try {
    run = await timeStageAsync("compiler start", () => clang());
  } catch (e) {
    if (e instanceof MissingCompilerError) return { messages: [e.message.replace("C++ kernel sources need", "C++ shape sources need")] };
    throw e;
  }
  const tree: Tree = {};
  const texts = new Map<string, string>();
  for (const file of sources) {
    const text = await readFile(file, "utf8");
    texts.set(file, text);
    place(tree, file, text);
    placeHeaders(tree, texts, path.dirname(file));
  }
  for (const dir of splitIncludeFlags(extraCflags).includeDirs) placeHeaders(tree, texts, dir);
  const headerTexts = new Map<string, string>();
  await placeFolder(tree, headerTexts, CPP_INCLUDE_DIR, () => true, true);
  for (const [file, text] of headerTexts) texts.set(file, text);
  const out = "gpsimd-shape.wasm";
  let stderr = "";
  const decoder = new TextDecoder();
  const flags = shapeFlags(extraCflags);
  // gpsimd's headers precompiled (header-pch.ts) when every shape source may start from them; the link flags are the link's.
  const key = moduleKey(sources, flags, texts);
  const recent = recentModules.get(key);
  if (recent) {
    timeStage("shape function: unchanged, the last build's module", () => compiled?.());
    return { wasm: recent.wasm, texts: new Map(recent.texts) };
  }
  buildStarts();
  const pchFlags = flags.filter((f) => !f.startsWith("-Wl,"));
  const takesPch = sources.every((f) => unitTakesPch(texts.get(f)!));
  const pch = takesPch ? readyPrecompiledHeader(pchFlags, headerTexts) : null;
  const compile = (withPch: boolean) => run(["clang++", ...flags, ...(withPch ? ["-include-pch", PCH_FILE] : []), ...sources, "-o", out], withPch ? addPch(tree, pch!) : tree, {
    stderr: (bytes: Uint8Array | null) => { if (bytes) stderr += decoder.decode(bytes, { stream: true }); },
  });
  try {
    let files: FileTree;
    try {
      files = await timeStageAsync(pch ? "compile shape function (from precompiled headers)" : "compile shape function", () => compile(pch !== null));
    } catch (e) {
      // clang refused the precompiled header itself: without it.
      if (!pch || !/precompiled header|PCH file|\.pch/i.test(stderr)) throw e;
      forgetPrecompiledHeader(pchFlags, headerTexts);
      stderr = "";
      files = await timeStageAsync("compile shape function", () => compile(false));
    }
    // Parsed the headers itself: the precompiled ones are made meanwhile, for the next build (header-pch.ts).
    if (takesPch && !pch) prepareHeadersInBackground(pchFlags, tree, headerTexts);
    const wasm = (files as Tree)[out];
    if (!(wasm instanceof Uint8Array)) return { messages: [stderr.trim() || "clang produced no shape module"] };
    // Stoppable, with its lines (shape-polls.ts): shape code runs on the calling thread.
    compiled?.();
    const stoppable = compiled
      ? await timeStageAsync("shape function: stop polls (beside the kernel's compile)", () => stoppableShapeModule(wasm), DETAIL)
      : await timeStageAsync("shape function: stop polls", () => stoppableShapeModule(wasm));
    if (recentModules.size >= RECENT_MODULES_KEPT) recentModules.delete(recentModules.keys().next().value!);
    recentModules.set(key, { wasm: stoppable, texts: new Map(texts) });
    return { wasm: stoppable, texts };
  } catch (e) {
    if (stderr) return { messages: stderr.trim().split("\n") };
    throw e;
  }
}
