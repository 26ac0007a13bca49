// Options of custom_op.load / load_library, validated with messages that name
// the option, the value given and what is accepted.
import { availableParallelism } from "node:os";
import { OptionError } from "../checks/errors.js";

/** Settings that can change after loading (library.configure). */
export interface RuntimeOptions {
  /** Bounds, TCM, stream and coherence checks, poison detection (default true). */
  checks?: boolean;
  /** TCM blocks left allocated at kernel exit fail the call instead of warning (default false). */
  leak_is_error?: boolean;
  /** Cross-core checks of a multicore output: overlaps and gaps (default true). */
  cross_core_checks?: boolean;
  /** Keep every core's printf, tagged with its id, instead of only core 0's (default false). */
  print_all_cores?: boolean;
  /** A kernel running longer than this is stopped by the watchdog with KernelTimeoutError (default 30000 ms; at most MAX_TIMEOUT_MS). */
  timeout_ms?: number;
  /** Record each call's per-core timeline and counters in library.lastTrace (default false; see gpsimd profile). */
  trace?: boolean;
}

/** Settings fixed when the library is loaded. */
export interface LoadTimeOptions extends RuntimeOptions {
  /** Logical cores of a multicore library (default 8, as on the device). */
  cores?: number;
  /** Worker threads running the cores (default: the machine's CPU count, at most `cores`). */
  threads?: number;
}

/** custom_op.load(...) options; the names mirror torch_neuronx's custom_op.load. */
export interface LoadOptions extends LoadTimeOptions {
  /** Library name: the file is lib<name>.wasm. */
  name: string;
  /** AssemblyScript kernel sources. */
  compute_srcs: string | string[];
  /** TypeScript shape sources that call NEURON_LIBRARY. */
  shape_srcs: string | string[];
  /** Where lib<name>.wasm is written (default: <cache>/build/<name>, the per-user cache of build/paths.ts). */
  build_directory?: string;
  /** Every function runs on all cores (default false). */
  multicore?: boolean;
  /** -DNAME=VALUE become integer constants in the kernel; -DSTACK_SIZE=N sets the per-core kernel heap. */
  extra_cflags?: string[];
  /** Folders of C++ headers (as -I): a C++ kernel's or shape source's #include finds them. AssemblyScript resolves imports itself. */
  extra_include_paths?: string[];
  /** Print what the build does. */
  verbose?: boolean;
  /** Instrument every load and store of the kernel: it may touch only its own memory, its TCM and its tensors. */
  sanitize?: boolean;
  /** Rebuild even if nothing changed. */
  force?: boolean;
  /**
   * Give a build up after this many milliseconds (BuildError E_BUILD_TIMEOUT; its temporary files are removed).
   * Default: 300 s, plus 1 s per KB of source beyond the first 100 KB (compile-service.ts: defaultBuildTimeoutMs).
   */
  build_timeout_ms?: number;
}

/** Resolved settings. */
export interface ResolvedRuntime {
  checks: boolean;
  leak_is_error: boolean;
  cross_core_checks: boolean;
  print_all_cores: boolean;
  timeout_ms: number;
  trace: boolean;
}

