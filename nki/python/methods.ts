// Attribute access: methods of str, list, tuple, dict, set, int and float, and the hooks of host
// objects. A missing attribute is Python's AttributeError.

import {
  HostObject, NativeFunction, PyDict, PyException, PyFloat, PyList, PySlice, PyTuple, type CallContext, type PyValue,
} from "./values.js";
import { PyRange, PySet } from "./types.js";
import { bindArgs } from "./args.js";
import { callValue, compareOp, getItem, iterate, keyOf, pyEquals, toArray, truthy, typeName, dictSet } from "./operators.js";
import { formatValue, pyRepr, pyStr } from "./format.js";
import { PyClass, PyInstance, raiseWith } from "./objects.js";
import { typeOf } from "./builtins.js";

type Method = (self: PyValue, args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext) => PyValue;

function str(v: PyValue, what: string): string {
  if (typeof v !== "string") throw new PyException("TypeError", `${what} must be str, not ${typeName(v)}`);
  return v;
}

function optInt(v: PyValue | undefined, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new PyException("TypeError", `slice indices must be integers or None or have an __index__ method`);
}

function splitWhitespace(s: string, maxsplit: number): string[] {
  const out: string[] = [];
  let rest = s.replace(/^\s+/, "");
  while (rest.length) {
    if (maxsplit >= 0 && out.length === maxsplit) { out.push(rest); break; }
    const m = /\s+/.exec(rest);
    if (!m) { out.push(rest); break; }
    out.push(rest.slice(0, m.index));
    rest = rest.slice(m.index + m[0].length);
  }
  return out;
}

function stripChars(s: string, chars: PyValue | undefined, left: boolean, right: boolean): string {
  const set = chars === undefined || chars === null ? null : str(chars, "strip arg");
  const strip = (c: string) => (set === null ? /\s/.test(c) : set.includes(c));
  let a = 0, b = s.length;
  if (left) while (a < b && strip(s[a])) a++;
  if (right) while (b > a && strip(s[b - 1])) b--;
  return s.slice(a, b);
}

function prefixTest(arg: PyValue, test: (p: string) => boolean): boolean {
  if (arg instanceof PyTuple) return arg.items.some((p) => test(str(p, "tuple item")));
  return test(str(arg, "startswith first arg"));
}

