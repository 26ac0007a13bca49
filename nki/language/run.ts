// The language's API for the host: find a kernel in a loaded file and launch it with gpsimd tensors.
// Tensors become HBM tensors named by the kernel's parameters; the returned HBM tensors become gpsimd
// tensors again. Every SPMD instance runs in order on this thread, then the launch-end checks.
import { HostObject, PyFloat, PyTuple, PyList, type PyValue } from "../python/values.js";
import { PyFunction } from "../python/objects.js";
import type { Program } from "../python/index.js";
import { Tensor } from "../../host/device/tensor.js";
import { RegistryError, ArgumentError, GpsimdError } from "../../host/checks/errors.js";
import { Storage, NkiArray, wholeArray } from "../machine/tile.js";
import { nkiDTypeOf } from "../machine/nki-dtype.js";
import { registerSource } from "../machine/site.js";
import { sourceOf } from "../python/parse.js";
import { KernelFunction, GridKernel, withLaunchOptions, setLaunchListener } from "./kernel.js";
import { finishLaunch, runRaising, type OutputRecord } from "../machine/kernel-run.js";
import type { Arenas } from "../machine/on-chip.js";
import type { DeviceName } from "../machine/device.js";
import { registerNkiModules } from "./modules.js";
import { withChecks } from "../checks/index.js";

export { registerNkiModules, KernelFunction, GridKernel, finishLaunch, type OutputRecord };
export { allocateArenas, releaseArenas, type Arenas } from "../machine/on-chip.js";

export interface LaunchOptions {
  /** The SPMD grid ([] or undefined: one instance). */
  grid?: readonly number[];
  /** Date.now() past which the launch stops with KernelTimeoutError. */
  deadline?: number;
  /** The device modelled (default: the kernel's platform_target, else trn1). */
  device?: DeviceName;
  /**
   * Run only the instance with these program ids (SPMD over threads). The unwritten-output check is
   * then not run: call finishLaunch(kernel.name, outputRecords) once every instance ran.
   */
  instance?: readonly number[];
  /**
   * The shared_hbm outputs an earlier instance made (LaunchResult.outputRecords; plain Tensors are
   * accepted but their stores are then not tracked): the k-th nl.ndarray(shared_hbm) is outputs[k].
   */
  outputs?: readonly (Tensor | OutputRecord)[];
  /** SBUF/PSUM arenas to run in (a worker's, from allocateArenas on the main thread). */
  arenas?: Arenas;
  /** false: no race, instance-overlap or capacity checks (nki/checks); bounds and init checks stay. */
  checks?: boolean;
}

export interface LaunchResult {
  /** What the kernel returned: a Tensor, a tuple (array) of Tensors, or null. */
  returned: unknown;
  /** The launch's shared_hbm outputs, in creation order. */
  outputs: Tensor[];
  /** The same outputs with their init maps (kept alive after a partial launch until finishLaunch). */
  outputRecords: OutputRecord[];
}

/** A gpsimd tensor as a kernel argument: an HBM tensor named after its parameter. */
export function hbmArgument(t: Tensor, name: string | undefined): NkiArray {
  return wholeArray(new Storage("input", t.address, 0, nkiDTypeOf(t.dtype), t.sizes(), undefined, name, t));
}

function toPython(v: unknown, name: string | undefined): PyValue {
  if (v instanceof Tensor) return hbmArgument(v, name);
  if (typeof v === "number") return Number.isInteger(v) ? v : new PyFloat(v);
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "boolean" || typeof v === "string" || v === null) return v;
  if (v === undefined) return null;
  if (Array.isArray(v)) return new PyTuple(v.map((x) => toPython(x, undefined)));
  if (v instanceof PyFloat || v instanceof PyTuple || v instanceof PyList || v instanceof HostObject) return v; // Python values passed through (np.add as an op)
  throw new ArgumentError("E_NKI_ARGUMENT", `a kernel argument must be a gpsimd Tensor, a number, a bigint, a boolean, a string or an array of them; got ${Object.prototype.toString.call(v)}`);
}

function fromPython(v: PyValue): unknown {
  if (v instanceof NkiArray) {
    if (!v.storage.tensor) throw new ArgumentError("E_NKI_RETURN", `a kernel returned ${v.storage.describe()}, which is not an HBM tensor`);
    return v.isWhole || v.storage.tensor ? v.storage.tensor : null;
  }
  if (v instanceof PyTuple || v instanceof PyList) return v.items.map(fromPython);
  if (v instanceof PyFloat) return v.value;
  return v;
}

/**
 * Runs every SPMD instance of `kernel` over options.grid on this thread, then checks that every
 * shared_hbm output element was stored. Errors are gpsimd errors (Python exceptions become
 * PythonError / KernelAbortError naming the kernel line).
 */
