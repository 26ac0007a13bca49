// What decides whether a library must be rebuilt: a hash of the build's
// settings and of every source file the build read (kernel sources, the
// files they import, shape sources).
import { createHash } from "node:crypto";
import { readFileSync, existsSync } from "node:fs";

/** Hash of the settings (any JSON value) and the current contents of the files. */
export function inputsHash(settings: unknown, files: readonly string[]): string {
  const h = createHash("sha256").update(JSON.stringify(settings));
  for (const file of [...new Set(files)].sort()) {
    h.update(`\0${file}\0`);
    h.update(existsSync(file) ? readFileSync(file) : "(missing)");
  }
  return h.digest("hex");
}
