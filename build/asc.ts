// One run of the AssemblyScript compiler over a kernel library's sources,
// entirely in memory: `import ... from "gpsimd"` resolves to this package's
// assembly/ folder wherever the sources are, and the stub runtime is
// replaced by gpsimd's per-core kernel heap (assembly/rt/stub.ts). The
// compiler options live in the package's asconfig.json (targets release,
// debug, sanitize), the file kernel authors' own asconfig.json extends; only
// what differs per build (addresses, constants, passes) is given here.
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import path from "node:path";
import asc from "assemblyscript/asc";
import type { Transform } from "assemblyscript/transform";
import type binaryen from "binaryen";
import { INITIAL_PAGES } from "../host/library/build-constants.js";
import { insertStopPolls, atomicWaitMessage } from "./stop-polls.js";
import { keepCallSites } from "./call-sites.js";
import { numberAllocationSites } from "./allocation-sites.js";
import { ASSEMBLY_DIR, ASCONFIG_FILE } from "./paths.js";
import { OWNERSHIP_EXPORTS } from "./ownership-names.js";
import { recordStage, timeStage } from "./build-stages.js";
import { installParseCache } from "./parse-cache.js";


// Virtual folder asc searches for packages (--path): gpsimd/<file>.ts inside it maps to ASSEMBLY_DIR.
const VIRTUAL_ROOT = "/__gpsimd__";
const VIRTUAL_ENTRY = `${VIRTUAL_ROOT}/entry.ts`;
const ENTRY_SOURCE = `export { __gpsimd_enter, __gpsimd_enter_from, __gpsimd_exit, __gpsimd_layout } from "gpsimd/entry";\n` + OWNERSHIP_EXPORTS;

/** The targets of asconfig.json. */
export type AscTarget = "release" | "debug" | "sanitize";

/** What one compile needs. */
export interface AscInput {
  /** Absolute paths of the kernel sources. */
  sources: string[];
  /** Where static data starts. */
  memoryBase: number;
  /** The asconfig.json target to compile with (default release). */
  target?: AscTarget;
  /** Binaryen's optimize level instead of the target's (0-3): a watch build's cheaper level (build/compile.ts). */
  optimizeLevel?: number;
  /** Integer constants from -DNAME=VALUE flags. */
  constants: Record<string, string>;
  /** Changes the compiled module before it is optimized (the sanitizer's instrumentation, build/sanitize-pass.ts). */
  afterCompile?: (module: binaryen.Module) => void;
  /**
   * Keep the kernel API's setup calls as calls (build/call-sites.ts) and number the kernel's tcm_malloc calls
   * (build/allocation-sites.ts); default true: for AssemblyScript kernels,
   * whose lines come from asc's source map. The C++ device runtime is compiled without: a C++ kernel's lines come
   * from its own DWARF, and the runtime inlined into the kernel's C ABI calls is what the locator expects there.
   */
  keepCallSites?: boolean;
  /** Source texts already read, by absolute path; filled on first read, so every compile of a build sees the same sources. */
  sourceCache?: Map<string, string>;
  /** Re-export the imported memory as "memory" (the C++ device runtime lends it to the kernel it is merged with). */
  exportMemory?: boolean;
  /**
   * Record this compile's stages (build/build-stages.ts): asc's parse, initialize, compile, validate, optimize and
   * emit, and each pass gpsimd runs after asc's compile. Off where the caller times the compile as one stage (the
   * C++ device runtime), so no time is counted twice.
   */
  recordStages?: boolean;
}

/** A diagnostic from the compiler, with its place in the sources. */
export interface AscDiagnostic {
  message: string;
  category: "error" | "warning" | "info";
  file: string | null;
  line: number;
  column: number;
}

/** What one compile produced. */
export interface AscOutput {
  binary: Uint8Array | null;
  /** Files the compiler read (sources, asconfig.json), outside gpsimd's own kernel library. */
  files: string[];
  sourceMap: string | null;
  diagnostics: AscDiagnostic[];
  text: string;
}

