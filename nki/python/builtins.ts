// Python's built-in functions and types, as a name -> value map every module scope falls back to.

import {
  Ellipsis, HostObject, NativeFunction, PyDict, PyException, PyFloat, PyList, PySlice, PyTuple,
  type CallContext, type PyValue,
} from "./values.js";
import { PyHostType, PyIterator, PyRange, PySet } from "./types.js";
import {
  BaseExceptionClass, ClassMethod, NotImplementedValue, PySuper, exceptionClasses, NativeMethod, objectId, Property, PyClass, PyFunction, PyInstance, StaticMethod,
} from "./objects.js";
import { bindArgs } from "./args.js";
import {
  asIndex, binaryOp, callValue, dictSet, compareOp, intFromBig, isCallable, iterate, keyOf, overflow, pyLen, toArray, truthy, typeName,
} from "./operators.js";
import { dictUpdate, getAttribute, lookupAttribute, setAttribute, setOf, sortItems } from "./methods.js";
import { formatValue, pyRepr, pyStr } from "./format.js";
import { formatPrintf } from "../../host/cores/printf-format.js";
import { output } from "../../host/output.js";

const builtins = new Map<string, PyValue>();

function def(name: string, fn: (args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext) => PyValue): NativeFunction {
  const f = new NativeFunction(name, fn);
  builtins.set(name, f);
  return f;
}

function noKwargs(name: string, kwargs: Map<string, PyValue>): void {
  if (kwargs.size) throw new PyException("TypeError", `${name}() takes no keyword arguments`);
}

// ---------------------------------------------------------------- conversions

function parseIntText(text: string, base: number): number {
  let t = text.trim().replace(/_/g, "");
  let sign = 1;
  if (/^[+-]/.test(t)) { if (t[0] === "-") sign = -1; t = t.slice(1); }
  let b = base;
  const prefixed = /^0([xob])/i.exec(t);
  if (prefixed && (b === 0 || b === { x: 16, o: 8, b: 2 }[prefixed[1].toLowerCase() as "x" | "o" | "b"])) {
    b = { x: 16, o: 8, b: 2 }[prefixed[1].toLowerCase() as "x" | "o" | "b"];
    t = t.slice(2);
  }
  if (b === 0) b = 10;
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, b);
  if (!t.length || [...t.toLowerCase()].some((c) => !digits.includes(c))) throw new PyException("ValueError", `invalid literal for int() with base ${base}: ${pyRepr(text)}`);
  let v = 0n;
  for (const c of t.toLowerCase()) v = v * BigInt(b) + BigInt(digits.indexOf(c));
  return intFromBig(BigInt(sign) * v);
}

export function toInt(v: PyValue, ctx: CallContext): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) {
    if (Number.isNaN(v.value)) throw new PyException("ValueError", "cannot convert float NaN to integer");
    if (!Number.isFinite(v.value)) throw new PyException("OverflowError", "cannot convert float infinity to integer");
    const t = Math.trunc(v.value);
    if (!Number.isSafeInteger(t)) throw overflow();
    return t === 0 ? 0 : t;
  }
  if (typeof v === "string") return parseIntText(v, 10);
  if (v instanceof PyInstance) {
    const m = v.method("__int__") ?? v.method("__index__");
    if (m) return toInt(m.call!([], new Map(), ctx), ctx);
  }
  const hostNumber = hostScalar(v);
  if (hostNumber !== undefined) return toInt(hostNumber, ctx);
  throw new PyException("TypeError", `int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`);
}

export function toFloat(v: PyValue, ctx: CallContext): PyFloat {
  if (v instanceof PyFloat) return v;
  if (typeof v === "number") return new PyFloat(v);
  if (typeof v === "boolean") return new PyFloat(v ? 1 : 0);
  if (typeof v === "string") {
    const t = v.trim().toLowerCase().replace(/_/g, "");
    const special: Record<string, number> = { inf: Infinity, "+inf": Infinity, "-inf": -Infinity, infinity: Infinity, "-infinity": -Infinity, nan: NaN, "+nan": NaN, "-nan": NaN };
    if (t in special) return new PyFloat(special[t]);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) throw new PyException("ValueError", `could not convert string to float: ${pyRepr(v)}`);
    return new PyFloat(Number(t));
  }
  if (v instanceof PyInstance) {
    const m = v.method("__float__");
    if (m) return toFloat(m.call!([], new Map(), ctx), ctx);
  }
  const hostNumber = hostScalar(v);
  if (hostNumber !== undefined) return toFloat(hostNumber, ctx);
  throw new PyException("TypeError", `float() argument must be a string or a real number, not '${typeName(v)}'`);
}

