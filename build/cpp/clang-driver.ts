// Runs clang++ (compile once) and lld (link at a given static-data base) on a
// virtual file tree: gpsimd's headers under include/, the user's sources under
// src/<n>/, and the exports unit. Maps clang's messages back to real paths.
import path from "node:path";
import { readdirSync, statSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { clang, type FileTree } from "./toolchain.js";
import { headersUnder, splitIncludeFlags } from "./user-headers.js";
import { readyPrecompiledHeader, prepareHeadersInBackground, forgetPrecompiledHeader, unitTakesPch, withPch as addPch, PCH_FILE } from "./header-pch.js";
import { timeStageAsync, recordStage, DETAIL } from "../build-stages.js";
import { createHash } from "node:crypto";

/** gpsimd's C++ headers (include/ of this package), found upwards from this file (build/cpp or dist/build/cpp). */
export const CPP_INCLUDE_DIR = findIncludeDir(path.dirname(fileURLToPath(import.meta.url)));

function findIncludeDir(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "include");
    try { if (statSync(path.join(candidate, "torch", "torch.h")).isFile()) return candidate; } catch { /* keep looking */ }
    if (path.dirname(dir) === dir) throw new Error(`gpsimd: cannot find the C++ headers (include/torch/torch.h) above ${from}`);
  }
}

/**
 * Flags every kernel compiles with: the device's C++14, no exceptions or RTTI, wasm SIMD, line tables only; printf
 * stays printf (clang turns printf("text\n") into libc's puts, which would need WASI; gpsimd defines printf only) and
 * fprintf stays as written (not turned into fwrite), so that the build error for it names what the kernel calls.
 */
const COMPILE_FLAGS = [
  "--target=wasm32-wasip1", "-O3", "-msimd128", "-mbulk-memory", "-mnontrapping-fptoint", "-msign-ext", "-fno-builtin-printf",
  "-gline-tables-only", "-gdwarf-4", "-fno-exceptions", "-fno-rtti", "-fno-threadsafe-statics", "-std=c++14", "-Iinclude",
  "-fno-builtin-fprintf", "-fdiagnostics-absolute-paths", "-fno-color-diagnostics", "-fno-caret-diagnostics",
];
/** extra_cflags that reach clang: macros, the standard, the optimisation level, warnings. */
const PASSED_FLAG = /^-(?:D|U|std=|O|W)/;

const EXPORTS_UNIT = "gpsimd-kernel-exports.cpp";
const EXPORTS_NAME = "(gpsimd kernel exports)";

/** Compiled objects, and how to name a virtual file as the user's. */
export interface CppObjects { objects: FileTree; sourceName: (virtual: string) => string }

let includeTree: FileTree | null = null;
/** gpsimd's headers as (path under include/, text): what a precompiled header is made of (header-pch.ts). */
let includeTexts: [string, string][] = [];
function treeTexts(tree: FileTree, at = ""): [string, string][] {
  return Object.entries(tree).flatMap(([name, v]) => (v instanceof Uint8Array || typeof v === "string"
    ? [[`${at}${name}`, typeof v === "string" ? v : new TextDecoder().decode(v)] as [string, string]]
    : treeTexts(v, `${at}${name}/`)));
}
function readTree(dir: string): FileTree {
  const tree: FileTree = {};
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    tree[name] = statSync(file).isDirectory() ? readTree(file) : readFileSync(file);
  }
  return tree;
}

/** gpsimd's headers as clang sees them (include/ of the virtual tree), read once per process. */
function readIncludeTree(): FileTree {
  if (!includeTree) {
    includeTree = readTree(CPP_INCLUDE_DIR);
    includeTexts = treeTexts(includeTree);
  }
  return includeTree;
}

/**
 * What the precompiled header of a kernel compile without extra_cflags is made from (its flags, the headers' tree and
 * texts): the one `npm run build` makes into the package (prebuild.ts). The same as compileCpp's with no flags.
 */
export function defaultKernelPchInputs(): { flags: string[]; tree: FileTree; headerTexts: [string, string][] } {
  const include = readIncludeTree();
  return { flags: [...COMPILE_FLAGS], tree: { include }, headerTexts: includeTexts };
}

/**
 * The exports unit's objects of recent compiles, by everything the object is made of: a kernel edit in gpsimd watch
 * that keeps the kernels' signatures compiles the kernel's source alone. The exports unit includes gpsimd's headers
 * and nothing of the author's, yet clang took about as long over it as over the seed's giou.cpp (0.6-0.8 s each,
 * compiled one per run, load 5). gpsimd's headers are read once per process (readIncludeTree), so their texts are
 * the same for every entry; the author's headers and -I folders are in the key all the same.
 */