let runtimeSource: string | null = null;

/**
 * Texts of the kernel library (assembly/), read once per thread: every compile includes most of it, and it does not
 * change while a process runs (the library hash of host/library/loader.ts is taken once per process, too).
 */
const kernelLibraryTexts = new Map<string, string>();

/**
 * A source's text, read synchronously: asc asks for several hundred paths per compile (each `~lib/` import is looked
 * for in every node_modules folder above the kernel before gpsimd's), most of them missing, and on a busy machine
 * each asynchronous read waited for a thread of libuv's pool. This runs on a compiler thread, never the caller's.
 */
function readSource(file: string): string {
  if (!file.startsWith(ASSEMBLY_DIR + path.sep)) return readFileSync(file, "utf8");
  let text = kernelLibraryTexts.get(file);
  if (text === undefined) kernelLibraryTexts.set(file, text = readFileSync(file, "utf8"));
  return text;
}

/** Compiles the sources once. Never throws for errors in the sources: they come back as diagnostics. */
export async function compileOnce(input: AscInput): Promise<AscOutput> {
  runtimeSource ??= await readFile(path.join(ASSEMBLY_DIR, "rt", "stub.ts"), "utf8");
  installParseCache();
  const outputs = new Map<string, Uint8Array | string>();
  const diagnostics: AscDiagnostic[] = [];
  const sourceTexts = new Map<string, string>();
  const files = new Set<string>();
  const args = [
    ...input.sources.map(toRelative), toRelative(VIRTUAL_ENTRY),
    "--config", toRelative(ASCONFIG_FILE), "--target", input.target ?? "release",
    ...(input.optimizeLevel === undefined ? [] : ["--optimizeLevel", String(input.optimizeLevel)]),
    "--outFile", "out.wasm", "--sourceMap",
    "--initialMemory", String(INITIAL_PAGES), "--memoryBase", String(input.memoryBase),
    // The device runtime of C++ kernels exports the memory it imports: the kernel merged with it takes it from there.
    ...(input.exportMemory ? [] : ["--noExportMemory"]),
    "--path", VIRTUAL_ROOT, "--baseDir", "/", "--noColors",
    ...Object.entries(input.constants).flatMap(([name, value]) => ["--use", `${name}=${value}`]),
  ];
  const saved = asc.libraryFiles["rt/stub"];
  asc.libraryFiles["rt/stub"] = runtimeSource;
  let text = "";
  const atomicWaits: string[] = [];
  const stage = <T>(name: string, work: () => T): T => (input.recordStages ? timeStage(name, work) : work());
  let afterCompileMs = 0;
  const started = performance.now();
  try {
    const result = await asc.main(args, {
      readFile: async (file: string, baseDir: string) => {
        const resolved = resolveVirtual(path.resolve(baseDir, file));
        if (resolved === VIRTUAL_ENTRY) return ENTRY_SOURCE;
        try {
          const source = input.sourceCache?.get(resolved) ?? readSource(resolved);
          input.sourceCache?.set(resolved, source);
          sourceTexts.set(resolved, source);
          if (!resolved.startsWith(ASSEMBLY_DIR)) files.add(resolved);
          return source;
        } catch {
          return null;
        }
      },
      writeFile: (file: string, contents: Uint8Array | string) => { outputs.set(path.basename(file), contents); },
      listFiles: () => [],
      // Before asc optimises and emits, so the source map covers what is inserted and every compile
      // of a build (A and B, build/relocate.ts) gets the same instrumentation: the caller's (the
      // sanitizer's checks) first, then the stop polls, which are not themselves to be checked.
      transforms: [{
        afterCompile: (module: binaryen.Module) => {
          afterCompileMs = performance.now();
          input.afterCompile?.(module);
          stage("stop polls", () => atomicWaits.push(...insertStopPolls(module).atomicWaits));
          if (input.keepCallSites !== false) {
            stage("allocation sites", () => numberAllocationSites(module, { from: "~lib/gpsimd/tcm/tcm_malloc", to: "~lib/gpsimd/tcm/tcm_malloc_at" }));
            stage("call sites", () => keepCallSites(module));
          }
          afterCompileMs = performance.now() - afterCompileMs;
        },
      } as Transform],
      stdout: sink(), stderr: sink((s) => { text += s; }),
      reportDiagnostic: (d) => {
        const category = d.category === 3 ? "error" : d.category === 2 ? "warning" : "info"; // asc: 0 pedantic, 1 info, 2 warning, 3 error
        const where = d.range?.source ? locate(d.range.source.normalizedPath, d.range.start, sourceTexts) : null;
        diagnostics.push({ message: d.message, category, file: where?.file ?? null, line: where?.line ?? 0, column: where?.column ?? 0 });
      },
    });
    if (input.recordStages) recordAscStages(result.stats, performance.now() - started, afterCompileMs);
    if (atomicWaits.length) diagnostics.push({ message: atomicWaitMessage(atomicWaits), category: "error", file: null, line: 0, column: 0 });
    if (result.error && !diagnostics.some((d) => d.category === "error")) {
      diagnostics.push({ message: result.error.message, category: "error", file: null, line: 0, column: 0 });
    }
  } finally {
    asc.libraryFiles["rt/stub"] = saved;
  }
  const binary = outputs.get("out.wasm");
  const map = outputs.get("out.wasm.map");
  return {
    binary: binary instanceof Uint8Array ? binary : null,
    files: [...files],
    sourceMap: typeof map === "string" ? map : map ? Buffer.from(map).toString("utf8") : null,
    diagnostics,
    text,
  };
}