/**
 * A host object that stands for a number (a numpy scalar, say) may define `toPyNumber()` returning
 * an int or PyFloat; int(), float(), round() and range() use it.
 */
function hostScalar(v: PyValue): PyValue | undefined {
  if (!(v instanceof HostObject)) return undefined;
  const f = (v as unknown as { toPyNumber?: () => PyValue }).toPyNumber;
  return typeof f === "function" ? f.call(v) : undefined;
}

function rangeBound(v: PyValue, ctx: CallContext): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  const h = hostScalar(v);
  if (typeof h === "number") return h;
  if (v instanceof PyInstance && v.method("__index__")) return toInt(v, ctx);
  throw new PyException("TypeError", `'${typeName(v)}' object cannot be interpreted as an integer`);
}

// ---------------------------------------------------------------- types

const hostTypes = new WeakMap<object, PyHostType>();

function builtinType(name: string, matches: (v: PyValue) => boolean, construct?: (args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext) => PyValue): PyHostType {
  const t = new PyHostType(name, matches, construct);
  builtins.set(name, t);
  return t;
}

const intType = builtinType("int", (v) => typeof v === "number" || typeof v === "boolean", (args, kwargs, ctx) => {
  const { x, base } = bindArgs("int", ["x=0", "base=?"], args, kwargs);
  if (base !== undefined) return parseIntText(String(x), toInt(base, ctx));
  return toInt(x, ctx);
});
const floatType = builtinType("float", (v) => v instanceof PyFloat, (args, _k, ctx) => (args.length ? toFloat(args[0], ctx) : new PyFloat(0)));
const boolType = builtinType("bool", (v) => typeof v === "boolean", (args, _k, ctx) => (args.length ? truthy(args[0], ctx) : false));
const strType = builtinType("str", (v) => typeof v === "string", (args) => (args.length ? pyStr(args[0]) : ""));
const listType = builtinType("list", (v) => v instanceof PyList, (args, _k, ctx) => new PyList(args.length ? toArray(args[0], ctx) : []));
const tupleType = builtinType("tuple", (v) => v instanceof PyTuple, (args, _k, ctx) => (args[0] instanceof PyTuple ? args[0] : new PyTuple(args.length ? toArray(args[0], ctx) : [])));
const dictType = builtinType("dict", (v) => v instanceof PyDict, (args, kwargs, ctx) => { const d = new PyDict(); dictUpdate(d, args, kwargs, ctx); return d; });
dictType.attrs.set("fromkeys", new NativeFunction("fromkeys", (args, _k, ctx) => {
  const d = new PyDict();
  for (const k of iterate(args[0], ctx)) d.entries.set(keyOf(k), [k, args[1] ?? null]);
  return d;
}));
const setType = builtinType("set", (v) => v instanceof PySet, (args, _k, ctx) => (args.length ? setOf(args[0], ctx) : new PySet()));
builtins.set("frozenset", setType);
const rangeType = builtinType("range", (v) => v instanceof PyRange, (args, kwargs, ctx) => {
  noKwargs("range", kwargs);
  if (args.length < 1 || args.length > 3) throw new PyException("TypeError", `range expected at most 3 arguments, got ${args.length}`);
  const [a, b, c] = args.map((x) => rangeBound(x, ctx));
  if (args.length === 1) return new PyRange(0, a, 1);
  if (c === 0) throw new PyException("ValueError", "range() arg 3 must not be zero");
  return new PyRange(a, b, args.length === 3 ? c : 1);
});
const sliceType = builtinType("slice", (v) => v instanceof PySlice, (args) => {
  if (args.length === 1) return new PySlice(null, args[0], null);
  return new PySlice(args[0] ?? null, args[1] ?? null, args[2] ?? null);
});
const noneType = new PyHostType("NoneType", (v) => v === null);
const objectClass = new PyClass("object", []);
builtins.set("object", objectClass);
const typeType = builtinType("type", (v) => v instanceof PyClass || v instanceof PyHostType, (args) => {
  if (args.length !== 1) throw new PyException("TypeError", "type() takes 1 argument (creating classes with type() is not supported)");
  return typeOf(args[0]);
});
const functionType = new PyHostType("function", (v) => v instanceof PyFunction);

