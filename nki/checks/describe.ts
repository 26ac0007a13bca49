// How the checks name things in their messages: loops by their variable (read from the `for` line),
// iterations as "i = 3", instructions by name and line.
import type { SourceSite } from "../python/values.js";
import { sourceOf } from "../python/parse.js";
import type { Iteration, LoopInfo } from "./recorder.js";

const lineCache = new Map<string, readonly string[]>();

/** Line `line` (1-based) of a kernel file, when its source is known. */
export function sourceLine(site: SourceSite | undefined): string | undefined {
  if (!site) return undefined;
  let lines = lineCache.get(site.file);
  if (!lines) {
    const text = sourceOf(site.file);
    if (text === undefined) return undefined;
    lines = text.split(/\r?\n/);
    lineCache.set(site.file, lines);
  }
  return lines[site.line - 1];
}

/** The loop variable of `for i in nl.affine_range(...)` ("i"), or "the loop variable". */
export function loopVariable(loop: LoopInfo): string {
  const m = /\bfor\s+([A-Za-z_][A-Za-z_0-9]*(?:\s*,\s*[A-Za-z_][A-Za-z_0-9]*)*)\s+in\b/.exec(sourceLine(loop.site) ?? "");
  return m ? m[1] : "the loop variable";
}

/** "i = 3" */
export function describeIteration(it: Iteration): string { return `${loopVariable(it.loop)} = ${it.value}`; }

/** "file:line" */
export function lineOf(site: SourceSite | undefined): string { return site ? `${site.file}:${site.line}` : "an unknown line"; }

/** "nl.add at k.py:12" */
export function describeInstruction(name: string, site: SourceSite | undefined): string { return `${name} at ${lineOf(site)}`; }
