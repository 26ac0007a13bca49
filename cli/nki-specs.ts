// Help texts and options of run, check and profile when their target is an
// NKI kernel file (.py). Apart from the code, so --help loads no runtime.
import type { CommandSpec } from "./options.js";

const TARGET = `<file.py> is a kernel file written for the Neuron Kernel Interface; it runs as on a CPU
machine without the Neuron packages. --kernel names the kernel (a function decorated with
@nki.jit, @nki.trace, ...; optional when the file has one).`;

const ARGS = `  --kernel NAME    the kernel to call
  --grid G         the SPMD launch grid, e.g. 2,2 (kernel[2, 2] in Python); default: one instance
  --arg [NAME=]V   a positional argument, in order (NAME only labels it): a tensor made on the spot,
                   MAKER:SIZES[:DTYPE] with MAKER one of randn, rand (uniform in [0, 1)), uniform
                   ([-1, 1)), integers, boxes ([x1, y1, x2, y2] groups), zeros, ones, empty, arange,
                   e.g. randn:256,1024 or zeros:4,4:int32; a .npy file; a number; true, false, None;
                   or a quoted string
  --kwarg NAME=V   a keyword argument (same values), e.g. --kwarg pool_size=2
  --seed N         seed of the random tensors (default 0; each argument draws its own stream)
  --threads N      threads the grid's instances run on, the calling one included (default: CPUs)
  --timeout MS     stop the kernel after MS milliseconds (default 60000)
  --device D       the NeuronCore whose limits apply: trn1 (default) or trn2
  --no-checks      turn off the checks beyond the simulator's (races between affine_range iterations,
                   SPMD instances storing to the same elements, SBUF/PSUM capacity, buffer rules);
                   bounds, uninitialised reads and unwritten outputs stay checked (checks: false)`;

const COMMON = {
  kernel: { type: "string" }, grid: { type: "string" }, arg: { type: "string", multiple: true }, kwarg: { type: "string", multiple: true },
  seed: { type: "string" }, threads: { type: "string" }, timeout: { type: "string" }, device: { type: "string" },
  "no-checks": { type: "boolean" },
} as const;

export const NKI_RUN: CommandSpec = {
  name: "run",
  summary: "call an NKI kernel and summarise its output",
  help: `
usage: gpsimd run <file.py> [--kernel NAME] [--grid G] --arg [NAME=]V ... [options]

${TARGET}

Calls the kernel once and prints a summary of each tensor it returns (or, when it returns None, of
each empty/zeros argument it wrote) and the wall time.

options:
${ARGS}
  --show N         output values to print (default 8)
  --json           print one JSON verdict on stdout (docs/json.md), the usual output on stderr
  -h, --help       this help

exit codes: 0 ran, 1 the kernel raised an error, 2 bad command line, 4 file or kernel not found`,
  options: { ...COMMON, show: { type: "string" } },
};

export const NKI_CHECK: CommandSpec = {
  name: "check",
  summary: "compare an NKI kernel with a TypeScript reference",
  help: `
usage: gpsimd check <file.py> [--kernel NAME] [--grid G] --arg [NAME=]V ... --ref <module> [options]

${TARGET}

Calls the kernel on --runs sets of random inputs (the --arg specs drawn with seeds S, S+1, ...) and
compares its output with the reference's. The output is the tensor the kernel returns (the first, if
it returns several), or, when it returns None, the first empty/zeros argument.

The reference module (.ts or .js) exports a function named like the kernel (or its camelCase,
"reference", or default; --export picks another). It is called with the kernel's positional
arguments, each tensor as a typed array of its values (Float32Array for float dtypes), each other
value as given, then an array with every tensor argument's sizes, then the keyword arguments as an
object; it returns the expected output as an array-like of values, or { data, sizes }.

options:
  --ref M          the reference module
  --export NAME    the reference function to use
${ARGS}
  --runs N         input sets to compare (default 3)
  --atol X         absolute tolerance (default 1e-5)
  --rtol X         relative tolerance (default 1e-5; 1e-2 for bfloat16 and float16 outputs)
  --reference-hash H  refuse (exit 2) unless the reference module's sha256 is H
  --json           print one JSON verdict on stdout (docs/json.md), the usual output on stderr
  -h, --help       this help

exit codes: 0 every run agreed, 1 a mismatch or a kernel error, 2 bad command line, 4 file or kernel
not found`,
  options: { ...COMMON, ref: { type: "string" }, export: { type: "string" }, runs: { type: "string" }, atol: { type: "string" }, rtol: { type: "string" }, "reference-hash": { type: "string" } },
};

export const NKI_PROFILE: CommandSpec = {
  name: "profile",
  summary: "time an NKI kernel and each of its SPMD instances",
  help: `
usage: gpsimd profile <file.py> [--kernel NAME] [--grid G] --arg [NAME=]V ... [options]

${TARGET}

Times --runs calls (after one warm-up call) and prints the wall time of a call on this machine, then,
for the median call, each instance's wall time and thread (instances run on --threads threads: the
calling thread is "main"; with one thread the language runs the launch whole and there are no
per-instance rows), and the instructions each engine ran when the machine counts them. These are
measurements on this machine, not an estimate of the device's time.

options:
${ARGS}
  --runs N         calls to time (default 5)
  --trace FILE     write the estimate's Chrome trace (a lane per engine, for ui.perfetto.dev) to FILE
  --json           print one JSON verdict on stdout (docs/json.md), the usual output on stderr
  -h, --help       this help

exit codes: 0 profiled, 1 the kernel raised an error, 2 bad command line, 4 file or kernel not found`,
  options: { ...COMMON, runs: { type: "string" }, trace: { type: "string" } },
};

export const NKI_SPECS: Record<string, CommandSpec> = { run: NKI_RUN, check: NKI_CHECK, profile: NKI_PROFILE };

/** True when a command's argument is a .py file: the NKI form of run, check and profile. */
export function isNkiTarget(argv: string[]): boolean {
  return argv.some((a) => !a.startsWith("-") && a.endsWith(".py"));
}
