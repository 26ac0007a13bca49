// TypeScript's compiler API, loaded on first use: loading it takes about half a
// second, and a process that only loads built libraries never needs it (the
// host checks shape sources and kernel signatures before a build, in-process).
import { createRequire } from "node:module";
import type TypeScript from "typescript";

let loaded: typeof TypeScript | null = null;

/** The `typescript` module. */
export function typescript(): typeof TypeScript {
  return (loaded ??= createRequire(import.meta.url)("typescript") as typeof TypeScript);
}
