// Python values as the NKI front end's interpreter holds them, and the protocol through which
// objects the interpreter does not define (tiles, HBM tensors, index expressions, NKI modules)
// take part in Python: attributes, subscripts, operators, calls, iteration.
//
// int is a JS number holding an integer (|v| <= 2^53 - 1; beyond that is an OverflowError, not a
// silent loss of precision); float is a PyFloat, so `2` and `2.0` stay distinct as in Python
// (`range(2.0)` fails, `f"{2.0}"` prints 2.0, `tile + 1` keeps an integer tile integral).

/** Where a construct is in the kernel's file: what every error names. */
export interface SourceSite {
  /** The file as the user named it (absolute path, or the name given with in-memory source). */
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** The innermost Python function running (the kernel or one of its helpers), or "<module>". */
  readonly function: string;
}

/** What native code learns about the expression that called it. */
export interface CallContext {
  /** The call, operator or subscript expression being evaluated. */
  readonly site: SourceSite;
  /** Python frames from the outermost to this call: the kernel, then the helpers it called. */
  readonly stack: readonly SourceSite[];
}

export class PyFloat {
  constructor(readonly value: number) {}
}

export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

export class PyList {
  constructor(public items: PyValue[]) {}
}

/** A dict; keys are str, int, float, bool, None or tuples of those, compared by Python equality (keyOf). */
export class PyDict {
  readonly entries = new Map<string, [PyValue, PyValue]>();
}

export class PySlice {
  constructor(readonly start: PyValue, readonly stop: PyValue, readonly step: PyValue) {}
}

/** `...` */
export const Ellipsis = Object.freeze({ ellipsis: true as const });
export type PyEllipsis = typeof Ellipsis;

/** Returned by a binary-operator hook that does not handle the other operand (Python's NotImplemented). */
export const NotImplemented = Object.freeze({ notImplemented: true as const });
export type PyNotImplemented = typeof NotImplemented;

export type BinaryOperator = "+" | "-" | "*" | "/" | "//" | "%" | "**" | "@" | "&" | "|" | "^" | "<<" | ">>";
export type UnaryOperator = "-" | "+" | "~";
export type CompareOperator = "<" | "<=" | ">" | ">=" | "==" | "!=";

/**
 * An object defined outside the interpreter. Every hook is optional: a missing one is the Python
 * TypeError the same operation on a plain object gives ("'Tile' object is not subscriptable").
 */
export abstract class HostObject {
  /** The type's name as Python would print it (type(x).__name__). */
  abstract readonly typeName: string;
  getAttr?(name: string, ctx: CallContext): PyValue | undefined;
  setAttr?(name: string, value: PyValue, ctx: CallContext): void;
  getItem?(key: PyValue, ctx: CallContext): PyValue;
  setItem?(key: PyValue, value: PyValue, ctx: CallContext): void;
  /** `this op other` (reflected false) or `other op this` (reflected true). */
  binary?(op: BinaryOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented;
  /** `this op= other`; defaults to binary(). */
  inplace?(op: BinaryOperator, other: PyValue, ctx: CallContext): PyValue | PyNotImplemented;
  unary?(op: UnaryOperator, ctx: CallContext): PyValue;
  compare?(op: CompareOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented;
  call?(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue;
  iterate?(ctx: CallContext): Iterator<PyValue>;
  len?(ctx: CallContext): number;
  truthy?(ctx: CallContext): boolean;
  /** repr(); str() and f-strings use str() when present. */
  repr?(): string;
  str?(): string;
  /** Hashable objects (dtypes, modules) return a stable key for dict keys and ==; others are compared by identity. */
  hashKey?(): string;
}

/** A function written in TypeScript: NKI's nl.*, nisa.*, numpy's subset, builtins. */
export class NativeFunction extends HostObject {
  readonly typeName = "builtin_function_or_method";
  constructor(
    readonly name: string,
    readonly fn: (args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext) => PyValue,
  ) { super(); }
  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue { return this.fn(args, kwargs, ctx); }
  override repr(): string { return `<built-in function ${this.name}>`; }
}

/** A module: attributes in a map (Python modules, and native ones such as nki.language). */
export class PyModule extends HostObject {
  readonly typeName = "module";
  readonly attrs = new Map<string, PyValue>();
  constructor(readonly name: string) { super(); }
  override getAttr(name: string): PyValue | undefined { return this.attrs.get(name); }
  override setAttr(name: string, value: PyValue): void { this.attrs.set(name, value); }
  override repr(): string { return `<module '${this.name}'>`; }
  override hashKey(): string { return `module:${this.name}`; }
}

export type PyValue =
  | number // int
  | PyFloat
  | boolean
  | string
  | null // None
  | PyTuple
  | PyList
  | PyDict
  | PySlice
  | PyEllipsis
  | HostObject;
// The interpreter's own objects (functions, classes, instances) are HostObjects defined in interpreter files.

export function pyFloat(v: number): PyFloat { return new PyFloat(v); }
export function isInt(v: PyValue): v is number { return typeof v === "number"; }
export function isFloat(v: PyValue): v is PyFloat { return v instanceof PyFloat; }
/** int, float or bool as a JS number; undefined for anything else. */
export function toNumber(v: PyValue): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "boolean") return v ? 1 : 0;
  return undefined;
}

/**
 * A Python exception in flight (raised by kernel code, by the interpreter, or by native code that
 * checks its arguments as Python would: TypeError, ValueError, IndexError, ...). `try`/`except`
 * in the kernel file catch it; uncaught, it reaches the caller as a gpsimd PythonError naming the
 * site. gpsimd's own checks throw GpsimdErrors instead, which kernel code cannot catch.
 */
export class PyException extends Error {
  constructor(readonly pyType: string, message: string, public site?: SourceSite, readonly value?: PyValue) {
    super(message);
  }
}
