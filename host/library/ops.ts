// ops.<lib>.<op>(...): the operators of every loaded library, resolved when
// used (as torch.ops). ops.<lib>.<op>.async(...) runs without blocking.
import { RegistryError } from "../checks/errors.js";
import { loadedLibrary, loadedNamespaces } from "./loader.js";
import type { Tensor } from "../device/tensor.js";
import type { Library } from "./library.js";

/** An operator: call it for the output; .async(...) returns a promise and leaves the event loop free. */
export interface OpFunction<A extends unknown[] = unknown[]> {
  (...args: A): Tensor;
  async(...args: A): Promise<Tensor>;
}

/** The operators of one library. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpNamespace = Record<string, OpFunction<any[]>>;

/** All loaded libraries. Augment it for typed operators (custom_op.load writes lib<name>.d.ts that does). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Ops extends Record<string, OpNamespace> {}

function operator(lib: string, op: string): OpFunction {
  const call = (...args: unknown[]) => library(lib).call(op, args);
  return Object.assign(call, { async: (...args: unknown[]) => library(lib).callAsync(op, args) });
}

/**
 * ops.<lib>.<op> as functions, made once per name: `ops.relu_tcm.relu_forward(x)` in a loop made a function and
 * its .async each time. A function finds its library by name when called, so it calls whichever library is
 * loaded under that name then (as it did when it was made per access).
 */
const operatorFunctions = new Map<string, Map<string, OpFunction>>();

function operatorFunction(lib: string, op: string): OpFunction {
  let byOp = operatorFunctions.get(lib);
  if (!byOp) operatorFunctions.set(lib, byOp = new Map());
  let fn = byOp.get(op);
  if (!fn) byOp.set(op, fn = operator(lib, op));
  return fn;
}

/** ops.<lib> of each loaded library, made once per library (a Proxy per `ops.<lib>` access showed in tiny calls). */
const namespaces = new WeakMap<Library, OpNamespace>();

/**
 * ops.<lib> for a loaded library: its operators are the object's own properties, so `ops.<lib>.<op>` is a plain
 * property load; any other name reaches its prototype, a Proxy that throws RegistryError E_UNKNOWN_OP naming the
 * operators there are (a library's operators never change once it is loaded).
 */
function libraryNamespace(lib: string, namespace: Library): OpNamespace {
  let ns = namespaces.get(namespace);
  if (ns) return ns;
  const unknown = new Proxy({}, {
    get(_t, op) {
      if (typeof op !== "string") return undefined;
      throw new RegistryError("E_UNKNOWN_OP", `ops.${lib}.${op}: library ${lib} has no operator ${op}; it has ${[...namespace.ops.keys()].join(", ")}`);
    },
    has: () => false,
  });
  ns = Object.create(unknown) as OpNamespace;
  for (const op of namespace.ops.keys()) Object.defineProperty(ns, op, { enumerable: true, configurable: true, value: operatorFunction(lib, op) });
  namespaces.set(namespace, ns);
  return ns;
}

/** Operators other front ends register (nki.register), by library then operator: ops.<lib>.<op> finds them too. */
const foreign = new Map<string, Map<string, OpFunction>>();

/** Makes fn ops.<lib>.<op>; a library loaded by custom_op.load under the same name, or the same operator twice, is a RegistryError. */
export function registerForeignOp(lib: string, op: string, fn: OpFunction): void {
  if (loadedLibrary(lib)) throw new RegistryError("E_DUPLICATE_LIBRARY", `ops.${lib}: a library ${lib} is already loaded by custom_op.load; register ${op} under another library name`);
  const namespace = foreign.get(lib) ?? new Map<string, OpFunction>();
  if (namespace.has(op)) throw new RegistryError("E_DUPLICATE_OP", `ops.${lib}.${op} is already registered; unregister() it first`);
  namespace.set(op, fn);
  foreign.set(lib, namespace);
}

/** Removes ops.<lib>.<op> registered by registerForeignOp. */
export function unregisterForeignOp(lib: string, op: string): void {
  const namespace = foreign.get(lib);
  namespace?.delete(op);
  if (namespace?.size === 0) foreign.delete(lib);
}

/** ops.<lib> for operators registered by registerForeignOp. */
function foreignNamespace(lib: string, namespace: Map<string, OpFunction>): OpNamespace {
  const find = (op: string) => namespace.get(op) ?? (() => { throw new RegistryError("E_UNKNOWN_OP", `ops.${lib}.${op}: library ${lib} has no operator ${op}; it has ${[...namespace.keys()].join(", ")}`); })();
  return new Proxy({} as OpNamespace, {
    get: (_t, op) => (typeof op === "string" ? find(op) : undefined),
    has: (_t, op) => typeof op === "string" && namespace.has(op),
    ownKeys: () => [...namespace.keys()],
    getOwnPropertyDescriptor: (_t, op) => (typeof op === "string" && namespace.has(op) ? { enumerable: true, configurable: true, value: namespace.get(op) } : undefined),
  });
}

function library(lib: string) {
  const found = loadedLibrary(lib);
  if (!found) throw new RegistryError("E_UNKNOWN_LIBRARY", `ops.${lib}: no library ${lib} is loaded; loaded: ${loadedNamespaces().join(", ") || "(none)"}. Load it with custom_op.load(...) or custom_op.load_library(path)`);
  return found;
}

/** ops.<lib>.<op>: operators of the loaded libraries. */
export const ops: Ops = new Proxy({} as Ops, {
  get(_target, lib) {
    if (typeof lib !== "string") return undefined;
    const registered = foreign.get(lib);
    if (registered) return foreignNamespace(lib, registered);
    return libraryNamespace(lib, library(lib));
  },
  has: (_t, lib) => typeof lib === "string" && (loadedLibrary(lib) !== undefined || foreign.has(lib)),
  ownKeys: () => [...loadedNamespaces(), ...foreign.keys()],
  getOwnPropertyDescriptor: (_t, lib) => (typeof lib === "string" && (loadedLibrary(lib) || foreign.has(lib)) ? { enumerable: true, configurable: true, value: undefined } : undefined),
});