const strMethods: Record<string, Method> = {
  join: (s, [it], _k, ctx) => toArray(it, ctx).map((x) => {
    if (typeof x !== "string") throw new PyException("TypeError", `sequence item: expected str instance, ${typeName(x)} found`);
    return x;
  }).join(s as string),
  split: (s, args, kw) => {
    const { sep, maxsplit } = bindArgs("split", ["sep=None", "maxsplit=-1"], args, kw);
    const text = s as string, max = maxsplit as number;
    if (sep === null) return new PyList(splitWhitespace(text, max));
    const parts = text.split(str(sep, "sep"));
    if (max >= 0 && parts.length > max + 1) return new PyList([...parts.slice(0, max), parts.slice(max).join(sep as string)]);
    return new PyList(parts);
  },
  rsplit: (s, args, kw) => {
    const { sep, maxsplit } = bindArgs("rsplit", ["sep=None", "maxsplit=-1"], args, kw);
    const text = s as string, max = maxsplit as number;
    if (sep === null) return new PyList(splitWhitespace(text, -1));
    const parts = text.split(str(sep, "sep"));
    if (max >= 0 && parts.length > max + 1) return new PyList([parts.slice(0, parts.length - max).join(sep as string), ...parts.slice(parts.length - max)]);
    return new PyList(parts);
  },
  splitlines: (s) => new PyList((s as string).split(/\r\n|\r|\n/).filter((x, i, a) => i < a.length - 1 || x !== "")),
  strip: (s, [c]) => stripChars(s as string, c, true, true),
  lstrip: (s, [c]) => stripChars(s as string, c, true, false),
  rstrip: (s, [c]) => stripChars(s as string, c, false, true),
  startswith: (s, [p]) => prefixTest(p, (x) => (s as string).startsWith(x)),
  endswith: (s, [p]) => prefixTest(p, (x) => (s as string).endsWith(x)),
  upper: (s) => (s as string).toUpperCase(),
  lower: (s) => (s as string).toLowerCase(),
  title: (s) => (s as string).toLowerCase().replace(/(^|[^a-zA-Z])([a-z])/g, (_m, a: string, b: string) => a + b.toUpperCase()),
  capitalize: (s) => { const t = s as string; return t.slice(0, 1).toUpperCase() + t.slice(1).toLowerCase(); },
  replace: (s, [a, b, count]) => {
    const n = optInt(count, -1);
    const parts = (s as string).split(str(a, "replace arg"));
    if (n < 0 || parts.length - 1 <= n) return parts.join(str(b, "replace arg"));
    return parts.slice(0, n + 1).join(b as string) + a + parts.slice(n + 1).join(a as string);
  },
  find: (s, [sub, start, end]) => { const t = (s as string).slice(0, optInt(end, (s as string).length)); const i = t.indexOf(str(sub, "find arg"), optInt(start, 0)); return i; },
  rfind: (s, [sub]) => (s as string).lastIndexOf(str(sub, "rfind arg")),
  index: (s, [sub, start]) => {
    const i = (s as string).indexOf(str(sub, "index arg"), optInt(start, 0));
    if (i < 0) throw new PyException("ValueError", "substring not found");
    return i;
  },
  count: (s, [sub]) => { const t = str(sub, "count arg"); return t === "" ? (s as string).length + 1 : (s as string).split(t).length - 1; },
  isdigit: (s) => /^\d+$/.test(s as string),
  isnumeric: (s) => /^\d+$/.test(s as string),
  isdecimal: (s) => /^\d+$/.test(s as string),
  isalpha: (s) => /^[a-zA-Z]+$/.test(s as string),
  isalnum: (s) => /^[a-zA-Z0-9]+$/.test(s as string),
  isspace: (s) => /^\s+$/.test(s as string),
  isupper: (s) => /[A-Z]/.test(s as string) && !/[a-z]/.test(s as string),
  islower: (s) => /[a-z]/.test(s as string) && !/[A-Z]/.test(s as string),
  isidentifier: (s) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s as string),
  zfill: (s, [w]) => { const t = s as string, n = optInt(w, 0); const sign = /^[+-]/.test(t) ? t[0] : ""; const body = sign ? t.slice(1) : t; return sign + body.padStart(n - sign.length, "0"); },
  center: (s, [w, f]) => { const t = s as string, n = optInt(w, 0), fill = f === undefined ? " " : str(f, "fill"); const total = Math.max(0, n - t.length); const left = Math.floor(total / 2) + (total % 2 && n % 2 ? 1 : 0); return fill.repeat(left) + t + fill.repeat(total - left); },
  ljust: (s, [w, f]) => (s as string).padEnd(optInt(w, 0), f === undefined ? " " : str(f, "fill")),
  rjust: (s, [w, f]) => (s as string).padStart(optInt(w, 0), f === undefined ? " " : str(f, "fill")),
  partition: (s, [sep]) => { const t = s as string, p = str(sep, "sep"); const i = t.indexOf(p); return i < 0 ? new PyTuple([t, "", ""]) : new PyTuple([t.slice(0, i), p, t.slice(i + p.length)]); },
  rpartition: (s, [sep]) => { const t = s as string, p = str(sep, "sep"); const i = t.lastIndexOf(p); return i < 0 ? new PyTuple(["", "", t]) : new PyTuple([t.slice(0, i), p, t.slice(i + p.length)]); },
  format: (s, args, kw, ctx) => strFormat(s as string, args, kw, ctx),
  encode: (s) => s,
  removeprefix: (s, [p]) => ((s as string).startsWith(str(p, "prefix")) ? (s as string).slice((p as string).length) : s),
  removesuffix: (s, [p]) => ((s as string).endsWith(str(p, "suffix")) && (p as string).length ? (s as string).slice(0, -(p as string).length) : s),
};

function seqIndex(items: readonly PyValue[], args: PyValue[], what: string): number {
  const [x, start, end] = args;
  const a = optInt(start, 0), b = optInt(end, items.length);
  for (let i = Math.max(0, a < 0 ? a + items.length : a); i < Math.min(items.length, b < 0 ? b + items.length : b); i++) if (pyEquals(items[i], x)) return i;
  throw new PyException("ValueError", `${what === "list" ? `${pyRepr(x)} is not in list` : "tuple.index(x): x not in tuple"}`);
}

