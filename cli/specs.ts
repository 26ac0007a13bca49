// The commands' help texts and options, apart from their code: --help
// answers without loading the runtime (and the compiler it brings).
import { DEFAULT_OUT, VALUE_KINDS, INPUT_OPTIONS, INPUT_HELP, LIBRARY_OPTIONS, LIBRARY_HELP, RUNTIME_OPTIONS, RUNTIME_HELP, REPRO_HELP, type CommandSpec } from "./options.js";

export const BUILD: CommandSpec = {
  name: "build",
  summary: "compile an operator folder (or kernel and shape files) into lib<name>.wasm",
  help: `
usage: gpsimd build <op folder> [--variant V] [options]
       gpsimd build <kernel.ts|.cpp...> <shape.ts|.cpp...> [--name N] [options]

Compiles operator libraries and prints what was built, where, and the operators each registers.
A folder is laid out like ops/<op>/ (register-<variant>.ts, <variant>.ts, shape.ts, reference.ts),
holds a C++ kernel (its .cpp files, shape.cpp calling NEURON_LIBRARY, reference.ts: one library
named after the folder), or has a gpsimd.json manifest; without --variant every variant in it is
built. With files, shape sources are those named shape*.ts / register*.ts / shape*.cpp, those
that call NEURON_LIBRARY, and those given with --shape; the rest are kernel sources.

options:
  --variant V      build only this variant (e.g. tcm for register-tcm.ts)
  --name N         library name (lib<N>.wasm); default <folder>_<variant>, or the first kernel file
  --shape F        a shape source (with files; repeat)
  --multicore      run every kernel on all cores (default: variants named *multicore*)
  --cflag F        extra_cflags entry, e.g. -DSTACK_SIZE=65536 (repeat)
  --out DIR        where lib<name>.wasm goes (default ${DEFAULT_OUT})
  --force          rebuild even if nothing changed${RUNTIME_HELP}
  -h, --help       this help

exit codes: 0 built, 2 bad command line, 3 a compile error (listed as file:line:column), 4 load error`,
  options: {
    variant: { type: "string" },
    name: { type: "string" },
    shape: { type: "string", multiple: true },
    multicore: { type: "boolean" },
    cflag: { type: "string", multiple: true },
    out: { type: "string" },
    force: { type: "boolean" }, ...RUNTIME_OPTIONS,
  },
};

export const RUN: CommandSpec = {
  name: "run",
  summary: "call an operator on random inputs and summarise its output",
  help: `
usage: gpsimd run <library | files...> <op> --shape S [--shape S...] [options]

<library> is a lib<name>.wasm file, an operator folder (built first; --variant picks one), a
shipped library name (relu_tcm, giou_multicore, ...), or kernel and shape files (built first, as
gpsimd build <files...> builds them: e.g. relu.cpp shape.cpp).

options:${INPUT_HELP}
  --values K       how input values are drawn: ${VALUE_KINDS.join(", ")} (default normal)${LIBRARY_HELP}
  --show N         output values to print (default 8)${RUNTIME_HELP}${REPRO_HELP}
  -h, --help       this help

exit codes: 0 ran, 1 the operator raised an error, 2 bad command line, 3 compile error, 4 load error`,
  options: { ...INPUT_OPTIONS, values: { type: "string" }, ...LIBRARY_OPTIONS, show: { type: "string" }, ...RUNTIME_OPTIONS },
};

