// Built-in Python types that values.ts leaves to the interpreter: set, range, iterators, and the
// type objects (int, float, ... and host types) that isinstance() and type() work with.

import { HostObject, NativeFunction, PyException, PyList, PyTuple, type CallContext, type PyValue } from "./values.js";

/** A set; members keyed by keyOf (Python equality), kept in insertion order. */
export class PySet extends HostObject {
  readonly typeName = "set";
  readonly items = new Map<string, PyValue>();
  override iterate(): Iterator<PyValue> { return [...this.items.values()][Symbol.iterator](); }
  override len(): number { return this.items.size; }
  override truthy(): boolean { return this.items.size > 0; }
}

/** range(start, stop, step): lazy, as in Python. */
export class PyRange extends HostObject {
  readonly typeName = "range";
  readonly length: number;
  constructor(readonly start: number, readonly stop: number, readonly step: number) {
    super();
    const n = step > 0 ? Math.ceil((stop - start) / step) : Math.ceil((start - stop) / -step);
    this.length = Math.max(0, n);
  }
  at(i: number): number { return this.start + i * this.step; }
  override len(): number { return this.length; }
  override truthy(): boolean { return this.length > 0; }
  override iterate(): Iterator<PyValue> {
    let i = 0;
    const n = this.length, start = this.start, step = this.step;
    return { next: () => (i < n ? { done: false, value: start + step * i++ } : { done: true, value: undefined }) };
  }
  override repr(): string { return this.step === 1 ? `range(${this.start}, ${this.stop})` : `range(${this.start}, ${this.stop}, ${this.step})`; }
  override hashKey(): string { return `range:${this.start}:${this.stop}:${this.step}`; }
}

/** An iterator object (iter(), zip, map, enumerate, generator expressions, dict views' iterators). */
export class PyIterator extends HostObject {
  constructor(readonly typeName: string, readonly it: Iterator<PyValue>) { super(); }
  override iterate(): Iterator<PyValue> { return this.it; }
  override truthy(): boolean { return true; }
  override repr(): string { return `<${this.typeName} object>`; }
}

/**
 * A type object: the built-in types (int, float, str, ...) and host types (Tile, dtype classes):
 * `isinstance(v, T)` asks `matches(v)`; calling it constructs when `construct` is given.
 */
export class PyHostType extends HostObject {
  readonly typeName = "type";
  constructor(
    readonly name: string,
    readonly matches: (v: PyValue) => boolean,
    readonly construct?: (args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext) => PyValue,
    /** Attributes of the type itself (e.g. int.from_bytes; dict.fromkeys). */
    readonly attrs: Map<string, PyValue> = new Map(),
  ) { super(); }
  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    if (!this.construct) throw new PyException("TypeError", `cannot create '${this.name}' instances`);
    return this.construct(args, kwargs, ctx);
  }
  override getAttr(name: string): PyValue | undefined {
    if (name === "__name__" || name === "__qualname__") return this.name;
    return this.attrs.get(name);
  }
  override repr(): string { return `<class '${this.name}'>`; }
  override hashKey(): string { return `type:${this.name}`; }
}

/** A `from __future__ import x` feature (annotations, division, print_function, ...). */
export class FutureFeature extends HostObject {
  readonly typeName = "_Feature";
  constructor(readonly name: string) { super(); }
  override repr(): string { return `_Feature('${this.name}')`; }
}

/**
 * globals(): a live view of a module's namespace as a mapping (reads and writes go to the module),
 * with the dict methods code uses on it.
 */
export class NamespaceView extends HostObject {
  readonly typeName = "dict";
  constructor(readonly vars: Map<string, PyValue>) { super(); }
  private key(k: PyValue): string {
    if (typeof k !== "string") throw new PyException("TypeError", "namespace keys are strings");
    return k;
  }
  override getItem(k: PyValue): PyValue {
    const v = this.vars.get(this.key(k));
    if (v === undefined) throw new PyException("KeyError", `'${String(k)}'`);
    return v;
  }
  override setItem(k: PyValue, v: PyValue): void { this.vars.set(this.key(k), v); }
  override iterate(): Iterator<PyValue> { return [...this.vars.keys()][Symbol.iterator](); }
  override len(): number { return this.vars.size; }
  override getAttr(name: string): PyValue | undefined {
    switch (name) {
      case "get": return new NativeFunction("get", ([k, d]) => this.vars.get(this.key(k)) ?? (d === undefined ? null : d));
      case "keys": return new NativeFunction("keys", () => new PyList([...this.vars.keys()]));
      case "values": return new NativeFunction("values", () => new PyList([...this.vars.values()]));
      case "items": return new NativeFunction("items", () => new PyList([...this.vars].map(([k, v]) => new PyTuple([k, v]))));
      default: return undefined;
    }
  }
  override repr(): string { return `<namespace of ${this.vars.size} names>`; }
}