function sortItems(items: PyValue[], kw: Map<string, PyValue>, ctx: CallContext): PyValue[] {
  const { key, reverse } = bindArgs("sort", ["*", "key=None", "reverse=False"], [], kw);
  const keys = key === null ? items : items.map((x) => callValue(key, [x], new Map(), ctx));
  const order = items.map((_, i) => i);
  const less = (a: PyValue, b: PyValue) => truthy(compareOp("<", a, b, ctx), ctx);
  const rev = truthy(reverse, ctx);
  order.sort((i, j) => (rev ? (less(keys[j], keys[i]) ? -1 : less(keys[i], keys[j]) ? 1 : 0) : less(keys[i], keys[j]) ? -1 : less(keys[j], keys[i]) ? 1 : 0));
  return order.map((i) => items[i]);
}
export { sortItems };

const listMethods: Record<string, Method> = {
  append: (l, [x]) => { (l as PyList).items.push(x); return null; },
  extend: (l, [x], _k, ctx) => { (l as PyList).items.push(...toArray(x, ctx)); return null; },
  insert: (l, [i, x]) => { const items = (l as PyList).items; let at = optInt(i, 0); if (at < 0) at = Math.max(0, at + items.length); items.splice(Math.min(at, items.length), 0, x); return null; },
  pop: (l, [i]) => {
    const items = (l as PyList).items;
    if (!items.length) throw new PyException("IndexError", "pop from empty list");
    let at = optInt(i, -1);
    if (at < 0) at += items.length;
    if (at < 0 || at >= items.length) throw new PyException("IndexError", "pop index out of range");
    return items.splice(at, 1)[0];
  },
  remove: (l, [x]) => { const items = (l as PyList).items; const i = items.findIndex((y) => pyEquals(y, x)); if (i < 0) throw new PyException("ValueError", "list.remove(x): x not in list"); items.splice(i, 1); return null; },
  index: (l, args) => seqIndex((l as PyList).items, args, "list"),
  count: (l, [x]) => (l as PyList).items.filter((y) => pyEquals(y, x)).length,
  reverse: (l) => { (l as PyList).items.reverse(); return null; },
  sort: (l, _a, kw, ctx) => { (l as PyList).items = sortItems((l as PyList).items, kw, ctx); return null; },
  copy: (l) => new PyList([...(l as PyList).items]),
  clear: (l) => { (l as PyList).items = []; return null; },
};

const tupleMethods: Record<string, Method> = {
  index: (t, args) => seqIndex((t as PyTuple).items, args, "tuple"),
  count: (t, [x]) => (t as PyTuple).items.filter((y) => pyEquals(y, x)).length,
};

function dictUpdate(d: PyDict, args: PyValue[], kw: Map<string, PyValue>, ctx: CallContext): void {
  const [other] = args;
  if (other instanceof PyDict) for (const [k, v] of other.entries.values()) dictSet(d, k, v);
  else if (other !== undefined) for (const pair of iterate(other, ctx)) {
    const [k, v] = toArray(pair, ctx);
    dictSet(d, k, v);
  }
  for (const [k, v] of kw) dictSet(d, k, v);
}
export { dictUpdate };

const dictMethods: Record<string, Method> = {
  get: (d, [k, dflt]) => (d as PyDict).entries.get(keyOf(k))?.[1] ?? (dflt === undefined ? null : dflt),
  items: (d) => new PyList([...(d as PyDict).entries.values()].map(([k, v]) => new PyTuple([k, v]))),
  keys: (d) => new PyList([...(d as PyDict).entries.values()].map(([k]) => k)),
  values: (d) => new PyList([...(d as PyDict).entries.values()].map(([, v]) => v)),
  update: (d, args, kw, ctx) => { dictUpdate(d as PyDict, args, kw, ctx); return null; },
  setdefault: (d, [k, dflt]) => {
    const e = (d as PyDict).entries.get(keyOf(k));
    if (e) return e[1];
    const v = dflt === undefined ? null : dflt;
    (d as PyDict).entries.set(keyOf(k), [k, v]);
    return v;
  },
  pop: (d, [k, dflt]) => {
    const key = keyOf(k), e = (d as PyDict).entries.get(key);
    if (e) { (d as PyDict).entries.delete(key); return e[1]; }
    if (dflt !== undefined) return dflt;
    throw raiseWith("KeyError", [k], pyRepr(k));
  },
  popitem: (d) => {
    const last = [...(d as PyDict).entries].pop();
    if (!last) throw new PyException("KeyError", "'popitem(): dictionary is empty'");
    (d as PyDict).entries.delete(last[0]);
    return new PyTuple(last[1]);
  },
  copy: (d) => { const out = new PyDict(); for (const [k, e] of (d as PyDict).entries) out.entries.set(k, e); return out; },
  clear: (d) => { (d as PyDict).entries.clear(); return null; },
};

