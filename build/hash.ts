// What decides whether a library must be rebuilt: a hash of the build's
// settings and of every source file the build read (kernel sources, the
// files they import, shape sources).
import { createHash } from "node:crypto";
import { readFileSync, existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

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

/** Hash of every file under the folders whose name ends in one of `extensions` (names and contents, in a fixed order). */
export function treeHash(dirs: readonly string[], extensions: readonly string[]): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (extensions.some((e) => name.endsWith(e))) h.update(`\0${path.relative(dir, file)}\0`).update(readFileSync(file));
    }
  };
  for (const dir of dirs) { h.update(`\0${dir}\0`); walk(dir); }
  return h.digest("hex");
}
