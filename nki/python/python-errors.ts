// What a Python exception becomes when it leaves the interpreter uncaught: a PythonError
// E_PY_<Type> (a failed assert: KernelAbortError E_NKI_ASSERT) naming the raising site, with a
// short Python-style traceback in details.traceback.

import { KernelAbortError, PythonError } from "../../host/checks/errors.js";
import { PyException, type SourceSite } from "./values.js";
import { sourceOf } from "./parse.js";

const tracebacks = new WeakMap<PyException, readonly SourceSite[]>();

/** Remembers the Python frames (call sites, then the raising site) an exception was raised under. */
export function recordTraceback(e: PyException, frames: readonly SourceSite[]): void {
  if (!tracebacks.has(e)) tracebacks.set(e, frames);
}

export function hasTraceback(e: PyException): boolean { return tracebacks.has(e); }

function sourceLine(site: SourceSite): string | undefined {
  const src = sourceOf(site.file);
  return src?.split("\n")[site.line - 1]?.trim();
}

/** "Traceback (most recent call last): ..." as Python prints it. */
export function formatTraceback(e: PyException): string {
  const frames = tracebacks.get(e) ?? (e.site ? [e.site] : []);
  const lines = ["Traceback (most recent call last):"];
  for (const f of frames) {
    lines.push(`  File "${f.file}", line ${f.line}, in ${f.function}`);
    const text = sourceLine(f);
    if (text) lines.push(`    ${text}`);
  }
  lines.push(e.message ? `${e.pyType}: ${e.message}` : e.pyType);
  return lines.join("\n");
}

/** The gpsimd error for an uncaught PyException; other errors are returned unchanged. */
export function toGpsimdError(e: unknown): unknown {
  if (!(e instanceof PyException)) return e;
  const site = e.site ?? { file: "<unknown>", line: 0, column: 0, function: "<module>" };
  const where = ` at ${site.function} (${site.file}:${site.line}:${site.column})`;
  const details = {
    pyType: e.pyType, file: site.file, line: site.line, column: site.column, function: site.function,
    kernel: site.function, message: e.message, traceback: formatTraceback(e),
  };
  if (e.pyType === "AssertionError") {
    return new KernelAbortError("E_NKI_ASSERT", `AssertionError${e.message ? `: ${e.message}` : ""}${where}`, { details, cause: e });
  }
  return new PythonError(`E_PY_${e.pyType}`, `${e.pyType}${e.message ? `: ${e.message}` : ""}${where}`, { details, cause: e });
}
