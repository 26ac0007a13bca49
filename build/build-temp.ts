// Temporary folders of a build (files the Binaryen tools read and write, the device runtime's entry source): all
// inside one folder the caller made for the build (host/library/compile-service.ts), so that a build stopped at its
// deadline, whose compiler thread never gets to clean up, leaves nothing behind: the caller removes that folder.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

let root: string | null = null;

/** The folder the running build's temporary folders go in (null: the system's temporary folder). */
export function setBuildTempRoot(dir: string | null): void {
  root = dir;
}

/** A fresh temporary folder for the running build, named prefix + random. */
export function buildTempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(root ?? tmpdir(), prefix));
}
