// Python's operators over the value model: arithmetic with int/float/bool rules (floor division
// and modulo toward negative infinity, `/` always float, ints exact up to 2^53 and an
// OverflowError beyond), comparisons, equality and hashing keys, truth, and the fall-back to
// host objects' hooks with Python's TypeErrors when neither side handles an operation.

import {
  Ellipsis, HostObject, NotImplemented, PyDict, PyException, PyFloat, PyList, PySlice, PyTuple,
  type BinaryOperator, type CallContext, type CompareOperator, type PyValue, type UnaryOperator,
} from "./values.js";
import { PyHostType, PyIterator, PyRange, PySet } from "./types.js";
import { objectId, PyClass, PyInstance, raiseWith } from "./objects.js";
import { percentFormat, pyRepr } from "./format.js";

/** type(v).__name__ */
export function typeName(v: PyValue): string {
  if (v === null) return "NoneType";
  switch (typeof v) {
    case "number": return "int";
    case "boolean": return "bool";
    case "string": return "str";
    default: break;
  }
  if (v instanceof PyFloat) return "float";
  if (v instanceof PyTuple) return "tuple";
  if (v instanceof PyList) return "list";
  if (v instanceof PyDict) return "dict";
  if (v instanceof PySlice) return "slice";
  if (v === Ellipsis) return "ellipsis";
  if (v instanceof HostObject) return v.typeName;
  return "object";
}

export function overflow(): PyException {
  return new PyException("OverflowError", "integer result beyond 2**53: gpsimd's Python ints are exact only up to 2**53 - 1");
}

function checkedInt(r: number): number {
  if (!Number.isSafeInteger(r)) {
    if (Number.isNaN(r)) throw new PyException("ValueError", "invalid integer operation");
    throw overflow();
  }
  return r === 0 ? 0 : r; // no -0 among ints
}

/** A Python int from a bigint, or an OverflowError. */
export function intFromBig(b: bigint): number {
  if (b > BigInt(Number.MAX_SAFE_INTEGER) || b < -BigInt(Number.MAX_SAFE_INTEGER)) throw overflow();
  return Number(b);
}

// ---------------------------------------------------------------- truth and equality

export function truthy(v: PyValue, ctx: CallContext): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case "boolean": return v;
    case "number": return v !== 0;
    case "string": return v.length > 0;
    default: break;
  }
  if (v instanceof PyFloat) return v.value !== 0;
  if (v instanceof PyTuple || v instanceof PyList) return v.items.length > 0;
  if (v instanceof PyDict) return v.entries.size > 0;
  if (v instanceof HostObject) {
    if (v.truthy) return v.truthy(ctx);
    if (v.len) return v.len(ctx) > 0;
  }
  return true;
}

/** A dict/set key: equal Python values (1, 1.0, True) share a key. */
export function keyOf(v: PyValue): string {
  if (v === null) return "N";
  switch (typeof v) {
    case "number": return `n${v}`;
    case "boolean": return v ? "n1" : "n0";
    case "string": return `s${v}`;
    default: break;
  }
  if (v instanceof PyFloat) return Number.isInteger(v.value) ? `n${v.value === 0 ? 0 : v.value}` : `f${v.value}`;
  if (v instanceof PyTuple) return `t(${v.items.map(keyOf).join(",")})`;
  if (v instanceof PyList || v instanceof PyDict || v instanceof PySet) throw new PyException("TypeError", `unhashable type: '${typeName(v)}'`);
  if (v === Ellipsis) return "E";
  if (v instanceof HostObject) { const h = v.hashKey?.(); return h !== undefined ? `h${h}` : `o${objectId(v)}`; }
  if (v instanceof PySlice) throw new PyException("TypeError", "unhashable type: 'slice'");
  return `o${objectId(v as object)}`;
}

/** Python ==, without host compare hooks (dict keys, `in` on lists, list.index). */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (a === b) return !(a instanceof PyFloat && Number.isNaN(a.value));
  const na = toNum(a), nb = toNum(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  if (a instanceof PyTuple && b instanceof PyTuple) return seqEquals(a.items, b.items);
  if (a instanceof PyList && b instanceof PyList) return seqEquals(a.items, b.items);
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.entries.size !== b.entries.size) return false;
    for (const [k, [, v]] of a.entries) { const o = b.entries.get(k); if (!o || !pyEquals(v, o[1])) return false; }
    return true;
  }
  if (a instanceof PySet && b instanceof PySet) return a.items.size === b.items.size && [...a.items.keys()].every((k) => b.items.has(k));
  if (a instanceof PySlice && b instanceof PySlice) return pyEquals(a.start, b.start) && pyEquals(a.stop, b.stop) && pyEquals(a.step, b.step);
  if (a instanceof HostObject && b instanceof HostObject) {
    const ha = a.hashKey?.(), hb = b.hashKey?.();
    return ha !== undefined && ha === hb;
  }
  return false;
}

