// The interpreter's own objects: functions, bound methods, classes and their instances, and the
// built-in types that values.ts does not model (set, range, iterators, type objects).

import type { Expr, Param, ScopeInfo, Stmt } from "./ast.js";
import type { Scope } from "./scope.js";
import {
  HostObject, NativeFunction, NotImplemented, PyDict, PyException, PyTuple,
  type BinaryOperator, type CallContext, type CompareOperator, type PyNotImplemented, type PyValue, type SourceSite, type UnaryOperator,
} from "./values.js";

/** Runs Python function bodies: the interpreter that defined the function. */
export interface FunctionRunner {
  callFunction(fn: PyFunction, args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue;
}

export interface FunctionParam {
  readonly name: string;
  readonly kind: Param["kind"];
  /** The default, evaluated when the def ran; undefined when the parameter has none. */
  readonly default: PyValue | undefined;
}

/** What the interpreter runs when the function is called. */
export interface FunctionCode {
  readonly body: Stmt[] | Expr; // an expression for a lambda
  readonly scope: ScopeInfo;
  readonly unsupported: string | null;
  /** A def whose body yields: calling it makes a generator. */
  readonly generator: boolean;
}

/** A function written in Python (def or lambda). */
export class PyFunction extends HostObject {
  readonly typeName = "function";
  /** Decorators written above the def, outermost first (the values, as evaluated). */
  decorators: PyValue[] = [];
  /** The class whose body defined this function (for super()). */
  ownerClass: PyClass | null = null;
  /** Class.method, or outer.<locals>.inner: what Python's TypeErrors about calls name. */
  qualname: string;
  readonly attrs = new Map<string, PyValue>();
  /** Parameter annotations (and "return"), evaluated when the def ran; empty under `from __future__ import annotations`. */
  annotations = new Map<string, PyValue>();

  constructor(
    readonly name: string,
    readonly params: readonly FunctionParam[],
    /** The def (or lambda) in its file. */
    readonly site: SourceSite,
    readonly code: FunctionCode,
    readonly closure: Scope,
    readonly doc: string | null,
    readonly runner: FunctionRunner,
  ) { super(); this.qualname = name; }

  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    return this.runner.callFunction(this, args, kwargs, ctx);
  }
  override getAttr(name: string): PyValue | undefined {
    if (name === "__name__") return this.name;
    if (name === "__qualname__") return this.qualname;
    if (name === "__doc__") return this.doc;
    if (name === "__annotations__") {
      const d = new PyDict();
      for (const [k, v] of this.annotations) d.entries.set(`s${k}`, [k, v]);
      return d;
    }
    if (name === "__module__") return this.closure.globals.get("__name__") ?? null;
    return this.attrs.get(name);
  }
  override setAttr(name: string, value: PyValue): void { this.attrs.set(name, value); }
  override repr(): string { return `<function ${this.name}>`; }
}

/** Python's NotImplemented as a value Python code can return from __add__ and friends. */
class NotImplementedType extends HostObject {
  readonly typeName = "NotImplementedType";
  override repr(): string { return "NotImplemented"; }
}
export const NotImplementedValue = new NotImplementedType();

/** A dunder method's result, with Python's NotImplemented mapped to the hook protocol's. */
function dunderResult(r: PyValue): PyValue | PyNotImplemented { return r === NotImplementedValue ? NotImplemented : r; }

/** A TypeScript function that becomes a method when found on a class (self is args[0]). */
export class NativeMethod extends NativeFunction {}

/** `obj.method`: the function with its first argument bound. */
export class BoundMethod extends HostObject {
  readonly typeName = "method";
  constructor(readonly self: PyValue, readonly fn: HostObject) { super(); }
  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    return this.fn.call!([this.self, ...args], kwargs, ctx);
  }
  override getAttr(name: string): PyValue | undefined {
    if (name === "__self__") return this.self;
    if (name === "__func__") return this.fn;
    return this.fn.getAttr?.(name, dummyContext());
  }
  override repr(): string { return `<bound method ${(this.fn as PyFunction).name ?? "?"}>`; }
}

export class StaticMethod extends HostObject {
  readonly typeName = "staticmethod";
  constructor(readonly fn: PyValue) { super(); }
}
export class ClassMethod extends HostObject {
  readonly typeName = "classmethod";
  constructor(readonly fn: PyValue) { super(); }
}
export class Property extends HostObject {
  readonly typeName = "property";
  setter: PyValue = null;
  constructor(readonly getter: PyValue) { super(); }
  override getAttr(name: string): PyValue | undefined {
    if (name === "setter") return new NativeFunction("setter", (args) => { this.setter = args[0]; return this; });
    return undefined;
  }
}

export function dummyContext(site?: SourceSite): CallContext {
  return { site: site ?? { file: "<native>", line: 0, column: 0, function: "<native>" }, stack: [] };
}

