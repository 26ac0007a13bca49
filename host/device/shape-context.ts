// Whether a shape function is running: factories then make meta tensors,
// and any attempt to read data is an error. It also knows the launch's core
// count, which a shape function may ask for (get_cpu_count()) to size
// per-core outputs such as [cores, bins] partials.
import { GpsimdError } from "../checks/errors.js";

let depth = 0;
let launchCores = 1;

/** True while a shape function runs on this thread. */
export function inShapeFunction(): boolean { return depth > 0; }

/** Runs fn with factories in meta mode; `cores` is the core count of the launch it describes (1: single core). */
export function withShapeContext<T>(fn: () => T, cores = 1): T {
  const saved = launchCores;
  depth++;
  launchCores = cores;
  try { return fn(); } finally { depth--; launchCores = saved; }
}

/**
 * The core count of the launch a shape function describes (get_cpu_count(), as kernels and C++ shape functions
 * spell it): the library's cores when it is multicore, 1 otherwise. Only shape functions may ask.
 */
export function get_cpu_count(): number {
  if (depth === 0) throw new GpsimdError("E_CPU_COUNT_OUTSIDE", "get_cpu_count() on the host answers only inside a shape function (kernels have their own)");
  return launchCores;
}
