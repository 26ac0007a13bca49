// The callable a kernel file's kernel becomes on the host. k(a, b) runs one
// instance; k[[2, 2]](a, b), k["2,2"](a, b) and k.grid(2, 2)(a, b) run a grid
// (a Proxy turns the property key "2,2" into the grid); k.async(...) leaves
// the event loop free while the SPMD threads work; k.with({ threads: 1 })
// changes the options of the calls made through the kernel it returns.
import { callArguments, type NkiArg } from "./arguments.js";
import { launchSync, launchAsync, type NkiResult, type KernelTarget, type CallTimings } from "./launch.js";
import { resolveNkiOptions, type NkiOptions } from "./options.js";
import { isGridKey, parseGrid } from "../spmd/grid.js";

/** A kernel launched over a grid (or with no grid: one instance). */
export interface NkiLauncher<R extends NkiResult = NkiResult> {
  /** Runs the kernel; keyword arguments go in a last plain object: k(x, { pool_size: 2 }). Returns what the kernel returns. */
  (...args: NkiArg[]): R;
  /** As a call, with the grid's instances on the SPMD threads and the event loop free (instance 0 runs on the calling thread first). */
  async(...args: NkiArg[]): Promise<R>;
  /** The kernel's name in its file. */
  readonly kernelName: string;
  /** The kernel file (or the name given to nki.loadSource). */
  readonly file: string;
  /** The launch grid, or null for a direct call (one instance). */
  readonly launchGrid: readonly number[] | null;
  /** The same kernel and grid with other options (threads, timeout_ms, device). */
  with(options: NkiOptions): this;
  /** Timings of the last synchronous call made through this launcher (per instance when it ran on several threads). */
  readonly lastTimings: CallTimings | null;
}

/**
 * A kernel loaded from an NKI file. Call it directly for one instance, or index it with the grid:
 * k[[2, 2]](a, b) in JavaScript (the key [2, 2] is the string "2,2"), k["2,2"](a, b) or
 * k.grid(2, 2)(a, b) in TypeScript.
 */
export interface NkiKernel<R extends NkiResult = NkiResult> extends NkiLauncher<R> {
  /** The kernel over an SPMD grid of 1 to 4 dimensions. */
  grid(...dims: number[]): NkiLauncher<R>;
  readonly [grid: number]: NkiLauncher<R>;
  readonly [grid: `${number},${number}`]: NkiLauncher<R>;
  readonly [grid: `${number},${number},${number}`]: NkiLauncher<R>;
  readonly [grid: `${number},${number},${number},${number}`]: NkiLauncher<R>;
}

/** What makes a launcher: the kernel's target (source, name, grid, options). */
const targets = new WeakMap<object, KernelTarget>();

/** The target behind a launcher or kernel (for simulate_kernel, the CLI and operators). */
export function targetOf(k: unknown): KernelTarget | undefined {
  return typeof k === "function" ? targets.get(k) : undefined;
}

function launcher<R extends NkiResult>(target: KernelTarget): NkiLauncher<R> {
  let last: CallTimings | null = null;
  const call = (...args: NkiArg[]) => launchSync(target, callArguments(target.name, args), (t) => { last = t; }) as R;
  const props: PropertyDescriptorMap = {
    async: { value: (...args: NkiArg[]) => launchAsync(target, callArguments(target.name, args)) as Promise<R> },
    kernelName: { value: target.name, enumerable: true },
    file: { value: target.src.file, enumerable: true },
    launchGrid: { value: target.grid, enumerable: true },
    with: { value: (options: NkiOptions) => make<R>({ ...target, options: resolveNkiOptions(options, `${target.name}.with`, target.options) }, target.grid !== null) },
    lastTimings: { get: () => last },
    name: { value: target.name },
  };
  Object.defineProperties(call, props);
  targets.set(call, target);
  return call as unknown as NkiLauncher<R>;
}

/** A kernel (no grid) that also answers grid keys and .grid(...), or a launcher over a grid. */
export function make<R extends NkiResult>(target: KernelTarget, launcherOnly = false): NkiKernel<R> {
  const base = launcher<R>(target);
  if (launcherOnly) return base as NkiKernel<R>;
  const overGrid = (dims: readonly unknown[] | string) => launcher<R>({ ...target, grid: parseGrid(dims, target.name) });
  Object.defineProperty(base, "grid", { value: (...dims: number[]) => overGrid(dims) });
  const proxy = new Proxy(base, {
    get(t, key, receiver) {
      if (typeof key === "string" && !(key in t) && isGridKey(key)) return overGrid(key);
      return Reflect.get(t, key, receiver);
    },
  });
  targets.set(proxy, target);
  return proxy as NkiKernel<R>;
}