function setOf(v: PyValue, ctx: CallContext): PySet {
  const s = new PySet();
  for (const x of iterate(v, ctx)) s.items.set(keyOf(x), x);
  return s;
}
export { setOf };

const setMethods: Record<string, Method> = {
  add: (s, [x]) => { (s as PySet).items.set(keyOf(x), x); return null; },
  discard: (s, [x]) => { (s as PySet).items.delete(keyOf(x)); return null; },
  remove: (s, [x]) => { if (!(s as PySet).items.delete(keyOf(x))) throw raiseWith("KeyError", [x], pyRepr(x)); return null; },
  update: (s, args, _k, ctx) => { for (const a of args) for (const x of iterate(a, ctx)) (s as PySet).items.set(keyOf(x), x); return null; },
  union: (s, args, _k, ctx) => { const out = setOf(s, ctx); for (const a of args) for (const x of iterate(a, ctx)) out.items.set(keyOf(x), x); return out; },
  intersection: (s, [o], _k, ctx) => { const other = setOf(o, ctx); const out = new PySet(); for (const [k, v] of (s as PySet).items) if (other.items.has(k)) out.items.set(k, v); return out; },
  difference: (s, [o], _k, ctx) => { const other = setOf(o, ctx); const out = new PySet(); for (const [k, v] of (s as PySet).items) if (!other.items.has(k)) out.items.set(k, v); return out; },
  issubset: (s, [o], _k, ctx) => { const other = setOf(o, ctx); return [...(s as PySet).items.keys()].every((k) => other.items.has(k)); },
  issuperset: (s, [o], _k, ctx) => { const other = setOf(o, ctx); return [...other.items.keys()].every((k) => (s as PySet).items.has(k)); },
  copy: (s, _a, _k, ctx) => setOf(s, ctx),
  pop: (s) => { const first = [...(s as PySet).items][0]; if (!first) throw new PyException("KeyError", "'pop from an empty set'"); (s as PySet).items.delete(first[0]); return first[1]; },
  clear: (s) => { (s as PySet).items.clear(); return null; },
};

const intMethods: Record<string, Method> = {
  bit_length: (n) => { const x = Math.abs(n as number); return x === 0 ? 0 : x.toString(2).length; },
  is_integer: () => true,
  __index__: (n) => n,
};
const floatMethods: Record<string, Method> = {
  is_integer: (f) => Number.isInteger((f as PyFloat).value),
  as_integer_ratio: (f) => { const v = (f as PyFloat).value; let d = 1; while (!Number.isInteger(v * d)) d *= 2; return new PyTuple([v * d, d]); },
};

function methodTable(v: PyValue): Record<string, Method> | undefined {
  if (typeof v === "string") return strMethods;
  if (v instanceof PyList) return listMethods;
  if (v instanceof PyTuple) return tupleMethods;
  if (v instanceof PyDict) return dictMethods;
  if (v instanceof PySet) return setMethods;
  if (typeof v === "number" || typeof v === "boolean") return intMethods;
  if (v instanceof PyFloat) return floatMethods;
  return undefined;
}

function dataAttribute(v: PyValue, name: string): PyValue | undefined {
  if (v instanceof PySlice) return name === "start" ? v.start : name === "stop" ? v.stop : name === "step" ? v.step : undefined;
  if (v instanceof PyRange) return name === "start" ? v.start : name === "stop" ? v.stop : name === "step" ? v.step : undefined;
  if (v instanceof PyFloat) return name === "real" ? v : name === "imag" ? new PyFloat(0) : undefined;
  if (typeof v === "number") return name === "real" || name === "numerator" ? v : name === "imag" ? 0 : name === "denominator" ? 1 : undefined;
  return undefined;
}