export const CHECK: CommandSpec = {
  name: "check",
  summary: "verify an operator against a TypeScript reference on random shapes, dtypes and values",
  help: `
usage: gpsimd check <library | files...> <op> --ref <module> [options]

<library> is as for gpsimd run: a lib<name>.wasm file, an operator folder, a shipped library name,
or kernel and shape files (e.g. giou.cpp shape.cpp).

Calls the operator on random inputs and compares each output with the reference; a failure is
shrunk to its smallest case (fast-check), with the first mismatching element and the core that
wrote it. Each case also runs the opcheck: the shape function, run again on meta tensors, must
describe the kernel's output and the reference's result.

The reference module (.ts or .js) exports a function named like the operator (or its camelCase,
"reference", or default; --export picks another). It is called with the kernel's arguments, each
tensor as a typed array of its values (Float32Array for float32/bfloat16/float16), each scalar as a
number, then an array with every tensor argument's sizes; it returns the expected output as an
array-like of values, or { data, sizes }. The default reference of an operator folder or shipped
library is its reference.ts, which exports one such function per operator.

OK means every one of --runs cases was compared: cases the shape function rejects are skipped and
replaced, and a run where it rejects most of them fails (exit 1) with the counts and an example.

options:
  --ref M          the reference module (default: the folder's reference.ts)
  --export NAME    the reference function to use
  --shape T        sizes of a tensor argument: numbers, and letters for random sizes shared by
                   every tensor (e.g. n,b,4); repeat per tensor argument (default n). A size may
                   depend on others: lo..hi is a random size from lo to hi, where lo and hi are
                   numbers or letters (--shape n --shape 1..n: a second size never above the first);
                   k=lo..hi names it k for use elsewhere (--shape n,n --shape k=1..n,k)
  --dtype D        a dtype to try (repeat: each case picks one; default float32), or one dtype per
                   tensor argument separated by commas (float32,int32; the last one is used for the rest)
  --arg V          value of a scalar argument, in order (repeat; one per scalar parameter)
  --values K       how input values are drawn (repeat: each case picks one): ${VALUE_KINDS.join(", ")}
                   (default every kind but boxes)
  --runs N         cases to compare (default 100)
  --seed N         seed of the case generator (default 1): the same seed tries the same cases
  --max-numel N    largest tensor a case may make (default 1048576)
  --atol X         absolute tolerance for floating-point outputs (default 1e-6)
  --rtol X         relative tolerance (default 1e-5; 1e-2 for bfloat16 and float16 outputs)
  --reference-hash H  refuse (exit 2) unless the reference module's sha256 is H: pins the reference
                   a failure was found with (gpsimd replay passes it)${LIBRARY_HELP}${RUNTIME_HELP}${REPRO_HELP}
                   (a failing check writes one by itself: gpsimd-repro-<op>-seed<seed>)
  -h, --help       this help

exit codes: 0 every case passed, 1 a mismatch, a kernel error or an opcheck failure (the smallest
case is printed), 2 bad command line, 3 compile error, 4 load error`,
  options: {
    ref: { type: "string" }, export: { type: "string" }, shape: { type: "string", multiple: true }, dtype: { type: "string", multiple: true },
    arg: { type: "string", multiple: true }, values: { type: "string", multiple: true }, runs: { type: "string" }, seed: { type: "string" }, "max-numel": { type: "string" },
    atol: { type: "string" }, rtol: { type: "string" }, "reference-hash": { type: "string" }, ...LIBRARY_OPTIONS, ...RUNTIME_OPTIONS,
  },
};

export const PROFILE: CommandSpec = {
  name: "profile",
  summary: "per-core timeline (Chrome trace JSON), bytes moved, load imbalance, estimated device time",
  help: `
usage: gpsimd profile <library | files...> <op> --shape S [--shape S...] [options]

<library> is as for gpsimd run: a lib<name>.wasm file, an operator folder, a shipped library name,
or kernel and shape files.

Times untraced calls, then traces calls (every TCM copy, stream refill/flush, TCM block and printf
of every core, timestamped) and writes the median traced call as Chrome trace JSON: open it in
https://ui.perfetto.dev or chrome://tracing. Prints bytes moved and calls per core, load imbalance,
the wall time on this machine and the estimated device time from the GpSimd cost model
(docs/cost-model.md): an estimate from counted events and, per core, the kernel's executed
instructions by class (counted in the traced calls), not a measurement.

options:${INPUT_HELP}
  --values K       how input values are drawn (normal, uniform, integers, special, boxes; default normal)
  --runs N         untraced calls to time (default 10)
  --trace-runs N   traced calls; the median one is written (default 3)
  --trace FILE     where the trace goes (default <library>-<op>.trace.json)
  --device D       the device the estimate describes: trn1 (default; NeuronCore-v2, where custom
                   C++ operators run) or trn2 (an extrapolation: 1.2 GHz, the cores' own DMA)
  --no-count       do not count executed instructions in the traced calls (the compute term then
                   comes from the bytes copied into TCM)${LIBRARY_HELP}${RUNTIME_HELP}
  -h, --help       this help

exit codes: 0 profiled, 1 the operator raised an error, 2 bad command line, 3 compile error, 4 load error`,
  options: {
    ...INPUT_OPTIONS, values: { type: "string" }, runs: { type: "string" }, "trace-runs": { type: "string" }, trace: { type: "string" },
    device: { type: "string" }, "no-count": { type: "boolean" }, ...LIBRARY_OPTIONS, ...RUNTIME_OPTIONS,
  },
};
