// Shared by the Python room's tests: run source as a kernel file and capture what it prints.
import { setOutput } from "../../host/output.js";
import { loadProgram, type LoadOptions, type Program } from "../../nki/python/index.js";

let counter = 0;

/** Runs source as a module; returns the program and everything print() wrote. */
export function run(source: string, options: LoadOptions & { file?: string } = {}): { program: Program; out: string } {
  let out = "";
  const restore = setOutput({ printf: (t) => { out += t; } });
  try {
    const program = loadProgram(options.file ?? `/virtual/kernel_${++counter}.py`, { ...options, source });
    return { program, out };
  } finally { restore(); }
}

/** What print() wrote, as lines. */
export function printed(source: string): string[] {
  return run(source).out.replace(/\n$/, "").split("\n");
}

/** The error running source threw (fails the test when none). */
export function failure(source: string, options: LoadOptions & { file?: string } = {}): Error & { code: string; details: Record<string, unknown> } {
  try { run(source, options); } catch (e) { return e as Error & { code: string; details: Record<string, unknown> }; }
  throw new Error("expected the source to fail");
}