function seqEquals(a: readonly PyValue[], b: readonly PyValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!pyEquals(a[i], b[i])) return false;
  return true;
}

function toNum(v: PyValue): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) return v.value;
  return undefined;
}

/** d[k] = v; an equal key already present keeps its original object ({1: a} then d[1.0] = b gives {1: b}). */
export function dictSet(d: PyDict, k: PyValue, v: PyValue): void {
  const key = keyOf(k);
  const e = d.entries.get(key);
  d.entries.set(key, [e ? e[0] : k, v]);
}

// ---------------------------------------------------------------- arithmetic

function unsupported(op: string, a: PyValue, b: PyValue): PyException {
  return new PyException("TypeError", `unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function intPow(a: number, b: number): number {
  if (b < 0) throw new Error("negative exponent");
  return intFromBig(bigPow(BigInt(a), b));
}

function bigPow(a: bigint, b: number): bigint {
  if (a === 0n || a === 1n) return b === 0 ? 1n : a;
  if (a === -1n) return b % 2 === 0 ? 1n : -1n;
  if (b > 64) throw overflow();
  return a ** BigInt(b);
}

/** Arithmetic on two numbers (int, float or bool): undefined when either is not one. */
function numeric(op: BinaryOperator, a: PyValue, b: PyValue): PyValue | undefined {
  const aFloat = a instanceof PyFloat, bFloat = b instanceof PyFloat;
  const x = typeof a === "number" ? a : typeof a === "boolean" ? (a ? 1 : 0) : aFloat ? (a as PyFloat).value : undefined;
  if (x === undefined) return undefined;
  const y = typeof b === "number" ? b : typeof b === "boolean" ? (b ? 1 : 0) : bFloat ? (b as PyFloat).value : undefined;
  if (y === undefined) return undefined;
  if (!aFloat && !bFloat) {
    switch (op) {
      case "+": return checkedInt(x + y);
      case "-": return checkedInt(x - y);
      case "*": return checkedInt(x * y);
      case "/": if (y === 0) throw new PyException("ZeroDivisionError", "division by zero"); return new PyFloat(x / y);
      case "//": if (y === 0) throw new PyException("ZeroDivisionError", "integer division or modulo by zero"); return checkedInt(Math.floor(x / y));
      case "%": {
        if (y === 0) throw new PyException("ZeroDivisionError", "integer modulo by zero");
        const r = x % y;
        return r !== 0 && (r < 0) !== (y < 0) ? r + y : r === 0 ? 0 : r;
      }
      case "**": return y >= 0 ? intPow(x, y) : (x === 0 ? zeroNegPow() : new PyFloat(Math.pow(x, y)));
      case "&": case "|": case "^": case "<<": case ">>": {
        const bothBool = typeof a === "boolean" && typeof b === "boolean";
        const r = bitwise(op, x, y);
        return bothBool && (op === "&" || op === "|" || op === "^") ? r !== 0 : r;
      }
      default: return undefined;
    }
  }
  switch (op) {
    case "+": return new PyFloat(x + y);
    case "-": return new PyFloat(x - y);
    case "*": return new PyFloat(x * y);
    case "/": if (y === 0) throw new PyException("ZeroDivisionError", "float division by zero"); return new PyFloat(x / y);
    case "//": if (y === 0) throw new PyException("ZeroDivisionError", "float floor division by zero"); return new PyFloat(Math.floor(x / y));
    case "%": {
      if (y === 0) throw new PyException("ZeroDivisionError", "float modulo by zero");
      let r = x % y;
      if (r !== 0 && (r < 0) !== (y < 0)) r += y;
      else if (r === 0) r = y < 0 ? -0 : 0;
      return new PyFloat(r);
    }
    case "**": {
      if (x === 0 && y < 0) return zeroNegPow();
      if (x < 0 && !Number.isInteger(y)) throw new PyException("ValueError", "a negative number to a fractional power is complex, which gpsimd's Python does not support");
      const r = Math.pow(x, y);
      if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) throw new PyException("OverflowError", "(34, 'Numerical result out of range')");
      return new PyFloat(r);
    }
    default: return undefined;
  }
}

function zeroNegPow(): never { throw new PyException("ZeroDivisionError", "0.0 cannot be raised to a negative power"); }

function bitwise(op: BinaryOperator, x: number, y: number): number {
  const a = BigInt(x), b = BigInt(y);
  switch (op) {
    case "&": return intFromBig(a & b);
    case "|": return intFromBig(a | b);
    case "^": return intFromBig(a ^ b);
    case "<<": if (y < 0) throw new PyException("ValueError", "negative shift count"); if (y > 64 && x !== 0) throw overflow(); return intFromBig(a << b);
    default: if (y < 0) throw new PyException("ValueError", "negative shift count"); return intFromBig(a >> b);
  }
}

function repeat<T>(items: readonly T[], n: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(...items);
  return out;
}

function asRepeatCount(v: PyValue): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return undefined;
}

/** Built-in sequence and set operators; undefined when they do not apply. */
function sequenceOp(op: BinaryOperator, a: PyValue, b: PyValue): PyValue | undefined {
  if (op === "+") {
    if (typeof a === "string" && typeof b === "string") return a + b;
    if (a instanceof PyList && b instanceof PyList) return new PyList([...a.items, ...b.items]);
    if (a instanceof PyTuple && b instanceof PyTuple) return new PyTuple([...a.items, ...b.items]);
    return undefined;
  }
  if (op === "*") {
    const [seq, n] = asRepeatCount(b) !== undefined ? [a, asRepeatCount(b)!] : [b, asRepeatCount(a)];
    if (n === undefined) return undefined;
    if (typeof seq === "string") return seq.repeat(Math.max(0, n));
    if (seq instanceof PyList) return new PyList(repeat(seq.items, n));
    if (seq instanceof PyTuple) return new PyTuple(repeat(seq.items, n));
    return undefined;
  }
  if (op === "%" && typeof a === "string") return percentFormat(a, b);
  if (a instanceof PySet && b instanceof PySet) {
    const out = new PySet();
    switch (op) {
      case "|": for (const [k, v] of a.items) out.items.set(k, v); for (const [k, v] of b.items) out.items.set(k, v); return out;
      case "&": for (const [k, v] of a.items) if (b.items.has(k)) out.items.set(k, v); return out;
      case "-": for (const [k, v] of a.items) if (!b.items.has(k)) out.items.set(k, v); return out;
      case "^": for (const [k, v] of a.items) if (!b.items.has(k)) out.items.set(k, v); for (const [k, v] of b.items) if (!a.items.has(k)) out.items.set(k, v); return out;
      default: return undefined;
    }
  }
  if (op === "|" && a instanceof PyDict && b instanceof PyDict) {
    const out = new PyDict();
    for (const [k, e] of a.entries) out.entries.set(k, e);
    for (const [k, e] of b.entries) out.entries.set(k, e);
    return out;
  }
  return undefined;
}

export function binaryOp(op: BinaryOperator, a: PyValue, b: PyValue, ctx: CallContext): PyValue {
  const n = numeric(op, a, b);
  if (n !== undefined) return n;
  if (a instanceof HostObject && a.binary) {
    const r = a.binary(op, b, false, ctx);
    if (r !== NotImplemented) return r as PyValue;
  }
  if (b instanceof HostObject && b.binary) {
    const r = b.binary(op, a, true, ctx);
    if (r !== NotImplemented) return r as PyValue;
  }
  const s = sequenceOp(op, a, b);
  if (s !== undefined) return s;
  throw unsupported(op, a, b);
}

/** a op= b: the host's inplace hook, list += in place, else binary. */
export function inplaceOp(op: BinaryOperator, a: PyValue, b: PyValue, ctx: CallContext): PyValue {
  if (a instanceof HostObject && a.inplace) {
    const r = a.inplace(op, b, ctx);
    if (r !== NotImplemented) return r as PyValue;
  }
  if (a instanceof PyList) {
    if (op === "+") { a.items.push(...iterate(b, ctx)); return a; }
    if (op === "*") { const n = asRepeatCount(b); if (n !== undefined) { a.items = repeat(a.items, n); return a; } }
  }
  return binaryOp(op, a, b, ctx);
}

export function unaryOp(op: UnaryOperator | "not", v: PyValue, ctx: CallContext): PyValue {
  if (op === "not") return !truthy(v, ctx);
  if (typeof v === "number" || typeof v === "boolean") {
    const x = typeof v === "boolean" ? (v ? 1 : 0) : v;
    if (op === "-") return x === 0 ? 0 : -x;
    if (op === "+") return x;
    return intFromBig(~BigInt(x));
  }
  if (v instanceof PyFloat) {
    if (op === "-") return new PyFloat(-v.value);
    if (op === "+") return v;
  }
  if (v instanceof HostObject && v.unary) return v.unary(op, ctx);
  throw new PyException("TypeError", `bad operand type for unary ${op}: '${typeName(v)}'`);
}

// ---------------------------------------------------------------- comparison

function order(op: CompareOperator, c: number): boolean {
  switch (op) {
    case "<": return c < 0;
    case "<=": return c <= 0;
    case ">": return c > 0;
    case ">=": return c >= 0;
    case "==": return c === 0;
    default: return c !== 0;
  }
}

/** -1/0/1, NaN when unordered (a float NaN), undefined when the types do not order. */
function builtinOrder(a: PyValue, b: PyValue, op: CompareOperator, ctx: CallContext): number | undefined {
  const x = toNum(a), y = toNum(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  const bothTuples = a instanceof PyTuple && b instanceof PyTuple, bothLists = a instanceof PyList && b instanceof PyList;
  if (bothTuples || bothLists) {
    const p = (a as PyTuple).items, q = (b as PyTuple).items;
    for (let i = 0; i < Math.min(p.length, q.length); i++) {
      if (!pyEquals(p[i], q[i])) {
        if (op === "==" ) return 1;
        if (op === "!=") return 1;
        return truthy(compareOp("<", p[i], q[i], ctx), ctx) ? -1 : 1;
      }
    }
    return p.length - q.length;
  }
  if (a instanceof PySet && b instanceof PySet) {
    const aInB = [...a.items.keys()].every((k) => b.items.has(k)), bInA = [...b.items.keys()].every((k) => a.items.has(k));
    if (aInB && bInA) return 0;
    if (op === "==" || op === "!=") return 1;
    if (aInB) return -1;
    if (bInA) return 1;
    return NaN;
  }
  return undefined;
}

export function compareOp(op: CompareOperator, a: PyValue, b: PyValue, ctx: CallContext): PyValue {
  if (typeof a === "number" && typeof b === "number") return order(op, a - b);
  if (a instanceof HostObject && a.compare) {
    const r = a.compare(op, b, false, ctx);
    if (r !== NotImplemented) return r as PyValue;
  }
  if (b instanceof HostObject && b.compare) {
    const r = b.compare(op, a, true, ctx);
    if (r !== NotImplemented) return r as PyValue;
  }
  const c = builtinOrder(a, b, op, ctx);
  if (c !== undefined) return Number.isNaN(c) ? op === "!=" : order(op, c);
  if (op === "==") return pyEquals(a, b);
  if (op === "!=") return !pyEquals(a, b);
  throw new PyException("TypeError", `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}


export function isOp(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  // ints and floats are values here: small ints are identical in CPython, and `x is None` is what kernels write
  if (typeof a === "number" && typeof b === "number") return a === b;
  return false;
}

export function contains(container: PyValue, item: PyValue, ctx: CallContext): boolean {
  if (typeof container === "string") {
    if (typeof item !== "string") throw new PyException("TypeError", `'in <string>' requires string as left operand, not ${typeName(item)}`);
    return container.includes(item);
  }
  if (container instanceof PyList || container instanceof PyTuple) {
    for (const x of container.items) if (x === item || truthy(compareOp("==", x, item, ctx), ctx)) return true;
    return false;
  }
  if (container instanceof PyDict) return container.entries.has(keyOf(item));
  if (container instanceof PySet) return container.items.has(keyOf(item));
  if (container instanceof PyRange) {
    const n = toNum(item);
    if (n === undefined || !Number.isInteger(n)) return false;
    const off = n - container.start;
    return off % container.step === 0 && off / container.step >= 0 && off / container.step < container.length;
  }
  if (container instanceof PyInstance) {
    const m = container.method("__contains__");
    if (m) return truthy(m.call!([item], new Map(), ctx), ctx);
  }
  if (container instanceof HostObject && (container.iterate || container.getItem) && !(container instanceof PyClass || container instanceof PyHostType)) {
    const it = iterate(container, ctx);
    for (let r = it.next(); !r.done; r = it.next()) if (truthy(compareOp("==", r.value, item, ctx), ctx)) return true;
    return false;
  }
  throw new PyException("TypeError", `argument of type '${typeName(container)}' is not iterable`);
}

// ---------------------------------------------------------------- iteration and length

export function iterate(v: PyValue, ctx: CallContext): Iterable<PyValue> & Iterator<PyValue> {
  if (v instanceof PyList) {
    // by index, so a list appended to while iterated yields the new items as Python's does
    const items = v;
    let i = 0;
    return wrap({ next: () => (i < items.items.length ? { done: false, value: items.items[i++] } : { done: true, value: undefined }) });
  }
  if (v instanceof PyTuple) return wrap(v.items[Symbol.iterator]());
  if (typeof v === "string") return wrap(v[Symbol.iterator]());
  if (v instanceof PyDict) return wrap([...v.entries.values()].map((e) => e[0])[Symbol.iterator]());
  if (v instanceof HostObject && v.iterate) return wrap(v.iterate(ctx));
  if (v instanceof HostObject && v.getItem && !(v instanceof PyClass || v instanceof PyHostType)) return wrap(sequenceIterator(v, ctx));
  throw new PyException("TypeError", `'${typeName(v)}' object is not iterable`);
}

/** Python's old sequence protocol: x[0], x[1], ... until IndexError (or len(x) when the object has one). */
function sequenceIterator(v: HostObject, ctx: CallContext): Iterator<PyValue> {
  let i = 0;
  const n = v.len ? v.len(ctx) : Infinity;
  return {
    next: () => {
      if (i >= n) return { done: true, value: undefined };
      try { return { done: false, value: v.getItem!(i++, ctx) }; } catch (e) {
        if (e instanceof PyException && e.pyType === "IndexError" && n === Infinity) return { done: true, value: undefined };
        throw e;
      }
    },
  };
}

function wrap(it: Iterator<PyValue>): Iterable<PyValue> & Iterator<PyValue> {
  return { next: () => it.next(), [Symbol.iterator]() { return this; } };
}

export function toArray(v: PyValue, ctx: CallContext): PyValue[] {
  if (v instanceof PyList || v instanceof PyTuple) return [...v.items];
  return [...iterate(v, ctx)];
}

export function pyLen(v: PyValue, ctx: CallContext): number {
  if (typeof v === "string") return [...v].length;
  if (v instanceof PyList || v instanceof PyTuple) return v.items.length;
  if (v instanceof PyDict) return v.entries.size;
  if (v instanceof HostObject && v.len) return v.len(ctx);
  throw new PyException("TypeError", `object of type '${typeName(v)}' has no len()`);
}

// ---------------------------------------------------------------- subscripts

/** An index as an int (ints and bools), or a TypeError naming the container. */
export function asIndex(v: PyValue, what: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new PyException("TypeError", `${what} indices must be integers or slices, not ${typeName(v)}`);
}

function sliceBound(v: PyValue): number | null {
  if (v === null) return null;
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new PyException("TypeError", "slice indices must be integers or None or have an __index__ method");
}

/** slice.indices(length): start, stop, step and the number of items. */
export function sliceIndices(s: PySlice, length: number): { start: number; stop: number; step: number; count: number } {
  const step = sliceBound(s.step) ?? 1;
  if (step === 0) throw new PyException("ValueError", "slice step cannot be zero");
  let start = sliceBound(s.start), stop = sliceBound(s.stop);
  if (step > 0) {
    start = start === null ? 0 : start < 0 ? Math.max(0, start + length) : Math.min(start, length);
    stop = stop === null ? length : stop < 0 ? Math.max(0, stop + length) : Math.min(stop, length);
  } else {
    start = start === null ? length - 1 : start < 0 ? Math.max(-1, start + length) : Math.min(start, length - 1);
    stop = stop === null ? -1 : stop < 0 ? Math.max(-1, stop + length) : Math.min(stop, length - 1);
  }
  const count = step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
  return { start, stop, step, count };
}

function sliceItems<T>(items: readonly T[], s: PySlice): T[] {
  const { start, step, count } = sliceIndices(s, items.length);
  const out: T[] = [];
  for (let i = 0; i < count; i++) out.push(items[start + i * step]);
  return out;
}

function normIndex(i: number, length: number, what: string): number {
  const j = i < 0 ? i + length : i;
  if (j < 0 || j >= length) throw new PyException("IndexError", `${what} index out of range`);
  return j;
}

export function getItem(obj: PyValue, key: PyValue, ctx: CallContext): PyValue {
  if (obj instanceof PyList || obj instanceof PyTuple) {
    const what = obj instanceof PyList ? "list" : "tuple";
    if (key instanceof PySlice) return obj instanceof PyList ? new PyList(sliceItems(obj.items, key)) : new PyTuple(sliceItems(obj.items, key));
    return obj.items[normIndex(asIndex(key, what), obj.items.length, what)];
  }
  if (typeof obj === "string") {
    const chars = [...obj];
    if (key instanceof PySlice) return sliceItems(chars, key).join("");
    return chars[normIndex(asIndex(key, "string"), chars.length, "string")];
  }
  if (obj instanceof PyDict) {
    const e = obj.entries.get(keyOf(key));
    if (!e) throw raiseWith("KeyError", [key], formatKey(key));
    return e[1];
  }
  if (obj instanceof PyRange) {
    if (key instanceof PySlice) {
      const { start, stop, step } = sliceIndices(key, obj.length);
      return new PyRange(obj.start + start * obj.step, obj.start + stop * obj.step, obj.step * step);
    }
    return obj.at(normIndex(asIndex(key, "range object"), obj.length, "range object"));
  }
  if (obj instanceof HostObject && obj.getItem) return obj.getItem(key, ctx);
  if (obj instanceof PyClass && obj.enumMembers) {
    const m = obj.enumMembers.find((x) => x.attrs.get("name") === key);
    if (!m) throw raiseWith("KeyError", [key], pyRepr(key));
    return m;
  }
  if (obj instanceof PyClass || obj instanceof PyHostType) return obj; // list[int], Tuple[int, ...]: type hints
  throw new PyException("TypeError", `'${typeName(obj)}' object is not subscriptable`);
}

function formatKey(key: PyValue): string { return pyRepr(key); }

export function setItem(obj: PyValue, key: PyValue, value: PyValue, ctx: CallContext): void {
  if (obj instanceof PyList) {
    if (key instanceof PySlice) {
      const items = toArray(value, ctx);
      const { start, step, count } = sliceIndices(key, obj.items.length);
      if (step === 1) { obj.items.splice(start, Math.max(0, count), ...items); return; }
      if (items.length !== count) throw new PyException("ValueError", `attempt to assign sequence of size ${items.length} to extended slice of size ${count}`);
      for (let i = 0; i < count; i++) obj.items[start + i * step] = items[i];
      return;
    }
    obj.items[normIndex(asIndex(key, "list"), obj.items.length, "list assignment")] = value;
    return;
  }
  if (obj instanceof PyDict) { dictSet(obj, key, value); return; }
  if (obj instanceof HostObject && obj.setItem) { obj.setItem(key, value, ctx); return; }
  throw new PyException("TypeError", `'${typeName(obj)}' object does not support item assignment`);
}

export function delItem(obj: PyValue, key: PyValue, ctx: CallContext): void {
  if (obj instanceof PyList) {
    if (key instanceof PySlice) {
      const { start, step, count } = sliceIndices(key, obj.items.length);
      const drop = new Set<number>();
      for (let i = 0; i < count; i++) drop.add(start + i * step);
      obj.items = obj.items.filter((_, i) => !drop.has(i));
      return;
    }
    obj.items.splice(normIndex(asIndex(key, "list"), obj.items.length, "list assignment"), 1);
    return;
  }
  if (obj instanceof PyDict) {
    if (!obj.entries.delete(keyOf(key))) throw raiseWith("KeyError", [key], formatKey(key));
    return;
  }
  if (obj instanceof PyInstance) { const m = obj.method("__delitem__"); if (m) { m.call!([key], new Map(), ctx); return; } }
  throw new PyException("TypeError", `'${typeName(obj)}' object does not support item deletion`);
}

// ---------------------------------------------------------------- calls

export function callValue(f: PyValue, args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
  if (f instanceof HostObject && f.call) return f.call(args, kwargs, ctx);
  throw new PyException("TypeError", `'${typeName(f)}' object is not callable`);
}

export function isCallable(v: PyValue): boolean {
  if (v instanceof PyInstance) return v.method("__call__") !== undefined;
  return v instanceof HostObject && typeof v.call === "function" && !(v instanceof PyIterator);
}