/** asc's Stats (its typings leave out initializeTime, which it keeps too). */
interface AscStats { parseTime: number; initializeTime?: number; compileTime: number; validateTime: number; optimizeTime: number; emitTime: number }

/**
 * asc's own stage times (its Stats, in nanoseconds) as milliseconds; "asc: other" is the rest of asc.main (reading
 * the config and sources, setting up, the source map's texts). The optimize level is in the name: a watch build
 * may choose another (its output says which).
 */
function recordAscStages(stats: AscStats, totalMs: number, afterCompileMs: number): void {
  const ms = (ns: number) => ns / 1e6;
  const stages: [string, number][] = [
    ["asc: parse", ms(stats.parseTime)], ["asc: initialize", ms(stats.initializeTime ?? 0)], ["asc: compile", ms(stats.compileTime)],
    ["asc: validate", ms(stats.validateTime)], ["asc: optimize", ms(stats.optimizeTime)], ["asc: emit", ms(stats.emitTime)],
  ];
  for (const [name, value] of stages) recordStage(name, value);
  recordStage("asc: other", Math.max(0, totalMs - afterCompileMs - stages.reduce((n, [, value]) => n + value, 0)));
}

function toRelative(file: string): string {
  return path.relative("/", file);
}

/** Maps a file under the virtual package folder to the real assembly/ folder. */
function resolveVirtual(file: string): string {
  const prefix = `${VIRTUAL_ROOT}/gpsimd/`;
  return file.startsWith(prefix) ? path.join(ASSEMBLY_DIR, file.slice(prefix.length)) : file;
}

/** Line and column (1-based) of a character position in a source asc read. */
function locate(normalizedPath: string, pos: number, texts: Map<string, string>): { file: string; line: number; column: number } {
  const file = normalizedPath.startsWith("~lib/") ? normalizedPath : resolveVirtual(path.resolve("/", normalizedPath));
  const text = texts.get(file) ?? "";
  let line = 1, lineStart = 0;
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
  return { file, line, column: pos - lineStart + 1 };
}

interface Sink { write(chunk: string | Uint8Array): void; }
function sink(onText?: (s: string) => void): Sink & { toString(): string } {
  return {
    write(chunk: string | Uint8Array) { onText?.(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")); },
    toString() { return ""; },
  };
}
