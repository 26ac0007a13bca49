// Kernel files as loaded programs, cached per thread: a file runs once (its
// module level, as `python file.py` would on a CPU machine) for each source
// text, and every call of its kernels on this thread reuses it. Worker threads
// load the same text the caller loaded, so every instance runs the same code.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ArgumentError } from "../../host/checks/errors.js";
import { loadProgram, registerNkiModules, type Program } from "./runtime.js";

/** A kernel file's name (as errors show it) and its text. */
export interface ProgramSource {
  readonly file: string;
  readonly source: string;
  /** Identifies the text: file name and a hash of the source. */
  readonly key: string;
}

/** Reads a kernel file now (a later edit needs a new nki.load). */
export function sourceFromFile(file: string): ProgramSource {
  if (typeof file !== "string" || file.length === 0) throw new ArgumentError("E_NKI_FILE", `nki.load: expected the path of a .py file, got ${String(file)}`);
  const full = path.resolve(file);
  let source: string;
  try {
    source = readFileSync(full, "utf8");
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : (e as NodeJS.ErrnoException).code === "EISDIR" ? "is a folder" : `cannot be read (${(e as Error).message})`;
    throw new ArgumentError("E_NKI_FILE", `nki.load: ${file} ${why}`, { details: { file: full }, cause: e });
  }
  return sourceFromText(source, full);
}

/** In-memory source under a file name of the caller's choosing. */
export function sourceFromText(source: string, file = "<nki>"): ProgramSource {
  if (typeof source !== "string") throw new ArgumentError("E_NKI_SOURCE", `nki.loadSource: expected Python source text, got ${typeof source}`);
  const hash = createHash("sha1").update(source).digest("hex").slice(0, 16);
  return { file, source, key: `${file}\0${hash}` };
}

const cache = new Map<string, Program>();

/** The program of a source on this thread (loaded at the first use). */
export function programOf(src: ProgramSource): Program {
  let program = cache.get(src.key);
  if (!program) {
    registerNkiModules();
    program = loadProgram(src.file, { source: src.source });
    cache.set(src.key, program);
  }
  return program;
}
