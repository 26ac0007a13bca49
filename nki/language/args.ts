// Binding a native function's Python arguments by the parameter names NKI's docs give, with the
// TypeErrors Python would raise for a missing or unexpected argument.
import { PyException, PyFloat, PyTuple, PyList, HostObject, NativeFunction, type CallContext, type PyValue } from "../python/values.js";
import { requireCompileTimeInt } from "../checks/rules.js";

/** A parameter: its name, and a default (undefined = required). */
export type ParamSpec = readonly [name: string, dflt?: PyValue];

export type Bound = Record<string, PyValue>;

/**
 * Binds args/kwargs to params as Python binds a def's parameters (positional first, then by name).
 * A parameter whose name starts with "*" collects the remaining positionals into a tuple; "**" the
 * remaining keywords (as a PyValue-keyed record under that name without the stars is not needed: they
 * are ignored unless `open` is set).
 */
export function bind(fn: string, params: readonly ParamSpec[], args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext, open = false): Bound {
  const out: Bound = {};
  const positional = params.filter(([n]) => !n.startsWith("*"));
  const star = params.find(([n]) => n.startsWith("*") && !n.startsWith("**"));
  if (args.length > positional.length && !star) {
    throw new PyException("TypeError", `${fn}() takes ${positional.length} positional arguments but ${args.length} were given`, ctx.site);
  }
  positional.forEach(([n], i) => { if (i < args.length) out[n] = args[i]; });
  if (star) out[star[0].slice(1)] = new PyTuple(args.slice(positional.length));
  for (const [k, v] of kwargs) {
    if (!positional.some(([n]) => n === k)) {
      if (open) { out[k] = v; continue; }
      throw new PyException("TypeError", `${fn}() got an unexpected keyword argument '${k}'`, ctx.site);
    }
    if (k in out) throw new PyException("TypeError", `${fn}() got multiple values for argument '${k}'`, ctx.site);
    out[k] = v;
  }
  for (const [n, d] of positional) {
    if (n in out) continue;
    if (d === undefined) throw new PyException("TypeError", `${fn}() missing required argument: '${n}'`, ctx.site);
    out[n] = d;
  }
  return out;
}

/** A native function whose arguments are bound by name. */
export function native(name: string, params: readonly ParamSpec[], body: (a: Bound, ctx: CallContext) => PyValue, open = false): NativeFunction {
  const f = new NativeFunction(name, (args, kwargs, ctx) => body(bind(name, params, args, kwargs, ctx, open), ctx));
  signatures.set(f, { params: params.map(([n]) => n), open });
  return f;
}

const signatures = new WeakMap<NativeFunction, NativeSignature>();
/** The parameter names a native function binds, and whether it accepts (and ignores) other keywords. */
export interface NativeSignature { readonly params: readonly string[]; readonly open: boolean }
/** The signature `native` gave f (docs/nki.md's function table compares it with the NKI API stubs). */
export function nativeSignature(f: NativeFunction): NativeSignature | undefined { return signatures.get(f); }

export function typeName(v: PyValue): string {
  if (v === null) return "NoneType";
  if (typeof v === "number") return "int";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "str";
  if (v instanceof PyFloat) return "float";
  if (v instanceof PyTuple) return "tuple";
  if (v instanceof PyList) return "list";
  if (v instanceof HostObject) return v.typeName;
  return "object";
}

/** A Python int argument. */
export function intArg(v: PyValue, what: string, ctx: CallContext): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  requireCompileTimeInt(v, what, ctx); // a tile where an int is needed is the compiler's rule, not a TypeError
  throw new PyException("TypeError", `${what} must be an int, not ${typeName(v)}`, ctx.site);
}

/** A shape: a tuple or list of ints (an int alone is a 1-D shape). */
export function shapeArg(v: PyValue, what: string, ctx: CallContext): number[] {
  if (typeof v === "number") return [v];
  const items = v instanceof PyTuple || v instanceof PyList ? v.items : null;
  if (!items) throw new PyException("TypeError", `${what} must be a tuple of ints, not ${typeName(v)}`, ctx.site);
  return items.map((x) => {
    if (x instanceof HostObject && x.typeName === "par_dim") return (x as unknown as { size: number }).size;
    return intArg(x, what, ctx);
  });
}

/** The axis nl.par_dim marks in a shape (0 when none does: the first axis is the partition axis). */
export function partitionAxisOf(v: PyValue): number {
  const items = v instanceof PyTuple || v instanceof PyList ? v.items : [];
  const k = items.findIndex((x) => x instanceof HostObject && x.typeName === "par_dim");
  return k < 0 ? 0 : k;
}

/** A list of ints from an int, tuple or list (axis=...). */
export function intsArg(v: PyValue, what: string, ctx: CallContext): number[] {
  if (v instanceof PyTuple || v instanceof PyList) return v.items.map((x) => intArg(x, what, ctx));
  return [intArg(v, what, ctx)];
}
