// Kernels as Python sees them: what @nki.jit (and trace, baremetal, benchmark, profile) make of a
// function, kernel[grid] for an SPMD launch, and the launch itself: every instance of the grid runs
// in order on this thread over SBUF/PSUM arenas of its own, then the launch-end checks run.
import { HostObject, PyException, PyTuple, PyList, type CallContext, type PyValue, type SourceSite } from "../python/values.js";
import type { PyFunction } from "../python/objects.js";
import { placeholdersForbidden, setPlaceholdersForbidden } from "../python/placeholder.js";
import { KernelLaunch, KernelRun, withRun, maybeCurrentRun, currentRun, type OutputRecord } from "../machine/kernel-run.js";
import { NkiArray } from "../machine/tile.js";
import { copyInto } from "./compute.js";
import { allocateArenas, type Arenas } from "../machine/on-chip.js";
import { deviceFigures, type DeviceName } from "../machine/device.js";
import { typeName } from "./args.js";

export interface KernelOptions {
  /** The device the kernel targets (platform_target=). */
  device?: DeviceName;
  /** mode= as given (simulation, jax, torch...): the same here. */
  mode?: string;
  /** A plain function wrapped as a kernel (no decorator). */
  plain?: boolean;
}

/** A jit (trace, baremetal...) kernel: call it for one instance, subscript it with a grid for SPMD. */
export class KernelFunction extends HostObject {
  readonly typeName = "Kernel";
  constructor(readonly fn: PyFunction, readonly options: KernelOptions = {}) { super(); }
  get name(): string { return this.fn.name; }
  /** The def's site: where the host's call of the kernel begins its Python traceback (python/index.ts). */
  get defSite(): SourceSite { return this.fn.site; }

  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    return launchPython(this, args, kwargs, [], ctx).returned;
  }
  override getItem(key: PyValue, ctx: CallContext): PyValue {
    return new GridKernel(this, gridOf(key, ctx));
  }
  override getAttr(name: string): PyValue | undefined {
    if (name === "__name__" || name === "__qualname__" || name === "func") return name === "func" ? this.fn : this.fn.name;
    return this.fn.getAttr(name);
  }
  override repr(): string { return `<nki kernel ${this.name}>`; }
}

/** kernel[2, 2]: the kernel with its launch grid. */
export class GridKernel extends HostObject {
  readonly typeName = "GridKernel";
  constructor(readonly kernel: KernelFunction, readonly grid: readonly number[]) { super(); }
  get defSite(): SourceSite { return this.kernel.fn.site; }
  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    return launchPython(this.kernel, args, kwargs, this.grid, ctx).returned;
  }
  override repr(): string { return `<nki kernel ${this.kernel.name}[${this.grid.join(", ")}]>`; }
}

/**
 * A returned SBUF/PSUM tile becomes an HBM tensor holding a copy (as the simulator hands back the
 * values of whatever the kernel returns); HBM tensors and other values are returned as they are.
 */
function onChipToHbm(v: PyValue, ctx: CallContext): PyValue {
  if (v instanceof PyTuple) return new PyTuple(v.items.map((x) => onChipToHbm(x, ctx)));
  if (v instanceof PyList) return new PyList(v.items.map((x) => onChipToHbm(x, ctx)));
  if (!(v instanceof NkiArray) || v.storage.isHbm) return v;
  const copy = currentRun(ctx.site).allocHbm("private_hbm", v.shape, v.dtype, ctx.site, v.storage.name);
  copyInto("return of a tile", copy, v, null, ctx);
  return copy;
}

/** A grid subscript: an int, or a tuple/list of ints (each at least 1). */
export function gridOf(key: PyValue, ctx: CallContext): number[] {
  const items = key instanceof PyTuple || key instanceof PyList ? key.items : [key];
  return items.map((v) => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
      throw new PyException("ValueError", `a launch grid is made of positive ints; got ${typeof v === "number" ? v : typeName(v)}`, ctx.site);
    }
    return v;
  });
}

