// The reference module of gpsimd check: plain TypeScript (or JavaScript)
// that computes what the operator should return. TypeScript files are
// transpiled in memory, with their relative imports; JavaScript is imported.
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";
import ts from "typescript";
import * as gpsimd from "../host/index.js";
import { CommandError, EXIT } from "./options.js";

/** A reference: the kernel's arguments (tensors as typed arrays of their values), then the sizes of every tensor argument. */
export type ReferenceFunction = (...args: unknown[]) => ArrayLike<number | bigint> | { data: ArrayLike<number | bigint>; sizes: number[] };

/** Evaluates a TypeScript file (and the .ts files it imports) as CommonJS. */
function evaluateTs(file: string, cache = new Map<string, Record<string, unknown>>()): Record<string, unknown> {
  const hit = cache.get(file);
  if (hit) return hit;
  const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, "utf8"), {
    fileName: file, reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  if (diagnostics?.length) throw new CommandError(`gpsimd: ${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, "\n")}`, EXIT.USAGE);
  const module = { exports: {} as Record<string, unknown> };
  cache.set(file, module.exports);
  const fallback = createRequire(file);
  const require = (spec: string): unknown => {
    if (spec === "gpsimd") return gpsimd;
    if (spec.startsWith(".")) {
      const base = path.resolve(path.dirname(file), spec);
      const candidates = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`];
      const found = candidates.find((c) => c.endsWith(".ts") && existsSync(c));
      if (found) return evaluateTs(found, cache);
    }
    return fallback(spec);
  };
  new Function("exports", "require", "module", "__filename", "__dirname", `${outputText}\n//# sourceURL=${file}`)(module.exports, require, module, file, path.dirname(file));
  cache.set(file, module.exports);
  return module.exports;
}

/** "relu_forward" -> "reluForward". */
function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Loads a reference module and picks its function: --export, else the op's name (as is or camelCase), "reference", default, or its only function. */
export async function loadReference(file: string, op: string, exportName?: string): Promise<{ fn: ReferenceFunction; name: string }> {
  const full = path.resolve(file);
  if (!existsSync(full)) throw new CommandError(`gpsimd: reference module ${file} does not exist`, EXIT.USAGE);
  let exports: Record<string, unknown>;
  try {
    exports = /\.[cm]?tsx?$/.test(full) ? evaluateTs(full) : (await import(pathToFileURL(full).href)) as Record<string, unknown>;
  } catch (e) {
    // The reference is the user's code: its failure to load (a throw at the top level, an import not found, a syntax
    // error) is theirs to fix, named with the file, not an internal error of gpsimd.
    if (e instanceof CommandError) throw e;
    throw new CommandError(`gpsimd: reference module ${file} failed to load: ${e instanceof Error ? e.message : String(e)}`, EXIT.USAGE);
  }
  const functions = Object.entries(exports).filter(([, v]) => typeof v === "function");
  const wanted = exportName ? [exportName] : [op, camel(op), "reference", "default"];
  for (const name of wanted) {
    const fn = exports[name];
    if (typeof fn === "function") return { fn: fn as ReferenceFunction, name };
  }
  if (!exportName && functions.length === 1) return { fn: functions[0][1] as ReferenceFunction, name: functions[0][0] };
  throw new CommandError(`gpsimd: ${file} exports no function ${wanted.join(" or ")}${functions.length ? `; it has ${functions.map(([n]) => n).join(", ")} (pick one with --export)` : ""}`, EXIT.USAGE);
}
