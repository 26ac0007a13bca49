// Shape functions are TypeScript that runs on the host. The build type-checks
// them against gpsimd's host typings (a typo fails the build, not the first
// call), transpiles them to CommonJS and stores the code inside the library
// file, so a library loads in any process without the sources or a
// TypeScript toolchain (loaded on first use: build/typescript.ts).
import type ts from "typescript";
import { typescript } from "./typescript.js";
import path from "node:path";
import { existsSync, readFileSync, statSync } from "node:fs";
import { HOST_TYPINGS } from "./paths.js";

/** One transpiled shape source, named by its path relative to the first shape source's folder. */
export interface ShapeModule { path: string; code: string; }

/** Transpiles shape sources (absolute paths and their text); reports syntax errors with file and line. */
export function transpileShapeSources(files: { file: string; text: string }[]): { modules: ShapeModule[]; errors: string[] } {
  const root = path.dirname(files[0]?.file ?? ".");
  const errors: string[] = [];
  const modules = files.map(({ file, text }) => {
    const out = transpiled(file, text);
    errors.push(...out.errors);
    return { path: path.relative(root, file).split(path.sep).join("/"), code: out.code };
  });
  return { modules, errors };
}

/**
 * Recent transpiles by file and text: a rebuild after a kernel edit, and the loader's registration check before each
 * build, transpile the same shape sources again (tens of ms each on a busy machine).
 */
const transpiles = new Map<string, { code: string; errors: string[] }>();
const TRANSPILES_KEPT = 64;

function transpiled(file: string, text: string): { code: string; errors: string[] } {
  const key = `${file}\0${text}`;
  const known = transpiles.get(key);
  if (known) return known;
  const ts = typescript();
  const out = ts.transpileModule(text, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false, inlineSourceMap: true, inlineSources: true },
  });
  const errors = (out.diagnostics ?? []).map((d) => {
    const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    return `${file}${pos ? `:${pos.line + 1}:${pos.character + 1}` : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
  if (transpiles.size >= TRANSPILES_KEPT) transpiles.delete(transpiles.keys().next().value!);
  const result = { code: out.outputText, errors };
  transpiles.set(key, result);
  return result;
}

const EXTENSIONS = ["", ".ts", ".mts", ".js", "/index.ts"];

/** The shape sources and every file they import by relative path, transitively, with their texts. */
export function collectShapeFiles(entries: string[]): { file: string; text: string }[] {
  const ts = typescript();
  const found = new Map<string, string>();
  const visit = (file: string) => {
    if (found.has(file)) return;
    const text = readFileSync(file, "utf8");
    found.set(file, text);
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const base = path.resolve(path.dirname(file), ref.fileName.replace(/\.js$/, ""));
      const hit = EXTENSIONS.map((e) => base + e).find((f) => existsSync(f) && statSync(f).isFile());
      if (hit) visit(hit);
    }
  };
  entries.forEach(visit);
  return [...found].map(([file, text]) => ({ file, text }));
}

/**
 * How shape sources are checked: ES2022 on the host, imports resolved as a bundler does (extensionless relative
 * paths), "gpsimd" mapped to this package's host typings wherever the sources are. Not strict: the check catches
 * wrong names and types, not a style. Installed @types (e.g. @types/node) are loaded only for
 * sources that use Node (parsing them costs about a second per process).
 */
function checkOptions(): ts.CompilerOptions {
  const ts = typescript();
  return {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"], noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true, esModuleInterop: true,
    paths: existsSync(HOST_TYPINGS) ? { gpsimd: [HOST_TYPINGS] } : undefined,
  };
}

/** Shape sources that import a Node module or use process/Buffer get the installed @types, as in any project. */
const USES_NODE = /["']node:|\brequire\(|\bprocess\.|\bBuffer\b/;

/** What shape functions may use besides ES2022 without @types/node (they run in Node, where console exists). */
const GLOBALS_FILE = path.join(path.dirname(HOST_TYPINGS), "__gpsimd_shape_globals__.d.ts");
const GLOBALS = "declare var console: { log(...data: unknown[]): void; info(...data: unknown[]): void; warn(...data: unknown[]): void; error(...data: unknown[]): void; debug(...data: unknown[]): void };\n";

/** Parsed files that do not change while this process runs (TypeScript's lib, gpsimd's typings, installed packages): parsed once. */
const stable = new Map<string, ts.SourceFile>();

/** Type-checks shape sources (absolute paths and the texts the build uses); errors come back as file:line:column: message. */
export function typeCheckShapeSources(files: { file: string; text: string }[]): string[] {
  const ts = typescript();
  const CHECK_OPTIONS = checkOptions();
  const STABLE_DIRS = [path.dirname(ts.getDefaultLibFilePath(CHECK_OPTIONS)), path.dirname(path.dirname(HOST_TYPINGS))];
  const texts = new Map(files.map(({ file, text }) => [path.resolve(file), text]));
  texts.set(GLOBALS_FILE, GLOBALS);
  const host = ts.createCompilerHost(CHECK_OPTIONS);
  const read = host.readFile.bind(host), exists = host.fileExists.bind(host), getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => texts.get(path.resolve(f)) ?? read(f);
  host.fileExists = (f) => texts.has(path.resolve(f)) || exists(f);
  host.getSourceFile = (f, language, onError, fresh) => {
    const text = texts.get(path.resolve(f));
    if (text !== undefined) return ts.createSourceFile(f, text, language);
    const hit = stable.get(f);
    if (hit) return hit;
    const parsed = getSourceFile(f, language, onError, fresh);
    if (parsed && (STABLE_DIRS.some((dir) => f.startsWith(dir + path.sep)) || f.includes("/node_modules/"))) stable.set(f, parsed);
    return parsed;
  };
  const options = files.some(({ text }) => USES_NODE.test(text)) ? CHECK_OPTIONS : { ...CHECK_OPTIONS, types: [] };
  const program = ts.createProgram({ rootNames: [...texts.keys()], options, host });
  const errors: string[] = [];
  for (const { file } of files) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      if (d.category !== ts.DiagnosticCategory.Error) continue;
      const pos = d.start !== undefined ? source.getLineAndCharacterOfPosition(d.start) : null;
      errors.push(`${file}${pos ? `:${pos.line + 1}:${pos.character + 1}` : ""}: error: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    }
  }
  return errors;
}