// ---- arenas: one set per nesting depth of launches on this thread, allocated once and reused ----

const arenaStack: Arenas[] = [];
let depth = 0;

/** What a launch started from TypeScript asks (the outermost launch takes all; launches it starts, deadline and device). */
export interface PyLaunchOptions {
  deadline?: number;
  device?: DeviceName;
  /** Run only the instance with these program ids; the launch-end checks are left to finishLaunch. */
  instance?: readonly number[];
  /** shared_hbm outputs made by an earlier part of the launch (instance 0): the k-th nl.ndarray(shared_hbm) is outputs[k]. */
  outputs?: readonly OutputRecord[];
  /** The SBUF/PSUM arenas to run in (a worker thread's, allocated on the main thread). */
  arenas?: Arenas;
}

let onLaunchEnd: (launch: KernelLaunch, partial: boolean) => void = () => {};
/**
 * Who learns of each finished launch, before it frees anything (run.ts records the outputs); partial:
 * one instance of a launch run in parts (its outputs' init maps stay for finishLaunch).
 */
export function setLaunchListener(f: (launch: KernelLaunch, partial: boolean) => void): void { onLaunchEnd = f; }

let defaultLaunchOptions: PyLaunchOptions = {};
/** Options for the launch the TypeScript caller starts (through program.call). */
export function withLaunchOptions<T>(o: PyLaunchOptions, f: () => T): T {
  const prev = defaultLaunchOptions;
  defaultLaunchOptions = o;
  try { return f(); } finally { defaultLaunchOptions = prev; }
}

/**
 * Calls the kernel's Python function. Arguments that do not bind (a missing one, an unknown keyword)
 * raise a TypeError that has no Python line of its own when the host called the kernel: it is placed
 * at the kernel's def, not at an unknown site.
 */
function callKernelFunction(kernel: KernelFunction, args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
  try {
    return kernel.fn.call(args, kwargs, ctx);
  } catch (e) {
    if (e instanceof PyException && !e.site) e.site = { ...kernel.fn.site, function: kernel.fn.name };
    throw e;
  }
}

/** Runs every instance of kernel over grid (or the one options.instance names) with Python arguments; returns the last return value. */
export function launchPython(kernel: KernelFunction, args: PyValue[], kwargs: Map<string, PyValue>, grid: readonly number[], ctx: CallContext): { returned: PyValue; launch: KernelLaunch } {
  const outermost = depth === 0;
  const o: PyLaunchOptions = outermost ? defaultLaunchOptions : { deadline: defaultLaunchOptions.deadline, device: defaultLaunchOptions.device };
  const device = deviceFigures(o.device ?? kernel.options.device ?? maybeCurrentRun()?.device.name ?? "trn1");
  const launch = new KernelLaunch(kernel.name, grid, device, o.deadline, o.outputs ?? []);
  const arenas = outermost && o.arenas ? o.arenas : (arenaStack[depth] ??= allocateArenas());
  const partial = o.instance !== undefined;
  depth++;
  try {
    let returned: PyValue = null;
    const first = partial ? launch.instanceIndex(o.instance!) : 0;
    const end = partial ? first + 1 : launch.instances;
    for (let n = first; n < end; n++) {
      const run = new KernelRun(launch, n, arenas);
      try {
        // Host-side packages (torch, jax) are placeholders: usable at module level, an error inside a kernel.
        const wasForbidden = placeholdersForbidden();
        setPlaceholdersForbidden(true);
        try {
          returned = withRun(run, () => onChipToHbm(callKernelFunction(kernel, args, kwargs, ctx), ctx));
        } finally {
          setPlaceholdersForbidden(wasForbidden);
        }
      } finally {
        run.memory.reset();
      }
    }
    if (!partial) launch.checkOutputsWritten();
    onLaunchEnd(launch, partial);
    return { returned, launch };
  } finally {
    depth--;
    launch.release(partial);
  }
}
