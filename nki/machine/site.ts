// How NKI errors name where they happened: the message ends in " at <function> (<file>:<line>:<column>)"
// and details carry file/line/column/function, plus the kernel and SPMD instance when a run is current.
import type { SourceSite } from "../python/values.js";

/** " at fn (file:line:column)", or "" when the site is unknown. */
export function atSite(site: SourceSite | undefined): string {
  return site ? ` at ${site.function} (${site.file}:${site.line}:${site.column})` : "";
}

/** file/line/column/function of a site, for an error's details. */
export function siteDetails(site: SourceSite | undefined): Record<string, unknown> {
  return site ? { file: site.file, line: site.line, column: site.column, function: site.function } : {};
}

/** "file:line" for naming where something was allocated. */
export function shortSite(site: SourceSite | undefined): string {
  return site ? `${site.file}:${site.line}` : "an unknown line";
}

/** Who runs now (set by the kernel run): merged into every error's details. */
let runDetails: () => Record<string, unknown> = () => ({});
export function setRunDetails(f: () => Record<string, unknown>): void { runDetails = f; }

/** The details of an NKI error: the site's, the run's (kernel, instance), then the error's own. */
export function errorDetails(site: SourceSite | undefined, own: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...siteDetails(site), ...runDetails(), ...own };
}

// ---- variable names of tiles and tensors, read from the line that made them ----

const sources = new Map<string, readonly string[]>();
let provider: (file: string) => string | undefined = () => undefined;

/** Keeps a kernel file's text so errors can name the variable a tile was assigned to. */
export function registerSource(file: string, text: string): void {
  sources.set(file, text.split(/\r?\n/));
}

/** Where to find the text of files not registered (the interpreter's parsed sources: imported modules too). */
export function setSourceProvider(f: (file: string) => string | undefined): void { provider = f; }

/** The file's lines: the interpreter's current text first (names are asked for on error paths only). */
function linesOf(file: string): readonly string[] | undefined {
  const text = provider(file);
  return text === undefined ? sources.get(file) : text.split(/\r?\n/);
}

/**
 * The variable an allocation on this line was assigned to: `a_tile = nl.load(...)`,
 * `out_tile: tensor[...] = nl.sum(...)`, `self.x = ...` gives undefined (not a plain name).
 */
export function assignedName(site: SourceSite | undefined): string | undefined {
  if (!site) return undefined;
  const line = linesOf(site.file)?.[site.line - 1];
  if (line === undefined) return undefined;
  const m = /^\s*([A-Za-z_][A-Za-z_0-9]*)\s*(?::[^=]*)?=(?!=)/.exec(line);
  return m ? m[1] : undefined;
}
