// The operator registry: NEURON_LIBRARY(lib, m => m.def(op, shape_fn, kernel))
// as in the C++ shape file, and ops.<lib>.<op>(...) to call what it defined.
import { RegistryError } from "../checks/errors.js";
import type { Tensor } from "../device/tensor.js";

/** A shape function: same parameters as the kernel; returns a tensor of the output's shape and dtype. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ShapeFunction = (...args: any[]) => Tensor;

/** One m.def(...) call. */
export interface OpDefinition { op: string; shape: ShapeFunction; kernel: string; }

/** At most this many functions in one library, as on the device. */
export const MAX_FUNCTIONS = 10;
/** Library names the device reserves. */
export const RESERVED_LIBRARY_NAMES: readonly string[] = ["builtin"];

/** The `m` of NEURON_LIBRARY(lib, m): collects definitions. */
export class LibraryDefinitions {
  readonly defs: OpDefinition[] = [];
  constructor(readonly lib: string, private readonly kernels: readonly string[], private readonly where: string) {}

  /** Registers operator `op` with its shape function and the kernel that computes it. */
  def(op: string, shape: ShapeFunction, kernel: string): this {
    const name = `${this.lib}::${op}`;
    if (typeof op !== "string" || !/^[A-Za-z_]\w*$/.test(op)) throw new RegistryError("E_OP_NAME", `${this.where}: m.def: operator name ${JSON.stringify(op)} is not an identifier`);
    if (typeof shape !== "function") throw new RegistryError("E_SHAPE_FN", `${this.where}: m.def("${op}", ...): the shape function must be a function, got ${typeof shape}; example: m.def("${op}", (t) => zeros(t.sizes(), kFloat), "${typeof kernel === "string" ? kernel : op}")`);
    if (typeof kernel !== "string") throw new RegistryError("E_KERNEL_NAME", `${this.where}: m.def("${op}", shape, kernel): the kernel name must be a string (the exported kernel function's name)`);
    if (this.defs.some((d) => d.op === op)) throw new RegistryError("E_DUPLICATE_OP", `${this.where}: ${name} is defined twice`);
    if (!this.kernels.includes(kernel)) {
      throw new RegistryError("E_UNKNOWN_KERNEL", `${this.where}: ${name}: no exported kernel function named "${kernel}" in the compute sources; exported kernels: ${this.kernels.join(", ") || "(none)"}`);
    }
    if (this.defs.length === MAX_FUNCTIONS) throw new RegistryError("E_TOO_MANY_FUNCTIONS", `${this.where}: library ${this.lib} defines more than ${MAX_FUNCTIONS} functions (${name} would be number ${MAX_FUNCTIONS + 1}); the device allows ${MAX_FUNCTIONS} per library`);
    this.defs.push({ op, shape, kernel });
    return this;
  }
}

/** What a shape-source evaluation collects. */
interface Collector { where: string; kernels: readonly string[]; found: LibraryDefinitions[]; }
let collector: Collector | null = null;

/** Evaluates fn (shape sources) and returns the libraries it declared with NEURON_LIBRARY. */
export function collectDefinitions(where: string, kernels: readonly string[], fn: () => void): LibraryDefinitions[] {
  const previous = collector;
  collector = { where, kernels, found: [] };
  try {
    fn();
    return collector.found;
  } finally {
    collector = previous;
  }
}

/** Declares a custom-operator library, as NEURON_LIBRARY(lib_name, m) in C++. Call it in a shape source passed to custom_op.load. */
export function NEURON_LIBRARY(lib: string, body: (m: LibraryDefinitions) => void): void {
  if (!collector) {
    throw new RegistryError("E_OUTSIDE_LOAD", `NEURON_LIBRARY(${JSON.stringify(lib)}) ran outside custom_op.load: put it in a file passed as shape_srcs, e.g. custom_op.load({ name, compute_srcs: ["kernel.ts"], shape_srcs: ["shape.ts"] })`);
  }
  if (typeof lib !== "string" || !/^[A-Za-z_]\w*$/.test(lib)) throw new RegistryError("E_LIB_NAME", `${collector.where}: NEURON_LIBRARY: library name ${JSON.stringify(lib)} is not an identifier`);
  if (RESERVED_LIBRARY_NAMES.includes(lib)) throw new RegistryError("E_LIB_NAME", `${collector.where}: NEURON_LIBRARY: the library name "${lib}" is reserved by the device; choose another`);
  const m = new LibraryDefinitions(lib, collector.kernels, collector.where);
  body(m);
  collector.found.push(m);
}