const recentExports = new Map<string, Uint8Array>();
/** The build stage (a detail, no time of its own) that says the exports unit's object was an earlier build's. */
export const EXPORTS_REUSED_STAGE = "exports unit: unchanged, the last build's object";
const RECENT_EXPORTS_KEPT = 4;

function exportsObjectKey(flags: string[], exportsUnit: string, headers: [string, string][]): string {
  const h = createHash("sha256").update(JSON.stringify({ flags, exportsUnit }));
  for (const [file, text] of [...headers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) h.update(`\0${file}\0`).update(text);
  return h.digest("hex");
}

function rememberExports(key: string, object: Uint8Array): void {
  if (!(object instanceof Uint8Array)) return;
  if (recentExports.size >= RECENT_EXPORTS_KEPT) recentExports.delete(recentExports.keys().next().value!);
  recentExports.set(key, object);
}

/** Compiles the sources (texts by real path) and the exports unit to objects; or clang's messages. */
export async function compileCpp(files: string[], texts: Map<string, string>, exportsUnit: string, extraCflags: string[]): Promise<CppObjects | { messages: string[] }> {
  const run = await clang();
  readIncludeTree();
  const src: FileTree = {};
  const virtual = new Map<string, string>();
  // Each source in src/<i>/ with the headers of its folder (#include "tcm_utils.h"); each -I folder in inc/<k>/.
  // Every header placed goes into texts, so the library's hash covers it.
  const { includeDirs, rest: otherFlags } = splitIncludeFlags(extraCflags);
  const folders = new Map<string, string>(); // virtual folder -> real folder
  const placeHeaders = (root: string, dir: string) => {
    folders.set(root, dir);
    for (const [rel, text] of headersUnder(dir)) {
      placeFile(tree, `${root}/${rel}`, text);
      texts.set(path.join(dir, rel), text);
    }
  };
  const tree: FileTree = { include: readIncludeTree(), src, [EXPORTS_UNIT]: exportsUnit };
  files.forEach((file, i) => {
    placeHeaders(`src/${i}`, path.dirname(file));
    placeFile(tree, `src/${i}/${path.basename(file)}`, texts.get(file)!);
    virtual.set(`src/${i}/${path.basename(file)}`, file);
  });
  includeDirs.forEach((dir, k) => placeHeaders(`inc/${k}`, dir));
  const real = (v: string): string => {
    const rel = path.posix.normalize(v.replace(/^\/+/, ""));
    if (virtual.has(rel)) return virtual.get(rel)!;
    if (rel === EXPORTS_UNIT) return EXPORTS_NAME;
    if (rel.startsWith("include/")) return path.join(CPP_INCLUDE_DIR, rel.slice("include/".length));
    const folder = /^((?:src|inc)\/\d+)\/(.+)$/.exec(rel);
    if (folder && folders.has(folder[1])) return path.join(folders.get(folder[1])!, folder[2]);
    return v;
  };
  let stderr = "";
  const names = [...virtual.keys(), EXPORTS_UNIT];
  // __FILE__ (assert's message) names the user's file, not its place in the virtual tree.
  const fileMaps = files.map((file, i) => `-fmacro-prefix-map=src/${i}/=${path.dirname(file)}/`);
  const headerMaps = includeDirs.map((dir, k) => `-fmacro-prefix-map=inc/${k}/=${dir}/`);
  // The flags a precompiled header must share (header-pch.ts); the file maps only rename __FILE__ in the sources.
  const pchFlags = [...COMPILE_FLAGS, ...includeDirs.map((_, k) => `-Iinc/${k}`), ...otherFlags.filter((f) => PASSED_FLAG.test(f))];
  const flags = [...COMPILE_FLAGS, ...fileMaps, ...headerMaps, ...includeDirs.map((_, k) => `-Iinc/${k}`), ...otherFlags.filter((f) => PASSED_FLAG.test(f))];
  const objectOf = (n: string) => path.basename(n).replace(/\.[^.]+$/, ".o");
  // Every unit starts from gpsimd's precompiled headers when each of them may (header-pch.ts), else none does.
  const takesPch = [...files.map((f) => texts.get(f)!), exportsUnit].every(unitTakesPch);
  const pch = takesPch ? readyPrecompiledHeader(pchFlags, includeTexts) : null;
  const compileAll = async (withPch: boolean): Promise<FileTree> => {
    const objects: FileTree = {};
    const usePch = withPch ? ["-include-pch", PCH_FILE] : [];
    const inputs = withPch ? addPch(tree, pch!) : tree;
    // One clang run compiles every unit (objects are named after the sources), unless two sources share a name.
    const oneRun = new Set(names.map(objectOf)).size === names.length;
    const objectName = (n: string) => { const k = names.indexOf(n); return `o${k}-${oneRun ? k : 0}.o`; };
    // The exports unit's object of an earlier build when nothing it is made of changed (recentExports).
    const exportsKey = exportsObjectKey([...flags, ...usePch], exportsUnit, [...texts].filter(([file]) => !files.includes(file)));
    const exportsObject = recentExports.get(exportsKey);
    if (exportsObject) recordStage(EXPORTS_REUSED_STAGE, 0, DETAIL);
    const units = exportsObject ? names.filter((n) => n !== EXPORTS_UNIT) : names;
    for (const group of oneRun ? [units] : units.map((n) => [n])) {
      const out = await run(["clang++", ...flags, ...usePch, "-c", ...group], inputs, { stderr: collect((s) => { stderr += s; }) });
      for (const n of group) objects[objectName(n)] = out[objectOf(n)] as Uint8Array;
    }
    if (exportsObject) objects[objectName(EXPORTS_UNIT)] = exportsObject; // last, as compiled: the link's order
    else rememberExports(exportsKey, objects[objectName(EXPORTS_UNIT)] as Uint8Array);
    return objects;
  };
  let objects: FileTree;
  try {
    try {
      objects = await timeStageAsync(pch ? "compile kernel (from precompiled headers)" : "compile kernel", () => compileAll(pch !== null));
    } catch (e) {
      // clang refused the precompiled header itself (made by another compiler or from other texts): without it. Or it
      // ran out of room opening a header the precompiled one does not hold (a unit including <deque> after it; the
      // header stays good for other units): without it too.
      const refused = /precompiled header|PCH file|\.pch/i.test(stderr), outOfRoom = /cannot open file .*: Out of memory/.test(stderr);
      if (!pch || !(refused || outOfRoom)) throw e;
      if (refused) forgetPrecompiledHeader(pchFlags, includeTexts);
      stderr = "";
      objects = await timeStageAsync("compile kernel", () => compileAll(false));
    }
    // Parsed the headers itself: the precompiled ones are made meanwhile, for the next build (header-pch.ts).
    if (takesPch && !pch) prepareHeadersInBackground(pchFlags, { include: includeTree! }, includeTexts);
  } catch (e) {
    const messages = diagnostics(stderr, real);
    return { messages: messages.length ? messages : [stderr.trim() || String(e)] };
  }
  return { objects, sourceName: (v) => libraryName(real(v)) };
}

/** Puts a file into the virtual tree at a slash-separated path. */
function placeFile(tree: FileTree, at: string, content: string | Uint8Array): void {
  const parts = at.split("/").filter(Boolean);
  let dir = tree;
  for (const p of parts.slice(0, -1)) {
    const next = dir[p];
    dir = (next && typeof next === "object" && !(next instanceof Uint8Array) ? next : (dir[p] = {})) as FileTree;
  }
  dir[parts[parts.length - 1]] = content;
}

/** A file the kernel's line table names: the user's sources by path; gpsimd's headers and libc++ as library files (~lib/). */
function libraryName(file: string): string {
  if (file.startsWith(CPP_INCLUDE_DIR)) return `~lib/gpsimd/include/${path.relative(CPP_INCLUDE_DIR, file)}`;
  if (file === EXPORTS_NAME || !path.isAbsolute(file) || file.startsWith("/usr/") || file.startsWith("/lib/")) return `~lib/${file.replace(/^\/+/, "")}`;
  return file;
}

/** Links the objects with static data from `base`: one wasm module importing memory and the runtime's C ABI. */
export async function linkCpp(objects: FileTree, base: number): Promise<{ wasm: Uint8Array } | { messages: string[] }> {
  const run = await clang();
  let stderr = "";
  try {
    const out = await run([
      "clang++", "--target=wasm32-wasip1", "-nostartfiles", "-fno-exceptions", ...Object.keys(objects), "-o", "kernel.wasm",
      "-Xlinker", "--import-memory=gpsimd-abi,memory", "-Wl,--no-entry,--no-stack-first,-z,stack-size=64", `-Wl,--global-base=${base}`,
    ], objects, { stderr: collect((s) => { stderr += s; }) });
    return { wasm: out["kernel.wasm"] as Uint8Array };
  } catch (e) {
    return { messages: [`link: ${stderr.trim() || String(e)}`] };
  }
}

function collect(onText: (s: string) => void): (b: Uint8Array | null) => void {
  const decoder = new TextDecoder();
  return (b) => { if (b) onText(decoder.decode(b, { stream: true })); };
}

/** clang's "file:line:col: error: message" lines, with real paths; notes and warnings kept after their error. */
function diagnostics(stderr: string, real: (v: string) => string): string[] {
  const out: string[] = [];
  for (const line of stderr.split("\n")) {
    const m = /^(.+?):(\d+):(\d+): (error|fatal error|warning|note): (.*)$/.exec(line);
    if (m) out.push(`${real(m[1])}:${m[2]}:${m[3]}: ${m[4]}: ${m[5]}`);
  }
  return out.some((l) => / (?:fatal )?error: /.test(l)) ? out : [];
}
