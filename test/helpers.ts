// Shared test helpers: loading fixture libraries, capturing printf text and
// warnings, and asserting a typed gpsimd error with the parts of its message.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { custom_op, setOutput, randn, GpsimdError, type Library, type LoadTimeOptions, type OpFunction, type Tensor } from "gpsimd";

/** The repository root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Where test libraries are built (gitignored). */
export const TEST_BUILD_DIR = path.join(REPO, "build", "out");
/** Fixture folders live here: test/fixtures/<group>/. */
export const FIXTURES_DIR = path.join(REPO, "test", "fixtures");

/** A fixture library: its files, relative to test/fixtures/<group>/. */
export interface FixtureLibrary {
  /** Folder under test/fixtures. */
  group: string;
  /**
   * Build name (lib<name>.wasm). Use the NEURON_LIBRARY name the shape sources declare, so that it is unique among
   * test libraries: libraries loaded at once must have distinct NEURON_LIBRARY names, and two test files building
   * the same lib<name>.wasm at once would race.
   */
  name: string;
  /** Kernel sources (AssemblyScript). */
  compute: string[];
  /** Shape sources (TypeScript); one of them calls NEURON_LIBRARY. */
  shape: string[];
  /** Runtime and core options (checks, leak_is_error, ...). */
  options?: LoadTimeOptions;
}

/** Absolute path of a fixture file. */
export function fixturePath(group: string, file: string): string {
  return path.join(FIXTURES_DIR, group, file);
}

/** Builds (unless up to date) and loads a single-core fixture library (built into build/out). */
export function loadFixture(f: FixtureLibrary): Library {
  return custom_op.load({
    name: f.name,
    compute_srcs: f.compute.map((c) => fixturePath(f.group, c)),
    shape_srcs: f.shape.map((s) => fixturePath(f.group, s)),
    build_directory: TEST_BUILD_DIR,
    multicore: false,
    ...f.options,
  });
}

/** What a captured section of output received. */
export interface CapturedOutput {
  /** Each printf block the host showed (header line included), in order. */
  printf: string[];
  /** Each warning, in order. */
  warnings: string[];
}

/** Runs fn with printf text and warnings captured (not printed); returns its result and what was captured. */
export function captureOutput<T>(fn: () => T): CapturedOutput & { result: T } {
  const captured: CapturedOutput = { printf: [], warnings: [] };
  const restore = setOutput({ printf: (t) => captured.printf.push(t), warn: (t) => captured.warnings.push(t) });
  try {
    return { ...captured, result: fn() };
  } finally {
    restore();
  }
}

/** The error fn throws; fails the test if it returns normally. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error, but the call returned normally");
}

/**
 * Asserts that fn throws an instance of `cls` with `code`, whose message contains every fragment (strings as
 * they are, regular expressions matched); returns the error for further checks.
 */
export function expectGpsimdError<E extends GpsimdError>(
  fn: () => unknown,
  cls: abstract new (...args: never[]) => E,
  code: string,
  fragments: (string | RegExp)[] = [],
): E {
  const e = thrown(fn);
  expect(e, `expected ${cls.name}, got ${String(e)}`).toBeInstanceOf(cls);
  const err = e as E;
  expect(err.code).toBe(code);
  for (const f of fragments) {
    if (typeof f === "string") expect(err.message).toContain(f);
    else expect(err.message).toMatch(f);
  }
  return err;
}

/** A copy of a tensor's elements, to check later that a call left it unchanged. */
export function snapshot(t: Tensor): number[] {
  return Array.from(t.data() as ArrayLike<number>, Number);
}

/** As expectGpsimdError, and also asserts that the failed call left every one of `inputs` unchanged. */
export function expectFailureKeepsInputs<E extends GpsimdError>(
  inputs: Tensor[],
  fn: () => unknown,
  cls: abstract new (...args: never[]) => E,
  code: string,
  fragments: (string | RegExp)[] = [],
): E {
  const before = inputs.map(snapshot);
  const err = expectGpsimdError(fn, cls, code, fragments);
  inputs.forEach((t, i) => expect(snapshot(t), `input ${i} changed`).toEqual(before[i]));
  return err;
}

/** Calls a correct negate operator (test/fixtures/errors/good.ts) on 2100 floats (more than one TCM chunk) and checks -x. */
export function expectNegateWorks(negate: OpFunction): void {
  const x = randn([3, 700], { seed: 11 });
  expect(values(negate(x))).toEqual(values(x).map((v) => -v));
}

/** Flat elements of a float32 tensor as plain numbers. */
export function values(t: Tensor): number[] {
  return Array.from(t.data() as Float32Array);
}

/** A tensor's elements as float32. */
export const floats = (t: Tensor) => t.data() as Float32Array;

/** Load options for the shipped libraries in tests: a TCM block left allocated at kernel exit fails the call (instead of a warning), so every kernel must free its buffers. */
export const STRICT = { leak_is_error: true };

/** The first element whose float32 bits differ, described; null when all agree. */
export function bitDifference(got: Float32Array, want: Float32Array): string | null {
  if (got.length !== want.length) return `length ${got.length}, expected ${want.length}`;
  const a = new Uint32Array(got.buffer, got.byteOffset, got.length), b = new Uint32Array(want.buffer, want.byteOffset, want.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `element ${i}: got ${got[i]}, expected ${want[i]}`;
  return null;
}