/**
 * The longest timeout_ms: Node's timers take at most 2^31 - 1 ms (a longer delay fires at once),
 * and the pool's last-resort timer waits timeout_ms plus its grace (host/cores/pool.ts STOP_GRACE_MS).
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1 - 2000;

function fail(option: string, value: unknown, expected: string): never {
  throw new OptionError("E_OPTION", `option ${option}: ${JSON.stringify(value)} is not valid; expected ${expected}`, { details: { option, value } });
}

function bool(o: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = o[key];
  if (v === undefined) return fallback;
  if (typeof v !== "boolean") fail(key, v, "true or false");
  return v;
}

function int(o: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  const v = o[key];
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) fail(key, v, `an integer from ${min} to ${max}`);
  return v;
}

const RUNTIME_KEYS = ["checks", "leak_is_error", "cross_core_checks", "print_all_cores", "timeout_ms", "trace"];
const LOAD_TIME_KEYS = [...RUNTIME_KEYS, "cores", "threads"];
const LOAD_KEYS = [...LOAD_TIME_KEYS, "name", "compute_srcs", "shape_srcs", "build_directory", "multicore", "extra_cflags", "extra_include_paths", "verbose", "sanitize", "force", "build_timeout_ms"];

function rejectUnknown(o: object, known: string[], what: string): void {
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) throw new OptionError("E_OPTION", `${what}: unknown option ${key}; known options: ${known.join(", ")}`, { details: { option: key } });
  }
}

/** Validates runtime settings over a base. */
export function resolveRuntime(o: RuntimeOptions, base?: ResolvedRuntime, what = "configure"): ResolvedRuntime {
  if (typeof o !== "object" || o === null) throw new OptionError("E_OPTION", `${what}: options must be an object`);
  rejectUnknown(o, base ? RUNTIME_KEYS : LOAD_KEYS, what);
  const r = o as Record<string, unknown>;
  return {
    checks: bool(r, "checks", base?.checks ?? true),
    leak_is_error: bool(r, "leak_is_error", base?.leak_is_error ?? false),
    cross_core_checks: bool(r, "cross_core_checks", base?.cross_core_checks ?? true),
    print_all_cores: bool(r, "print_all_cores", base?.print_all_cores ?? false),
    timeout_ms: int(r, "timeout_ms", base?.timeout_ms ?? 30000, 1, MAX_TIMEOUT_MS),
    trace: bool(r, "trace", base?.trace ?? false),
  };
}

/** Logical cores and threads of a library. */
export function resolveCores(o: LoadTimeOptions, multicore: boolean): { cores: number; threads: number } {
  const r = o as Record<string, unknown>;
  const cores = multicore ? int(r, "cores", 8, 1, 64) : 1;
  const threads = int(r, "threads", Math.min(cores, availableParallelism()), 1, 64);
  return { cores, threads: Math.min(threads, cores) };
}

/** Validates custom_op.load options. */
export function validateLoad(o: LoadOptions): void {
  if (typeof o !== "object" || o === null) throw new OptionError("E_OPTION", "custom_op.load: pass an options object, e.g. { name: \"relu\", compute_srcs: [\"relu.ts\"], shape_srcs: [\"shape.ts\"] }");
  rejectUnknown(o, LOAD_KEYS, "custom_op.load");
  if (typeof o.name !== "string" || !/^[A-Za-z_][\w-]*$/.test(o.name)) fail("name", o.name, "a library name of letters, digits, _ and -");
  for (const key of ["compute_srcs", "shape_srcs"] as const) {
    const v = o[key];
    const list = typeof v === "string" ? [v] : v;
    if (!Array.isArray(list) || list.length === 0 || list.some((s) => typeof s !== "string")) fail(key, v, "a file path or a non-empty array of file paths");
  }
  if (o.build_directory !== undefined && typeof o.build_directory !== "string") fail("build_directory", o.build_directory, "a folder path");
  if (o.extra_cflags !== undefined && (!Array.isArray(o.extra_cflags) || o.extra_cflags.some((s) => typeof s !== "string"))) fail("extra_cflags", o.extra_cflags, "an array of strings such as \"-DSTACK_SIZE=65536\"");
  if (o.extra_include_paths !== undefined && (!Array.isArray(o.extra_include_paths) || o.extra_include_paths.some((s) => typeof s !== "string"))) fail("extra_include_paths", o.extra_include_paths, "an array of folder paths");
  for (const key of ["multicore", "verbose", "sanitize", "force"] as const) bool(o as unknown as Record<string, unknown>, key, false);
  int(o as unknown as Record<string, unknown>, "build_timeout_ms", 0, 1, MAX_TIMEOUT_MS);
  resolveRuntime(o);
  resolveCores(o, o.multicore ?? false);
}