function callHook(fn: PyValue, args: PyValue[], ctx: CallContext): PyValue {
  if (fn instanceof HostObject && fn.call) return fn.call(args, new Map(), ctx);
  throw new PyException("TypeError", "object is not callable");
}

/** A class defined by a class statement (or natively, such as the exception classes). */
export class PyClass extends HostObject {
  readonly typeName = "type";
  /** Method resolution order: this class, then its PyClass bases depth first (single inheritance in practice). */
  readonly mro: PyClass[];
  /** Bases that are not Python classes (placeholders, host types): attribute lookups end there. */
  readonly foreignBases: PyValue[];

  constructor(readonly name: string, readonly bases: PyValue[], readonly ns: Map<string, PyValue> = new Map(), readonly site?: SourceSite) {
    super();
    const mro: PyClass[] = [this];
    const foreign: PyValue[] = [];
    for (const b of bases) {
      if (b instanceof PyClass) { for (const c of b.mro) if (!mro.includes(c)) mro.push(c); foreign.push(...b.foreignBases); }
      else foreign.push(b);
    }
    this.mro = mro;
    this.foreignBases = foreign;
  }

  /** The attribute as stored on the class or a base, unbound. */
  lookup(name: string): PyValue | undefined {
    for (const c of this.mro) { const v = c.ns.get(name); if (v !== undefined) return v; }
    return undefined;
  }

  isSubclassOf(other: PyClass): boolean { return this.mro.includes(other); }

  override getAttr(name: string, ctx: CallContext): PyValue | undefined {
    if (name === "__name__" || name === "__qualname__") return this.name;
    if (name === "__bases__") return new PyTuple(this.bases);
    const v = this.lookup(name);
    if (v instanceof StaticMethod) return v.fn;
    if (v instanceof ClassMethod && v.fn instanceof HostObject) return new BoundMethod(this, v.fn);
    if (v !== undefined) return v;
    for (const f of this.foreignBases) if (f instanceof HostObject && f.getAttr) { const w = f.getAttr(name, ctx); if (w !== undefined) return w; }
    return undefined;
  }
  override setAttr(name: string, value: PyValue): void { this.ns.set(name, value); }

  /** Enum classes: calling looks a member up by value, iterating yields the members (set by enum's __init_subclass__). */
  enumMembers: PyInstance[] | null = null;

  override truthy(): boolean { return true; }
  override iterate(): Iterator<PyValue> {
    if (!this.enumMembers) throw new PyException("TypeError", `'type' object is not iterable`);
    return this.enumMembers[Symbol.iterator]();
  }
  override len(): number {
    if (!this.enumMembers) throw new PyException("TypeError", "object of type 'type' has no len()");
    return this.enumMembers.length;
  }

  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    if (this.enumMembers) {
      const hit = this.enumMembers.find((m) => m === args[0] || sameValue(m.attrs.get("value"), args[0]));
      if (!hit) throw new PyException("ValueError", `${args.length ? String(args[0]) : "?"} is not a valid ${this.name}`);
      return hit;
    }
    const instance = new PyInstance(this);
    const init = this.lookup("__init__");
    if (init instanceof HostObject && init.call) init.call([instance, ...args], kwargs, ctx);
    else if (args.length || kwargs.size) {
      if (this.foreignBases.length === 0) throw new PyException("TypeError", `${this.name}() takes no arguments`);
    }
    return instance;
  }
  override repr(): string { return `<class '${this.name}'>`; }
  override hashKey(): string { return `class:${objectId(this)}`; }
}

/** An object made by calling a PyClass. */
export class PyInstance extends HostObject {
  readonly attrs = new Map<string, PyValue>();
  constructor(readonly cls: PyClass) { super(); }
  get typeName(): string { return this.cls.name; }

  /** A method found on the class, bound to this instance; undefined when the class has none. */
  method(name: string): HostObject | undefined {
    const v = this.cls.lookup(name);
    if (v === undefined) return undefined;
    return bindMember(this, v) as HostObject;
  }

  override getAttr(name: string, ctx: CallContext): PyValue | undefined {
    if (name === "__class__") return this.cls;
    if (name === "__dict__") return null;
    const own = this.attrs.get(name);
    if (own !== undefined) return own;
    const v = this.cls.lookup(name);
    if (v instanceof Property) return callHook(v.getter, [this], ctx);
    if (v !== undefined) return bindMember(this, v);
    for (const f of this.cls.foreignBases) if (f instanceof HostObject && f.getAttr) { const w = f.getAttr(name, ctx); if (w !== undefined) return w; }
    const getattr = this.method("__getattr__");
    if (getattr) return getattr.call!([name], new Map(), ctx);
    return undefined;
  }
  override setAttr(name: string, value: PyValue, ctx: CallContext): void {
    const v = this.cls.lookup(name);
    if (v instanceof Property) {
      if (v.setter === null) throw new PyException("AttributeError", `property '${name}' of '${this.cls.name}' object has no setter`);
      callHook(v.setter, [this, value], ctx);
      return;
    }
    this.attrs.set(name, value);
  }

