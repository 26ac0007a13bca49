// The verdict document: what a run, check, profile or build found, as one
// JSON object in a versioned schema (schema/verdict.schema.json, docs/json.md).
// The command line prints it with --json; the host API builds it with
// toVerdict / verdictOf. Only deterministic facts go in (no wall times outside
// `timing`), so the same call gives the same document on any thread count.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Tensor } from "../device/tensor.js";
import { toNpy } from "../device/npy.js";
import { problemOfThrown, type Problem } from "./problem.js";

/** The schema's name and version: a reader checks both; fields are only added within a version. */
export const VERDICT_SCHEMA = "gpsimd-verdict";
export const VERDICT_VERSION = 1;

/** An output tensor, by its dtype, sizes and the sha256 of its .npy bytes. */
export interface OutputRecord { name: string; dtype: string; sizes: number[]; sha256: string; }

/** What gpsimd check did. */
export interface CheckRecord {
  /** Cases asked for (--runs). */
  runs: number;
  seed: number;
  generated: number;
  compared: number;
  rejected: number;
  tooBig: number;
  failed: number;
  shrinks?: number;
  /** The smallest failing case: each argument's dtype, sizes and value kind, or a scalar's value. */
  failingCase?: { arguments: Record<string, unknown>[]; dims?: Record<string, number>; values?: { kind: string; seed: number } };
  /** sha256 of the reference module's text and of the case generator's parameters (what --reference-hash pins). */
  referenceSha256?: string;
  generatorSha256?: string;
}

/** One call's verdict. */
export interface Verdict {
  schema: typeof VERDICT_SCHEMA;
  version: typeof VERDICT_VERSION;
  gpsimd: string;
  command: string;
  target?: Record<string, unknown>;
  verdict: "ok" | "error" | "warnings";
  exitCode?: number;
  errors: Problem[];
  warnings: Problem[];
  /** The tensors the (last) call was given, by hash: the inputs a repro bundle holds as .npy. */
  inputs?: OutputRecord[];
  outputs?: OutputRecord[];
  check?: CheckRecord;
  profile?: Record<string, unknown>;
  build?: Record<string, unknown>;
  /** Wall-clock figures: the only fields that differ between identical calls. */
  timing?: Record<string, number>;
}

let cachedVersion: string | undefined;
/** gpsimd's version, from the package's package.json (this file runs from dist/host/verdict/ or host/verdict/). */
export function gpsimdVersion(): string {
  if (cachedVersion) return cachedVersion;
  for (const up of ["../../../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), "utf8")) as { name?: string; version: string };
      if (pkg.name === "gpsimd") return (cachedVersion = pkg.version);
    } catch { /* try the next level */ }
  }
  return (cachedVersion = "unknown");
}

/** sha256 (hex) of bytes or text. */
export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** An output tensor's record: its hash covers dtype, sizes and every byte. */
export function outputRecord(name: string, t: Tensor): OutputRecord {
  return { name, dtype: t.dtype.name, sizes: t.sizes(), sha256: sha256(toNpy(t)) };
}

/** What a verdict says given its errors and warnings. */
function verdictWord(errors: unknown[], warnings: unknown[]): Verdict["verdict"] {
  return errors.length ? "error" : warnings.length ? "warnings" : "ok";
}

/** A verdict from what a call raised (errors), warned about and produced; the fields in `more` are kept as given. */
export function toVerdict(command: string, errors: unknown[] = [], more: Partial<Omit<Verdict, "schema" | "version" | "gpsimd" | "command" | "verdict">> = {}): Verdict {
  const all = [...errors.map(problemOfThrown), ...(more.errors ?? [])];
  const warnings = more.warnings ?? [];
  return { schema: VERDICT_SCHEMA, version: VERDICT_VERSION, gpsimd: gpsimdVersion(), command, verdict: verdictWord(all, warnings), ...more, errors: all, warnings };
}

/** The verdict of an API call that threw `error` (or of one that succeeded: verdictOf(null)). */
export function verdictOf(error: unknown, command = "api"): Verdict {
  return toVerdict(command, error === null || error === undefined ? [] : [error]);
}
