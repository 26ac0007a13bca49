// What one command found, gathered as it runs, for the --json verdict and
// the --save-repro bundle: the commands add to it; cli/gpsimd.ts turns it
// into the verdict document (host/verdict/) once the command is done.
import type { Tensor } from "../host/device/tensor.js";
import { toNpy } from "../host/device/npy.js";
import { outputRecord, sha256, type CheckRecord, type OutputRecord } from "../host/verdict/verdict.js";
import type { Problem } from "../host/verdict/problem.js";

/** An input as the bundle keeps it: its .npy bytes and record (the hash is of those bytes). */
export interface InputRecord extends OutputRecord { npy: Uint8Array; }

export interface CallReport {
  target?: Record<string, unknown>;
  /** gpsimd errors (or other thrown values) the call raised. */
  errors: unknown[];
  /** Failures that are not gpsimd errors (a check's mismatch), already in the schema's fields. */
  failures: Problem[];
  /** Texts the runtime warned with (host/output.ts). */
  warnings: string[];
  inputs: InputRecord[];
  outputs: OutputRecord[];
  check?: CheckRecord;
  profile?: Record<string, unknown>;
  build?: Record<string, unknown>;
  timing: Record<string, number>;
}

let current: CallReport = fresh();

function fresh(): CallReport {
  return { errors: [], failures: [], warnings: [], inputs: [], outputs: [], timing: {} };
}

/** The report of the command running now. */
export function callReport(): CallReport { return current; }

/** Starts a new report (one per command). */
export function resetReport(): void { current = fresh(); }

/** Records the tensors of a call's inputs (named), replacing earlier ones: the last call is the one a bundle replays. */
export function recordInputs(named: [string, unknown][]): void {
  current.inputs = named.filter((n): n is [string, Tensor] => isTensor(n[1])).map(([name, t]) => {
    const npy = toNpy(t);
    return { name, dtype: t.dtype.name, sizes: t.sizes(), sha256: sha256(npy), npy };
  });
}

/** Records a call's output tensors, replacing earlier ones. */
export function recordOutputs(named: [string, Tensor][]): void {
  current.outputs = named.map(([name, t]) => outputRecord(name, t));
}

function isTensor(v: unknown): v is Tensor {
  return typeof v === "object" && v !== null && typeof (v as Tensor).sizes === "function" && typeof (v as Tensor).dtype === "object" && !(v as Tensor).is_meta;
}
