// gpsimd's NKI front end for the host: load a kernel file written for the
// Neuron Kernel Interface and call its kernels on gpsimd tensors.
//
//   const giou = nki.load("giou.py", "giou_kernel");
//   nki.simulate_kernel(giou, preds, targets, out);       // as the seed calls it
//   const c = nki.load("add.py", "nki_tensor_add_kernel_")[[2, 2]](a, b);  // an SPMD grid
//
// The file runs as on a CPU machine without the Neuron packages (torch_xla and
// friends raise ImportError). Arguments are gpsimd tensors, numbers, bigints,
// booleans, strings, null and arrays (tuples); keyword arguments go in a last
// plain object: avgpool(x, { pool_size: 2 }). A grid's instances run on worker
// threads (option threads, default the machine's CPUs; threads: 1 runs the
// launch whole on the calling thread), each with its own interpreter and tile
// engine: the bytes, the printed text (in instance order), the checks across
// instances and the error reported (the lowest-numbered failing instance's)
// are those of running the instances in order. A thread that dies is
// WorkerCrashError, a kernel past timeout_ms KernelTimeoutError. Errors are
// gpsimd errors naming the kernel, the instance and the line. Kernels whose
// instances allocate private_hbm run on the calling thread (only it allocates
// device memory).
import { ArgumentError } from "../host/checks/errors.js";
import { make, targetOf, type NkiKernel, type NkiLauncher } from "./host/kernel.js";
import { resolveNkiOptions, type NkiOptions } from "./host/options.js";
import { programOf, sourceFromFile, sourceFromText, type ProgramSource } from "./host/programs.js";
import { callArguments, type NkiArg } from "./host/arguments.js";
import { launchSync, type NkiResult } from "./host/launch.js";
import { kernelNames, findKernel } from "./host/runtime.js";
import { shutdownSpmd } from "./spmd/pool.js";

export type { NkiKernel, NkiLauncher } from "./host/kernel.js";
export type { NkiOptions } from "./host/options.js";
export type { NkiArg, NkiValue, NkiKwargs } from "./host/arguments.js";
export type { NkiResult, CallTimings } from "./host/launch.js";
export { register, type NkiOperatorDefinition, type NkiOperator, type BackwardContext } from "./operator.js";

/** The kernels of a file by name. */
export type NkiKernels = { readonly [name: string]: NkiKernel };

function kernelsOf(src: ProgramSource, name: string | undefined, options: NkiOptions | undefined, where: string): NkiKernel | NkiKernels {
  const resolved = resolveNkiOptions(options, where);
  const program = programOf(src);
  const names = kernelNames(program);
  if (name !== undefined) {
    if (typeof name !== "string") throw new ArgumentError("E_NKI_KERNEL", `${where}: the kernel name must be a string, got ${typeof name}`);
    // A decorated kernel, or a plain function that launches kernels itself (the seed's nki_tensor_add).
    findKernel(program, name);
    return make({ src, name, grid: null, options: resolved });
  }
  return Object.freeze(Object.fromEntries(names.map((n: string) => [n, make({ src, name: n, grid: null, options: resolved })])));
}

/**
 * Loads a kernel file and returns its kernel `name`, or, without a name, an object of all its kernels
 * (functions decorated with @nki.jit, @nki.trace, @nki.baremetal, ...). The file is read now.
 */
export function load(file: string, name: string, options?: NkiOptions): NkiKernel;
export function load(file: string, options?: NkiOptions): NkiKernels;
export function load(file: string, nameOrOptions?: string | NkiOptions, options?: NkiOptions): NkiKernel | NkiKernels {
  const [name, opts] = typeof nameOrOptions === "string" ? [nameOrOptions, options] : [undefined, nameOrOptions];
  return kernelsOf(sourceFromFile(file), name, opts, "nki.load");
}

/** Options of nki.loadSource: the kernel to pick and the file name errors show (default "<nki>"). */
export interface LoadSourceOptions extends NkiOptions {
  file?: string;
  kernel?: string;
}

/** Loads kernels from Python source text; with options.kernel, that kernel, else an object of all of them. */
export function loadSource(source: string, options: LoadSourceOptions & { kernel: string }): NkiKernel;
export function loadSource(source: string, options?: LoadSourceOptions): NkiKernels;
export function loadSource(source: string, options: LoadSourceOptions = {}): NkiKernel | NkiKernels {
  const { file, kernel, ...rest } = options;
  return kernelsOf(sourceFromText(source, file), kernel, rest, "nki.loadSource");
}

/**
 * nki.simulate_kernel(kernel, ...args), as the seeds call it: runs the kernel (over its grid when given
 * one: simulate_kernel(k[[2, 2]], a, b)) and returns what it returns.
 */
export function simulate_kernel<R extends NkiResult = NkiResult>(kernel: NkiKernel<R> | NkiLauncher<R>, ...args: NkiArg[]): R {
  const target = targetOf(kernel);
  if (!target) throw new ArgumentError("E_NKI_KERNEL", `nki.simulate_kernel: the first argument must be a kernel from nki.load or nki.loadSource, got ${typeof kernel}`);
  return launchSync(target, callArguments(target.name, args)) as R;
}

/** Stops the SPMD worker threads (they start again when a grid needs them). */
export function shutdown(): Promise<void> {
  return shutdownSpmd();
}