/** type(v): a PyClass for instances, a type object otherwise. */
export function typeOf(v: PyValue): PyValue {
  if (v === null) return noneType;
  switch (typeof v) {
    case "number": return intType;
    case "boolean": return boolType;
    case "string": return strType;
    default: break;
  }
  if (v instanceof PyFloat) return floatType;
  if (v instanceof PyList) return listType;
  if (v instanceof PyTuple) return tupleType;
  if (v instanceof PyDict) return dictType;
  if (v instanceof PySet) return setType;
  if (v instanceof PyRange) return rangeType;
  if (v instanceof PySlice) return sliceType;
  if (v instanceof PyInstance) return v.cls;
  if (v instanceof PyClass || v instanceof PyHostType) return typeType;
  if (v instanceof PyFunction) return functionType;
  const ctor = (v as object).constructor;
  let t = hostTypes.get(ctor);
  if (!t) {
    const name = typeName(v);
    t = new PyHostType(name, (x) => x instanceof HostObject && x.constructor === ctor);
    hostTypes.set(ctor, t);
  }
  return t;
}

export function isInstance(v: PyValue, cls: PyValue): boolean {
  if (cls instanceof PyTuple) return cls.items.some((c) => isInstance(v, c));
  if (cls === objectClass) return true;
  if (cls instanceof PyClass) {
    if (v instanceof PyInstance) return v.cls.isSubclassOf(cls);
    return false;
  }
  if (cls instanceof PyHostType) return cls.matches(v);
  if (cls instanceof HostObject && (cls as unknown as { isPlaceholder?: boolean }).isPlaceholder) return false;
  throw new PyException("TypeError", "isinstance() arg 2 must be a type, a tuple of types, or a union");
}

function isSubclass(a: PyValue, b: PyValue): boolean {
  if (b instanceof PyTuple) return b.items.some((c) => isSubclass(a, c));
  if (b === objectClass) return true;
  if (a instanceof PyClass && b instanceof PyClass) return a.isSubclassOf(b);
  if (a instanceof PyHostType && b instanceof PyHostType) return a === b || (a === boolType && b === intType);
  if (!(a instanceof PyClass || a instanceof PyHostType)) throw new PyException("TypeError", "issubclass() arg 1 must be a class");
  return false;
}

// ---------------------------------------------------------------- functions

def("len", (args, _k, ctx) => pyLen(args[0], ctx));
def("repr", (args) => pyRepr(args[0]));
def("ascii", (args) => pyRepr(args[0]));
def("format", (args) => formatValue(args[0], args.length > 1 ? String(args[1]) : ""));
def("print", (args, kwargs) => {
  const { sep, end } = bindArgs("print", ["*values", "sep=' '", "end=?", "file=None", "flush=False"], args, kwargs);
  const endText = end === undefined || end === null ? "\n" : pyStr(end);
  output().printf(args.map(pyStr).join(sep === null ? " " : pyStr(sep)) + endText);
  return null;
});
def("isinstance", (args) => isInstance(args[0], args[1]));
def("issubclass", (args) => isSubclass(args[0], args[1]));
def("callable", (args) => isCallable(args[0]));
def("id", (args) => (args[0] instanceof Object ? objectId(args[0] as object) : hashOf(args[0])));
def("hash", (args) => hashOf(args[0]));

function hashOf(v: PyValue): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat && Number.isInteger(v.value)) return v.value;
  const key = keyOf(v);
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) { h ^= key.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return h | 0;
}

def("abs", (args, _k, ctx) => {
  const v = args[0];
  if (typeof v === "number") return Math.abs(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) return new PyFloat(Math.abs(v.value));
  if (v instanceof PyInstance && v.method("__abs__")) return v.method("__abs__")!.call!([], new Map(), ctx);
  if (v instanceof HostObject) { const m = lookupAttribute(v, "__abs__", ctx); if (m !== undefined) return callValue(m, [], new Map(), ctx); }
  throw new PyException("TypeError", `bad operand type for abs(): '${typeName(v)}'`);
});