export function launchKernel(program: Program, kernel: KernelFunction, args: unknown[], kwargs: Record<string, unknown> = {}, options: LaunchOptions = {}): LaunchResult {
  registerNkiModules();
  const src = sourceOf(program.file);
  if (src !== undefined) registerSource(program.file, src);
  const params = kernel.fn.params;
  const pyArgs = args.map((a, i) => toPython(a, params[i]?.name));
  const pyKwargs = new Map(Object.entries(kwargs).map(([k, v]) => [k, toPython(v, k)] as const));
  const callee: PyValue = options.grid && options.grid.length > 0 ? new GridKernel(kernel, options.grid) : kernel;
  lastRecords = [];
  const outputs = options.outputs?.map((o) => (o instanceof Tensor ? { tensor: o, initAddr: 0 } : o));
  const launchOptions = { deadline: options.deadline, device: options.device, instance: options.instance, outputs, arenas: options.arenas };
  let returned: PyValue;
  try {
    returned = withChecks(options.checks !== false, () => withLaunchOptions(launchOptions, () =>
      program.call(callee, pyArgs, pyKwargs, options.deadline !== undefined ? { deadline: options.deadline } : undefined)));
  } catch (e) {
    throw withInstanceNamed(withRaisingKernel(e), options.grid);
  }
  return { returned: fromPython(returned), outputs: lastRecords.map((r) => r.tensor), outputRecords: lastRecords };
}

/**
 * An uncaught Python exception (PythonError, KernelAbortError from a failed assert) names the kernel
 * and instance it was raised in, as the machine's errors do; the interpreter only knows the function
 * (a NameError in a helper said kernel: 'helper').
 */
function withRaisingKernel(e: unknown): unknown {
  if (!(e instanceof GpsimdError) || typeof e.cause !== "object" || e.cause === null) return e;
  const run = runRaising(e.cause);
  if (run) Object.assign(e.details, { kernel: run.kernel, instance: [...run.instance] });
  return e;
}

/**
 * An error raised inside one instance of a grid of several says which, in the message as in details
 * (" in SPMD instance [0, 1] at kernel (file:line:column)"): the same line runs in every instance.
 * Errors of the launch as a whole (two instances' overlapping stores) name their instances themselves.
 */
function withInstanceNamed(e: unknown, grid: readonly number[] | undefined): unknown {
  if (!(e instanceof GpsimdError) || !grid || grid.reduce((a, b) => a * b, 1) <= 1) return e;
  const instance = e.details.instance;
  if (!Array.isArray(instance) || instance.length === 0 || /\binstances? \[/.test(e.message)) return e;
  const at = e.message.lastIndexOf(" at ");
  const label = ` in SPMD instance [${instance.join(", ")}]`;
  e.message = at < 0 ? e.message + label : e.message.slice(0, at) + label + e.message.slice(at);
  return e;
}

let lastRecords: OutputRecord[] = [];
// The outputs of the launch started from TypeScript, and of the kernels a Python caller launched in it
// (nki_tensor_add launching nki_tensor_add_kernel_[2, 2]), in the order they ended. A whole launch has
// checked its outputs and freed their init maps: its records say so with initAddr 0.
setLaunchListener((launch, partial) => {
  lastRecords.push(...launch.outputRecords().map((r) => (partial ? r : { ...r, initAddr: 0 })));
});

/** The names of the program's kernels (@nki.jit and kin). */
export function kernelNames(program: Program): string[] {
  return [...program.globals.attrs].filter(([, v]) => v instanceof KernelFunction || v instanceof GridKernel).map(([k]) => k);
}

/** A kernel of the program by name: a @nki.jit (trace, baremetal...) kernel, or a plain function wrapped as one. */
export function findKernel(program: Program, name: string): KernelFunction {
  registerNkiModules();
  const v = program.globals.attrs.get(name);
  if (v instanceof KernelFunction) return v;
  if (v instanceof GridKernel) return v.kernel;
  if (v instanceof PyFunction) return new KernelFunction(v, { plain: true });
  const kernels = [...program.globals.attrs].filter(([, x]) => x instanceof KernelFunction).map(([k]) => k);
  const functions = [...program.globals.attrs].filter(([, x]) => x instanceof PyFunction).map(([k]) => k);
  throw new RegistryError(
    "E_NKI_NO_KERNEL",
    `${program.file} has no kernel named '${name}'; its kernels: ${kernels.length ? kernels.join(", ") : "(none)"}` +
      (functions.length ? `; its functions: ${functions.join(", ")}` : ""),
    { details: { file: program.file, name, kernels, functions } },
  );
}