/** getattr(v, name); undefined when there is no such attribute. */
export function lookupAttribute(v: PyValue, name: string, ctx: CallContext): PyValue | undefined {
  if (v instanceof HostObject && !(v instanceof PySet)) {
    const r = v.getAttr ? v.getAttr(name, ctx) : undefined;
    if (r !== undefined) return r;
    return name === "__class__" ? typeOf(v) : undefined;
  }
  if (name === "__class__") return typeOf(v);
  const data = dataAttribute(v, name);
  if (data !== undefined) return data;
  const table = methodTable(v);
  const m = table && Object.hasOwn(table, name) ? table[name] : undefined;
  if (m) return new NativeFunction(name, (args, kwargs, c) => m(v, args, kwargs, c));
  return undefined;
}

export function getAttribute(v: PyValue, name: string, ctx: CallContext): PyValue {
  const r = lookupAttribute(v, name, ctx);
  if (r !== undefined) return r;
  if (v instanceof PyClass) throw new PyException("AttributeError", `type object '${v.name}' has no attribute '${name}'`);
  if (v instanceof HostObject && v.typeName === "module") throw new PyException("AttributeError", `module '${(v as unknown as { name: string }).name}' has no attribute '${name}'`);
  throw new PyException("AttributeError", `'${typeName(v)}' object has no attribute '${name}'`);
}

export function setAttribute(v: PyValue, name: string, value: PyValue, ctx: CallContext): void {
  if (v instanceof HostObject && v.setAttr) { v.setAttr(name, value, ctx); return; }
  throw new PyException("AttributeError", `'${typeName(v)}' object has no attribute '${name}' and no __dict__ for setting new attributes`);
}

export function delAttribute(v: PyValue, name: string): void {
  if (v instanceof PyInstance && v.attrs.delete(name)) return;
  throw new PyException("AttributeError", `'${typeName(v)}' object has no attribute '${name}'`);
}

// ---------------------------------------------------------------- str.format

/** str.format: {} {0} {name} {0.attr} {0[1]}, conversions and format specs (nested fields included). */
export function strFormat(fmt: string, args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): string {
  let auto = 0;
  const field = (body: string): string => {
    const m = /^([^.[!:]*)((?:\.[^.[!:]+|\[[^\]]*\])*)(?:!([rsa]))?(?::([\s\S]*))?$/.exec(body);
    if (!m) throw new PyException("ValueError", `bad format field '{${body}}'`);
    const [, head, trail, conv, spec] = m;
    let value: PyValue;
    if (head === "") { if (auto >= args.length) throw new PyException("IndexError", `Replacement index ${auto} out of range for positional args tuple`); value = args[auto++]; }
    else if (/^\d+$/.test(head)) { const i = Number(head); if (i >= args.length) throw new PyException("IndexError", `Replacement index ${i} out of range for positional args tuple`); value = args[i]; }
    else { const v = kwargs.get(head); if (v === undefined) throw new PyException("KeyError", `'${head}'`); value = v; }
    for (const part of trail.match(/\.[^.[]+|\[[^\]]*\]/g) ?? []) {
      if (part.startsWith(".")) value = getAttribute(value, part.slice(1), ctx);
      else { const k = part.slice(1, -1); value = getItem(value, /^\d+$/.test(k) ? Number(k) : k, ctx); }
    }
    if (conv === "r" || conv === "a") value = pyRepr(value);
    else if (conv === "s") value = pyStr(value);
    const resolvedSpec = (spec ?? "").replace(/\{([^{}]*)\}/g, (_a, inner: string) => field(inner));
    return formatValue(value, resolvedSpec);
  };
  let out = "";
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c === "{") {
      if (fmt[i + 1] === "{") { out += "{"; i++; continue; }
      let depth = 1, j = i + 1;
      for (; j < fmt.length && depth; j++) { if (fmt[j] === "{") depth++; else if (fmt[j] === "}") depth--; }
      if (depth) throw new PyException("ValueError", "expected '}' before end of string");
      out += field(fmt.slice(i + 1, j - 1));
      i = j - 1;
    } else if (c === "}") {
      if (fmt[i + 1] === "}") { out += "}"; i++; continue; }
      throw new PyException("ValueError", "Single '}' encountered in format string");
    } else out += c;
  }
  return out;
}