function extreme(name: "min" | "max", args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
  const { key, default: dflt } = bindArgs(name, ["*", "key=None", "default=?"], [], kwargs);
  const items = args.length === 1 ? toArray(args[0], ctx) : args;
  if (items.length === 0) {
    if (dflt !== undefined) return dflt;
    throw new PyException("ValueError", `${name}() iterable argument is empty`);
  }
  const op = name === "min" ? "<" : ">";
  let best = items[0], bestKey = key === null ? best : callValue(key, [best], new Map(), ctx);
  for (let i = 1; i < items.length; i++) {
    const k = key === null ? items[i] : callValue(key, [items[i]], new Map(), ctx);
    if (truthy(compareOp(op, k, bestKey, ctx), ctx)) { best = items[i]; bestKey = k; }
  }
  return best;
}
def("min", (args, kwargs, ctx) => extreme("min", args, kwargs, ctx));
def("max", (args, kwargs, ctx) => extreme("max", args, kwargs, ctx));
def("sum", (args, kwargs, ctx) => {
  const { iterable, start } = bindArgs("sum", ["iterable", "start=0"], args, kwargs);
  let acc = start;
  for (const x of iterate(iterable, ctx)) acc = binaryOp("+", acc, x, ctx);
  return acc;
});
def("any", (args, _k, ctx) => { for (const x of iterate(args[0], ctx)) if (truthy(x, ctx)) return true; return false; });
def("all", (args, _k, ctx) => { for (const x of iterate(args[0], ctx)) if (!truthy(x, ctx)) return false; return true; });
def("sorted", (args, kwargs, ctx) => new PyList(sortItems(toArray(args[0], ctx), kwargs, ctx)));
def("reversed", (args, _k, ctx) => {
  const v = args[0];
  if (v instanceof PyInstance && v.method("__reversed__")) return v.method("__reversed__")!.call!([], new Map(), ctx);
  if (!(v instanceof PyList || v instanceof PyTuple || typeof v === "string" || v instanceof PyRange || (v instanceof HostObject && v.len && v.getItem))) {
    throw new PyException("TypeError", `'${typeName(v)}' object is not reversible`);
  }
  return new PyIterator("reversed", toArray(v, ctx).reverse()[Symbol.iterator]());
});
def("enumerate", (args, kwargs, ctx) => {
  const { iterable, start } = bindArgs("enumerate", ["iterable", "start=0"], args, kwargs);
  const it = iterate(iterable, ctx);
  let i = asIndex(start, "enumerate start");
  return new PyIterator("enumerate", { next: () => { const r = it.next(); return r.done ? { done: true, value: undefined } : { done: false, value: new PyTuple([i++, r.value]) }; } });
});
def("zip", (args, kwargs, ctx) => {
  const { strict } = bindArgs("zip", ["*", "strict=False"], [], kwargs);
  const its = args.map((a) => iterate(a, ctx));
  let done = its.length === 0;
  return new PyIterator("zip", {
    next: () => {
      if (done) return { done: true, value: undefined };
      const row: PyValue[] = [];
      for (let i = 0; i < its.length; i++) {
        const r = its[i].next();
        if (r.done) {
          done = true;
          if (strict === true && (i > 0 || its.slice(1).some((o) => !o.next().done))) throw new PyException("ValueError", `zip() argument ${i + 1} is shorter than argument${i > 1 ? "s 1-" + i : " 1"}`);
          return { done: true, value: undefined };
        }
        row.push(r.value);
      }
      return { done: false, value: new PyTuple(row) };
    },
  });
});
def("map", (args, _k, ctx) => {
  const [f, ...rest] = args;
  const its = rest.map((a) => iterate(a, ctx));
  return new PyIterator("map", {
    next: () => {
      const vals: PyValue[] = [];
      for (const it of its) { const r = it.next(); if (r.done) return { done: true, value: undefined }; vals.push(r.value); }
      return { done: false, value: callValue(f, vals, new Map(), ctx) };
    },
  });
});
def("filter", (args, _k, ctx) => {
  const [f, src] = args;
  const it = iterate(src, ctx);
  return new PyIterator("filter", {
    next: () => {
      for (let r = it.next(); !r.done; r = it.next()) if (truthy(f === null ? r.value : callValue(f, [r.value], new Map(), ctx), ctx)) return r;
      return { done: true, value: undefined };
    },
  });
});
def("iter", (args, _k, ctx) => (args[0] instanceof PyIterator ? args[0] : new PyIterator(`${typeName(args[0])}_iterator`, iterate(args[0], ctx))));
def("next", (args, _k, ctx) => {
  const [it, dflt] = args;
  let r: IteratorResult<PyValue>;
  if (it instanceof PyIterator) r = it.it.next();
  else if (it instanceof PyInstance && it.method("__next__")) {
    try { return it.method("__next__")!.call!([], new Map(), ctx); } catch (e) {
      if (e instanceof PyException && e.pyType === "StopIteration" && dflt !== undefined) return dflt;
      throw e;
    }
  } else throw new PyException("TypeError", `'${typeName(it)}' object is not an iterator`);
  if (r.done) { if (dflt !== undefined) return dflt; throw new PyException("StopIteration", ""); }
  return r.value;
});
def("round", (args, kwargs, ctx) => {
  const { number, ndigits } = bindArgs("round", ["number", "ndigits=None"], args, kwargs);
  const h = hostScalar(number);
  const v = h !== undefined ? h : number;
  if (typeof v === "number" || typeof v === "boolean") {
    const n = typeof v === "boolean" ? (v ? 1 : 0) : v;
    if (ndigits === null || asIndex(ndigits, "round") >= 0) return n;
    const p = 10 ** -asIndex(ndigits, "round");
    return roundHalfEven(n / p) * p;
  }
  if (!(v instanceof PyFloat)) {
    if (v instanceof PyInstance && v.method("__round__")) return v.method("__round__")!.call!(ndigits === null ? [] : [ndigits], new Map(), ctx);
    throw new PyException("TypeError", `type ${typeName(v)} doesn't define __round__ method`);
  }
  const x = v.value;
  if (ndigits === null) {
    if (Number.isNaN(x)) throw new PyException("ValueError", "cannot convert float NaN to integer");
    if (!Number.isFinite(x)) throw new PyException("OverflowError", "cannot convert float infinity to integer");
    const r = roundHalfEven(x);
    if (!Number.isSafeInteger(r)) throw overflow();
    return r === 0 ? 0 : r;
  }
  const d = asIndex(ndigits, "round");
  if (!Number.isFinite(x)) return v;
  if (d >= 0) {
    const text = formatPrintf(`%.${Math.min(d, 330)}f`, [{ kind: "float", value: x }]);
    return new PyFloat(Number(text));
  }
  const p = 10 ** -d;
  return new PyFloat(roundHalfEven(x / p) * p);
});

