// Shape functions are TypeScript that runs on the host. The build transpiles
// them to CommonJS and stores the code inside the library file, so a library
// loads in any process without the sources or a TypeScript toolchain.
import { typescript } from "./typescript.js";
import path from "node:path";
import { existsSync, readFileSync, statSync } from "node:fs";

/** One transpiled shape source, named by its path relative to the first shape source's folder. */
export interface ShapeModule { path: string; code: string; }

/** Transpiles shape sources (absolute paths and their text); reports syntax errors with file and line. */
export function transpileShapeSources(files: { file: string; text: string }[]): { modules: ShapeModule[]; errors: string[] } {
  const ts = typescript();
  const root = path.dirname(files[0]?.file ?? ".");
  const errors: string[] = [];
  const modules = files.map(({ file, text }) => {
    const out = ts.transpileModule(text, {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false, inlineSourceMap: true, inlineSources: true },
    });
    for (const d of out.diagnostics ?? []) {
      const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
      errors.push(`${file}${pos ? `:${pos.line + 1}:${pos.character + 1}` : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    }
    return { path: path.relative(root, file).split(path.sep).join("/"), code: out.outputText };
  });
  return { modules, errors };
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