  private dunder(name: string, args: PyValue[], ctx: CallContext, what: string): PyValue {
    const m = this.method(name);
    if (!m) throw new PyException("TypeError", `'${this.cls.name}' object ${what}`);
    return m.call!(args, new Map(), ctx);
  }
  override getItem(key: PyValue, ctx: CallContext): PyValue { return this.dunder("__getitem__", [key], ctx, "is not subscriptable"); }
  override setItem(key: PyValue, value: PyValue, ctx: CallContext): void { this.dunder("__setitem__", [key, value], ctx, "does not support item assignment"); }
  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    const m = this.method("__call__");
    if (!m) throw new PyException("TypeError", `'${this.cls.name}' object is not callable`);
    return m.call!(args, kwargs, ctx);
  }
  override len(ctx: CallContext): number {
    const n = this.dunder("__len__", [], ctx, "has no len()");
    if (typeof n !== "number") throw new PyException("TypeError", "'__len__' should return an integer");
    return n;
  }
  override truthy(ctx: CallContext): boolean {
    const b = this.method("__bool__");
    if (b) return b.call!([], new Map(), ctx) === true;
    if (this.method("__len__")) return this.len(ctx) !== 0;
    return true;
  }
  override iterate(ctx: CallContext): Iterator<PyValue> {
    const it = this.method("__iter__");
    if (!it) throw new PyException("TypeError", `'${this.cls.name}' object is not iterable`);
    const result = it.call!([], new Map(), ctx);
    if (result === this) {
      const next = this.method("__next__");
      if (!next) throw new PyException("TypeError", `iter() returned non-iterator of type '${this.cls.name}'`);
      return {
        next: () => {
          try { return { done: false, value: next.call!([], new Map(), ctx) }; } catch (e) {
            if (e instanceof PyException && e.pyType === "StopIteration") return { done: true, value: undefined };
            throw e;
          }
        },
      };
    }
    if (result instanceof HostObject && result.iterate) return result.iterate(ctx);
    throw new PyException("TypeError", `iter() returned non-iterator of type '${typeof result}'`);
  }
  override binary(op: BinaryOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
    const name = binaryDunders[op];
    const m = this.method(reflected ? `__r${name}__` : `__${name}__`);
    return m ? dunderResult(m.call!([other], new Map(), ctx)) : NotImplemented;
  }
  override inplace(op: BinaryOperator, other: PyValue, ctx: CallContext): PyValue | PyNotImplemented {
    const m = this.method(`__i${binaryDunders[op]}__`);
    return m ? dunderResult(m.call!([other], new Map(), ctx)) : NotImplemented;
  }
  override unary(op: UnaryOperator, ctx: CallContext): PyValue {
    const name = op === "-" ? "__neg__" : op === "+" ? "__pos__" : "__invert__";
    return this.dunder(name, [], ctx, `does not support unary ${op}`);
  }
  override compare(op: CompareOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
    const effective = reflected ? reflectedCompare[op] : op;
    const m = this.method(compareDunders[effective]);
    return m ? dunderResult(m.call!([other], new Map(), ctx)) : NotImplemented;
  }
  override repr(): string {
    const m = this.method("__repr__");
    if (m) return String(m.call!([], new Map(), dummyContext()));
    return `<${this.cls.name} object>`;
  }
  override str(): string {
    const m = this.method("__str__");
    if (m) return String(m.call!([], new Map(), dummyContext()));
    return this.repr();
  }
}

const binaryDunders: Record<BinaryOperator, string> = {
  "+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow", "@": "matmul",
  "&": "and", "|": "or", "^": "xor", "<<": "lshift", ">>": "rshift",
};
const compareDunders: Record<CompareOperator, string> = { "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__", "==": "__eq__", "!=": "__ne__" };
export const reflectedCompare: Record<CompareOperator, CompareOperator> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=" };

/** A class member as seen through an instance: functions become bound methods. */
export function bindMember(self: PyValue, v: PyValue): PyValue {
  if (v instanceof PyFunction || v instanceof NativeMethod) return new BoundMethod(self, v);
  if (v instanceof StaticMethod) return v.fn;
  if (v instanceof ClassMethod && v.fn instanceof HostObject && self instanceof PyInstance) return new BoundMethod(self.cls, v.fn);
  return v;
}

