// What every command shares: exit codes, usage errors, parsing with
// node:util parseArgs (--help on every command), and the options that
// describe a call's inputs (--shape, --dtype, --seed, --arg).
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Exit codes scripts can rely on. */
export const EXIT = {
  /** Done: built, ran, every check passed. */
  OK: 0,
  /** The kernel failed or disagreed with the reference (check), or the operator raised an error. */
  FAILED: 1,
  /** The command line was wrong: unknown command or option, missing argument, bad value. */
  USAGE: 2,
  /** A library did not compile. */
  BUILD: 3,
  /** The library or operator could not be found or loaded. */
  LOAD: 4,
  /** A bug in gpsimd itself (EX_SOFTWARE). */
  INTERNAL: 70,
} as const;

/** Where built libraries go unless --out says otherwise. */
export const DEFAULT_OUT = "build/out";

/**
 * How input values are drawn: normal, uniform in [-1, 1), small integers, a mix with signed zeros, tiny and huge values,
 * or boxes [x1, y1, x2, y2] in a 256 x 256 image as W1 draws them (groups of four values).
 */
export const VALUE_KINDS = ["normal", "uniform", "integers", "special", "boxes"] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

/** A mistake on the command line (exit code 2). */
export class UsageError extends Error {}

/** A failure with its own exit code and message; `error` is the gpsimd error behind it, for the --json verdict. */
export class CommandError extends Error {
  constructor(message: string, readonly exitCode: number, readonly error?: unknown) { super(message); }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A command: its help text (usage line first) and its parseArgs options. */
export interface CommandSpec {
  name: string;
  summary: string;
  help: string;
  options: Options;
}

/** Parses argv for a command; returns null after printing the help when --help is given. */
export function parseCommand(spec: CommandSpec, argv: string[]): { values: Record<string, unknown>; positionals: string[] } | null {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { ...spec.options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
    if (values.help) {
      process.stdout.write(`${spec.help.trim()}\n`);
      return null;
    }
    return { values: values as Record<string, unknown>, positionals };
  } catch (e) {
    throw new UsageError(`gpsimd ${spec.name}: ${(e as Error).message.replace(/\. To specify.*$/s, "")}\nrun gpsimd ${spec.name} --help for the options`);
  }
}

/** Options that describe the inputs of a call. */
export const INPUT_OPTIONS: Options = {
  shape: { type: "string", multiple: true },
  dtype: { type: "string", multiple: true },
  seed: { type: "string" },
  arg: { type: "string", multiple: true },
};

/** Help lines for INPUT_OPTIONS. */
export const INPUT_HELP = `
  --shape S        sizes of a tensor argument, e.g. 32,4096; repeat for each tensor argument
                   (the last one given is used for the rest)
  --dtype D        dtype of a tensor argument (float32, bfloat16, float16, int32, int8, int64,
                   int16, uint8); repeat like --shape (default float32)
  --seed N         seed of the random input values (default 0)
  --arg V          value of a scalar (double / int64_t) argument, in order; repeat for each`;

/** Options of run, check and profile that pick and build the <library> (a folder's variant, or how a folder or files build). */
export const LIBRARY_OPTIONS: Options = {
  variant: { type: "string" },
  multicore: { type: "boolean" },
  cflag: { type: "string", multiple: true },
  out: { type: "string" },
};

/** Help lines for LIBRARY_OPTIONS. */
export const LIBRARY_HELP = `
  --variant V      the variant of a folder
  --multicore      build a folder or files with multicore: true (default: variants named *multicore*)
  --cflag F        extra_cflags entry for building a folder or files, e.g. -DSTACK_SIZE=65536 (repeat)
  --out DIR        where a folder's or files' library is built (default ${DEFAULT_OUT})`;

/** Options that set how the library is built and runs (custom_op.load's sanitize, cores, threads, checks). */
export const RUNTIME_OPTIONS: Options = {
  sanitize: { type: "boolean" },
  cores: { type: "string" },
  threads: { type: "string" },
  "no-checks": { type: "boolean" },
  verbose: { type: "boolean" },
};

/** Help lines for RUNTIME_OPTIONS. */
export const RUNTIME_HELP = `
  --sanitize       build with the sanitizer: every kernel load and store is checked (slower)
  --cores N        logical cores of a multicore library, 1 to 64 (default 8, as on the device)
  --threads N      worker threads running the cores, 1 to 64 (default: CPUs, at most --cores)
  --no-checks      turn off bounds, TCM, stream and coherence checks (checks: false; faster)
  --verbose        after a build, where its time went, stage by stage (compiler start, compiling the
                   kernel and the shape function, device runtime, link, each post-link pass, optimiser,
                   writing the library)
  --json           print one JSON verdict on stdout (docs/json.md), the usual output on stderr`;

/** Help line of --save-repro (run and check). */
export const REPRO_HELP = `
  --save-repro DIR write a folder gpsimd replay DIR reruns: sources, inputs (.npy), options, seed,
                   expected verdict and output hashes`;

/** What the runtime options ask of custom_op.load / load_library, validated. */
export interface RuntimeChoices { sanitize?: boolean; cores?: number; threads?: number; checks?: boolean; verbose?: boolean }

/** The runtime options given on the command line (only those given). */
export function runtimeOptions(values: Record<string, unknown>): RuntimeChoices {
  const out: RuntimeChoices = {};
  if (values.sanitize) out.sanitize = true;
  if (values["no-checks"]) out.checks = false;
  if (values.verbose) out.verbose = true;
  for (const key of ["cores", "threads"] as const) {
    if (values[key] === undefined) continue;
    const n = intOption(values, key, 0, 1);
    if (n > 64) throw new UsageError(`--${key} ${n}: expected an integer from 1 to 64`);
    out[key] = n;
  }
  return out;
}

/** "32,4096" -> [32, 4096]. */
export function parseSizes(text: string, what = "--shape"): number[] {
  const parts = text.split(/[,x\s]+/).filter(Boolean);
  const sizes = parts.map(Number);
  if (parts.length === 0 || sizes.some((s) => !Number.isInteger(s) || s < 0)) throw new UsageError(`${what} ${JSON.stringify(text)}: expected sizes such as 32,4096`);
  return sizes;
}

/** A non-negative integer option. */
export function intOption(values: Record<string, unknown>, name: string, fallback: number, min = 0): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} ${JSON.stringify(raw)}: expected an integer >= ${min}`);
  return n;
}

/** A number option. */
export function numberOption(values: Record<string, unknown>, name: string, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} ${JSON.stringify(raw)}: expected a number >= 0`);
  return n;
}

/** Repeated string option as a list. */
export function listOption(values: Record<string, unknown>, name: string): string[] {
  const raw = values[name];
  return raw === undefined ? [] : (raw as string[]);
}
