// What decides whether a library must be rebuilt: a hash of the build's
// settings and of every source file the build read (kernel sources, the
// files they import, shape sources).
import { createHash } from "node:crypto";
import { readFileSync, existsSync } from "node:fs";

/** Hash of the settings (any JSON value) and of each file's text, given as (path, text) pairs. */
export function inputsHash(settings: unknown, sources: ReadonlyMap<string, string>): string {
  const h = createHash("sha256").update(JSON.stringify(settings));
  for (const file of [...sources.keys()].sort()) h.update(`\0${file}\0`).update(sources.get(file)!);
  return h.digest("hex");
}

/** The current texts of files ("(missing)" for a file that is gone, so the hash changes). */
export function readSources(files: readonly string[]): Map<string, string> {
  return new Map(files.map((f) => [f, existsSync(f) ? readFileSync(f, "utf8") : "(missing)"]));
}