/** super(): attribute lookups start after `start` in self's class order. */
export class PySuper extends HostObject {
  readonly typeName = "super";
  constructor(readonly start: PyClass, readonly self: PyValue) { super(); }
  override getAttr(name: string, ctx: CallContext): PyValue | undefined {
    const cls = this.self instanceof PyInstance ? this.self.cls : this.self instanceof PyClass ? this.self : this.start;
    const at = cls.mro.indexOf(this.start);
    for (const c of cls.mro.slice(at + 1)) {
      const v = c.ns.get(name);
      if (v !== undefined) return bindMember(this.self, v);
    }
    for (const f of cls.foreignBases) if (f instanceof HostObject && f.getAttr) { const w = f.getAttr(name, ctx); if (w !== undefined) return w; }
    if (name === "__init__") return new NativeFunction("__init__", () => null); // object.__init__
    return undefined;
  }
}

/** Enum value lookup: ints, strings and identical objects (no host hooks needed). */
function sameValue(a: PyValue | undefined, b: PyValue | undefined): boolean {
  if (a === b) return true;
  return typeof a === "number" && typeof b === "boolean" ? a === Number(b) : false;
}

// ---------------------------------------------------------------- object identity

const ids = new WeakMap<object, number>();
let nextId = 1;
/** A stable number per object (id(), identity dict keys). */
export function objectId(o: object): number {
  let id = ids.get(o);
  if (id === undefined) { id = nextId++; ids.set(o, id); }
  return id;
}

// ---------------------------------------------------------------- exceptions

function exceptionInit(args: PyValue[]): PyValue {
  const self = args[0] as PyInstance;
  self.attrs.set("args", new PyTuple(args.slice(1)));
  return null;
}

/** BaseException and the built-in exceptions kernels raise and catch. */
export const exceptionClasses = new Map<string, PyClass>();

function defineException(name: string, base: PyClass | null): PyClass {
  const cls = new PyClass(name, base ? [base] : []);
  exceptionClasses.set(name, cls);
  return cls;
}

export const BaseExceptionClass = defineException("BaseException", null);
BaseExceptionClass.ns.set("__init__", new NativeMethod("__init__", exceptionInit));
{
  const tree: [string, string][] = [
    ["Exception", "BaseException"], ["KeyboardInterrupt", "BaseException"], ["SystemExit", "BaseException"], ["GeneratorExit", "BaseException"],
    ["ArithmeticError", "Exception"], ["ZeroDivisionError", "ArithmeticError"], ["OverflowError", "ArithmeticError"], ["FloatingPointError", "ArithmeticError"],
    ["AssertionError", "Exception"], ["AttributeError", "Exception"], ["BufferError", "Exception"], ["EOFError", "Exception"],
    ["ImportError", "Exception"], ["ModuleNotFoundError", "ImportError"],
    ["LookupError", "Exception"], ["IndexError", "LookupError"], ["KeyError", "LookupError"],
    ["MemoryError", "Exception"], ["NameError", "Exception"], ["UnboundLocalError", "NameError"],
    ["OSError", "Exception"], ["FileNotFoundError", "OSError"],
    ["RuntimeError", "Exception"], ["NotImplementedError", "RuntimeError"], ["RecursionError", "RuntimeError"],
    ["StopIteration", "Exception"], ["SyntaxError", "Exception"], ["SystemError", "Exception"],
    ["TypeError", "Exception"], ["ValueError", "Exception"], ["UnicodeError", "ValueError"],
    ["Warning", "Exception"], ["UserWarning", "Warning"], ["DeprecationWarning", "Warning"], ["RuntimeWarning", "Warning"],
  ];
  for (const [name, base] of tree) defineException(name, exceptionClasses.get(base)!);
}
export const ExceptionClass = exceptionClasses.get("Exception")!;

/** The class of an exception raised by name only (native code's PyException("TypeError", ...)). */
export function exceptionClassFor(pyType: string): PyClass {
  return exceptionClasses.get(pyType) ?? defineException(pyType, ExceptionClass);
}

/** The instance `except ... as e` binds. */
export function exceptionInstance(e: PyException): PyInstance {
  if (e.value instanceof PyInstance) return e.value;
  const inst = new PyInstance(exceptionClassFor(e.pyType));
  inst.attrs.set("args", new PyTuple(e.message === "" ? [] : [e.message]));
  return inst;
}

export function isExceptionClass(v: PyValue): v is PyClass {
  return v instanceof PyClass && v.isSubclassOf(BaseExceptionClass);
}

/** A PyException carrying its instance (KeyError(key): str() is repr(key), e.args is (key,)). */
export function raiseWith(pyType: string, args: PyValue[], message: string): PyException {
  const inst = new PyInstance(exceptionClassFor(pyType));
  inst.attrs.set("args", new PyTuple(args));
  return new PyException(pyType, message, undefined, inst);
}
