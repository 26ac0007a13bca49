// Binding a call's (args, kwargs) to a parameter list as Python does, with Python's TypeErrors
// ("add() missing 1 required positional argument: 'y'"). Used for Python functions and, through
// bindArgs, by native functions (nl.*, nisa.*, builtins) that take Python-style arguments.

import { PyDict, PyException, PyFloat, PyTuple, type PyValue } from "./values.js";
import { keyOf } from "./operators.js";

export interface ParamSpec {
  readonly name: string;
  readonly kind: "pos" | "vararg" | "kwonly" | "kwarg";
  /** undefined: required (or, with optional, simply absent from the result when not passed). */
  readonly default: PyValue | undefined;
  /** Written "name=?": may be omitted, and is then missing from bindArgs' record. */
  readonly optional?: boolean;
}

function listNames(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0];
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
}

/**
 * The value of each parameter, in the parameters' order (undefined for an omitted optional one):
 * *args as a tuple, **kwargs as a dict.
 */
export function bindParams(fnName: string, params: readonly ParamSpec[], args: readonly PyValue[], kwargs: ReadonlyMap<string, PyValue>): (PyValue | undefined)[] {
  const values: (PyValue | undefined)[] = new Array(params.length).fill(undefined);
  const positional: number[] = [];
  let varargAt = -1, kwargAt = -1;
  for (let i = 0; i < params.length; i++) {
    const k = params[i].kind;
    if (k === "pos") positional.push(i);
    else if (k === "vararg") varargAt = i;
    else if (k === "kwarg") kwargAt = i;
  }
  if (args.length > positional.length && varargAt < 0) {
    const required = positional.filter((i) => params[i].default === undefined && !params[i].optional).length;
    const takes = required === positional.length ? `${positional.length}` : `from ${required} to ${positional.length}`;
    const plural = positional.length === 1 && required === positional.length ? "argument" : "arguments";
    throw new PyException("TypeError", `${fnName}() takes ${takes} positional ${plural} but ${args.length} ${args.length === 1 ? "was" : "were"} given`);
  }
  const n = Math.min(args.length, positional.length);
  for (let i = 0; i < n; i++) values[positional[i]] = args[i];
  if (varargAt >= 0) values[varargAt] = new PyTuple(args.slice(positional.length));
  let extra: PyDict | null = null;
  if (kwargAt >= 0) values[kwargAt] = extra = new PyDict();
  for (const [name, v] of kwargs) {
    const at = params.findIndex((p) => p.name === name && (p.kind === "pos" || p.kind === "kwonly"));
    if (at < 0) {
      if (!extra) throw new PyException("TypeError", `${fnName}() got an unexpected keyword argument '${name}'`);
      extra.entries.set(keyOf(name), [name, v]);
      continue;
    }
    if (values[at] !== undefined) throw new PyException("TypeError", `${fnName}() got multiple values for argument '${name}'`);
    values[at] = v;
  }
  const missingPos: string[] = [], missingKw: string[] = [];
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (values[i] !== undefined || p.kind === "vararg" || p.kind === "kwarg") continue;
    if (p.default !== undefined) values[i] = p.default;
    else if (!p.optional) (p.kind === "pos" ? missingPos : missingKw).push(p.name);
  }
  if (missingPos.length) throw new PyException("TypeError", `${fnName}() missing ${missingPos.length} required positional argument${missingPos.length > 1 ? "s" : ""}: ${listNames(missingPos)}`);
  if (missingKw.length) throw new PyException("TypeError", `${fnName}() missing ${missingKw.length} required keyword-only argument${missingKw.length > 1 ? "s" : ""}: ${listNames(missingKw)}`);
  return values;
}

const specCache = new Map<string, ParamSpec[]>();

function parseDefault(text: string, whole: string): PyValue {
  const t = text.trim();
  if (t === "None") return null;
  if (t === "True") return true;
  if (t === "False") return false;
  if (/^-?\d+$/.test(t)) return Number(t);
  if (/^-?(\d+\.\d*|\.\d+|\d+(\.\d*)?e[-+]?\d+|inf|nan)$/i.test(t)) return new PyFloat(Number(t.replace(/inf/i, "Infinity")));
  const s = /^(['"])(.*)\1$/.exec(t);
  if (s) return s[2];
  if (t === "()") return new PyTuple([]);
  throw new Error(`bindArgs: cannot read the default in '${whole}' (write None, True, False, a number, a quoted string, () or ?)`);
}

/** Reads a parameter list written as strings: "x", "y=None", "*args", "*", "k=1", "**kwargs", "dtype=?". */
export function parseParamSpec(spec: readonly string[]): ParamSpec[] {
  const key = spec.join("\u0000");
  const hit = specCache.get(key);
  if (hit) return hit;
  const out: ParamSpec[] = [];
  let kwOnly = false;
  for (const item of spec) {
    if (item === "*") { kwOnly = true; continue; }
    if (item === "/") continue;
    if (item.startsWith("**")) { out.push({ name: item.slice(2), kind: "kwarg", default: undefined }); continue; }
    if (item.startsWith("*")) { out.push({ name: item.slice(1), kind: "vararg", default: undefined }); kwOnly = true; continue; }
    const eq = item.indexOf("=");
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    const kind = kwOnly ? "kwonly" : "pos";
    if (eq < 0) out.push({ name, kind, default: undefined });
    else if (item.slice(eq + 1).trim() === "?") out.push({ name, kind, default: undefined, optional: true });
    else out.push({ name, kind, default: parseDefault(item.slice(eq + 1), item) });
  }
  specCache.set(key, out);
  return out;
}

/**
 * Binds a native function's arguments by name, e.g.
 * `bindArgs("nl.add", ["x", "y", "dtype=None", "mask=None"], args, kwargs)` gives
 * `{ x, y, dtype, mask }`. "*args" gives a tuple, "**kwargs" a dict; "name=?" parameters that were
 * not passed are absent from the record (test with `"name" in record` or `record.name === undefined`).
 * Errors are Python TypeErrors naming fnName.
 */
export function bindArgs(fnName: string, spec: readonly string[], args: readonly PyValue[], kwargs: ReadonlyMap<string, PyValue> = new Map()): Record<string, PyValue> {
  const params = parseParamSpec(spec);
  const values = bindParams(fnName, params, args, kwargs);
  const out: Record<string, PyValue> = {};
  for (let i = 0; i < params.length; i++) if (values[i] !== undefined) out[params[i].name] = values[i]!;
  return out;
}