function roundHalfEven(x: number): number {
  const f = Math.floor(x), diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

def("divmod", (args, _k, ctx) => new PyTuple([binaryOp("//", args[0], args[1], ctx), binaryOp("%", args[0], args[1], ctx)]));
def("pow", (args, kwargs, ctx) => {
  const { base, exp, mod } = bindArgs("pow", ["base", "exp", "mod=None"], args, kwargs);
  if (mod === null) return binaryOp("**", base, exp, ctx);
  const b = BigInt(toInt(base, ctx)), e = toInt(exp, ctx), m = BigInt(toInt(mod, ctx));
  if (m === 0n) throw new PyException("ValueError", "pow() 3rd argument cannot be 0");
  if (e < 0) throw new PyException("ValueError", "negative exponents with a modulus are not supported");
  let r = 1n, x = ((b % m) + m) % m, k = e;
  while (k > 0) { if (k & 1) r = (r * x) % m; x = (x * x) % m; k = Math.floor(k / 2); }
  if (m < 0n && r > 0n) r += m;
  return intFromBig(r);
});
def("getattr", (args, _k, ctx) => {
  const [o, name, dflt] = args;
  if (typeof name !== "string") throw new PyException("TypeError", "attribute name must be string");
  if (dflt === undefined) return getAttribute(o, name, ctx);
  try { return lookupAttribute(o, name, ctx) ?? dflt; } catch (e) {
    if (e instanceof PyException && e.pyType === "AttributeError") return dflt;
    throw e;
  }
});
def("hasattr", (args, _k, ctx) => {
  try { return lookupAttribute(args[0], String(args[1]), ctx) !== undefined; } catch (e) {
    if (e instanceof PyException && e.pyType === "AttributeError") return false;
    throw e;
  }
});
def("setattr", (args, _k, ctx) => { setAttribute(args[0], String(args[1]), args[2], ctx); return null; });
def("chr", (args) => String.fromCodePoint(asIndex(args[0], "chr")));
def("ord", (args) => {
  const s = args[0];
  if (typeof s !== "string" || [...s].length !== 1) throw new PyException("TypeError", `ord() expected a character, but string of length ${typeof s === "string" ? s.length : 0} found`);
  return s.codePointAt(0)!;
});
def("bin", (args) => { const n = asIndex(args[0], "bin"); return (n < 0 ? "-0b" : "0b") + Math.abs(n).toString(2); });
def("hex", (args) => { const n = asIndex(args[0], "hex"); return (n < 0 ? "-0x" : "0x") + Math.abs(n).toString(16); });
def("oct", (args) => { const n = asIndex(args[0], "oct"); return (n < 0 ? "-0o" : "0o") + Math.abs(n).toString(8); });
def("open", () => { throw new PyException("OSError", "open() is not available to kernel files in gpsimd"); });
def("input", () => { throw new PyException("OSError", "input() is not available to kernel files in gpsimd"); });
def("vars", (args) => {
  const d = new PyDict();
  const v = args[0];
  if (v instanceof PyInstance) for (const [k, x] of v.attrs) dictSet(d, k, x);
  return d;
});
builtins.set("staticmethod", new PyHostType("staticmethod", (v) => v instanceof StaticMethod, (args) => new StaticMethod(args[0])));
builtins.set("classmethod", new PyHostType("classmethod", (v) => v instanceof ClassMethod, (args) => new ClassMethod(args[0])));
builtins.set("property", new PyHostType("property", (v) => v instanceof Property, (args) => new Property(args[0])));
def("super", (args) => {
  if (args.length !== 2 || !(args[0] instanceof PyClass)) throw new PyException("RuntimeError", "super(): write super() inside a method, or super(Class, self)");
  return new PySuper(args[0], args[1]);
});
def("dir", (args) => {
  const v = args[0];
  const names = new Set<string>();
  if (v instanceof PyInstance) { for (const k of v.attrs.keys()) names.add(k); for (const c of v.cls.mro) for (const k of c.ns.keys()) names.add(k); }
  else if (v instanceof PyClass) for (const c of v.mro) for (const k of c.ns.keys()) names.add(k);
  else if (v instanceof HostObject && "attrs" in v && (v as unknown as { attrs: unknown }).attrs instanceof Map) for (const k of (v as unknown as { attrs: Map<string, PyValue> }).attrs.keys()) names.add(k);
  return new PyList([...names].sort());
});
builtins.set("NotImplemented", NotImplementedValue);
builtins.set("Ellipsis", Ellipsis);
builtins.set("__debug__", true);
for (const [name, cls] of exceptionClasses) builtins.set(name, cls);
builtins.set("EnvironmentError", exceptionClasses.get("OSError")!);
builtins.set("IOError", exceptionClasses.get("OSError")!);

// BaseException's str() and repr(): the message, or the args tuple.
BaseExceptionClass.ns.set("__str__", new NativeMethod("__str__", ([self]) => {
  const args = (self as PyInstance).attrs.get("args");
  const items = args instanceof PyTuple ? args.items : [];
  if (items.length === 0) return "";
  if (items.length === 1) return (self as PyInstance).cls.isSubclassOf(exceptionClasses.get("KeyError")!) ? pyRepr(items[0]) : pyStr(items[0]);
  return pyRepr(new PyTuple(items));
}));
BaseExceptionClass.ns.set("__repr__", new NativeMethod("__repr__", ([self]) => {
  const args = (self as PyInstance).attrs.get("args");
  const items = args instanceof PyTuple ? args.items : [];
  return `${(self as PyInstance).cls.name}(${items.map(pyRepr).join(", ")})`;
}));

/** The built-in namespace (read-only by convention: every program shares it). */
export function builtinNamespace(): Map<string, PyValue> { return builtins; }

