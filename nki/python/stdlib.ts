// The standard-library subset kernel files import: math, os (environ, path), sys, unittest
// (TestCase defines, its tests do not run), typing, __future__, warnings, copy. functools,
// itertools and operator are in stdlib-functional.ts, dataclasses in stdlib-dataclasses.ts.

import { posix } from "node:path";
import { HostObject, NativeFunction, PyDict, PyException, PyFloat, PyList, PyModule, PyTuple, type CallContext, type PyValue } from "./values.js";
import { registerNativeModule } from "./modules.js";
import { exceptionInstance, NativeMethod, PyClass, PyInstance } from "./objects.js";
import { FutureFeature } from "./types.js";
import { bindArgs } from "./args.js";
import { binaryOp, callValue, compareOp, intFromBig, iterate, keyOf, pyEquals, toArray, truthy, typeName } from "./operators.js";
import { toFloat, toInt } from "./builtins.js";
import { pyRepr } from "./format.js";
import { output } from "../../host/output.js";
import { fn, module } from "./stdlib-common.js";
import "./stdlib-functional.js";
import "./stdlib-dataclasses.js";
import "./stdlib-enum.js";
import "./stdlib-contextlib.js";

// ---------------------------------------------------------------- math

function real(v: PyValue, ctx: CallContext): number { return toFloat(v, ctx).value; }
function domain(x: number): PyFloat {
  if (Number.isNaN(x)) throw new PyException("ValueError", "math domain error");
  return new PyFloat(x);
}
function math1(name: string, f: (x: number) => number, check?: (x: number) => boolean): NativeFunction {
  return fn(name, (args, _k, ctx) => {
    const x = real(args[0], ctx);
    if (check && !check(x)) throw new PyException("ValueError", "math domain error");
    return domain(f(x));
  });
}
function intResult(x: number): number {
  if (!Number.isFinite(x)) throw new PyException(Number.isNaN(x) ? "ValueError" : "OverflowError", Number.isNaN(x) ? "cannot convert float NaN to integer" : "cannot convert float infinity to integer");
  return intFromBig(BigInt(x));
}
function gcd(a: number, b: number): number { a = Math.abs(a); b = Math.abs(b); while (b) [a, b] = [b, a % b]; return a; }

registerNativeModule("math", () => module("math", {
  pi: new PyFloat(Math.PI), e: new PyFloat(Math.E), tau: new PyFloat(2 * Math.PI), inf: new PyFloat(Infinity), nan: new PyFloat(NaN),
  sqrt: math1("sqrt", Math.sqrt, (x) => x >= 0 || Number.isNaN(x)),
  exp: fn("exp", (args, _k, ctx) => { const r = Math.exp(real(args[0], ctx)); if (r === Infinity) throw new PyException("OverflowError", "math range error"); return new PyFloat(r); }),
  expm1: math1("expm1", Math.expm1),
  log: fn("log", (args, _k, ctx) => {
    const x = real(args[0], ctx);
    if (x <= 0) throw new PyException("ValueError", "math domain error");
    if (args.length > 1) return new PyFloat(Math.log(x) / Math.log(real(args[1], ctx)));
    return new PyFloat(Math.log(x));
  }),
  log2: math1("log2", Math.log2, (x) => x > 0), log10: math1("log10", Math.log10, (x) => x > 0), log1p: math1("log1p", Math.log1p, (x) => x > -1),
  pow: fn("pow", (args, _k, ctx) => new PyFloat(Math.pow(real(args[0], ctx), real(args[1], ctx)))),
  sin: math1("sin", Math.sin), cos: math1("cos", Math.cos), tan: math1("tan", Math.tan),
  asin: math1("asin", Math.asin, (x) => x >= -1 && x <= 1), acos: math1("acos", Math.acos, (x) => x >= -1 && x <= 1), atan: math1("atan", Math.atan),
  atan2: fn("atan2", (args, _k, ctx) => new PyFloat(Math.atan2(real(args[0], ctx), real(args[1], ctx)))),
  sinh: math1("sinh", Math.sinh), cosh: math1("cosh", Math.cosh), tanh: math1("tanh", Math.tanh),
  fabs: math1("fabs", Math.abs), degrees: math1("degrees", (x) => (x * 180) / Math.PI), radians: math1("radians", (x) => (x * Math.PI) / 180),
  hypot: fn("hypot", (args, _k, ctx) => new PyFloat(Math.hypot(...args.map((a) => real(a, ctx))))),
  copysign: fn("copysign", (args, _k, ctx) => { const x = Math.abs(real(args[0], ctx)), y = real(args[1], ctx); return new PyFloat(y < 0 || Object.is(y, -0) ? -x : x); }),
  ceil: fn("ceil", (args, _k, ctx) => (typeof args[0] === "number" ? args[0] : intResult(Math.ceil(real(args[0], ctx))))),
  floor: fn("floor", (args, _k, ctx) => (typeof args[0] === "number" ? args[0] : intResult(Math.floor(real(args[0], ctx))))),
  trunc: fn("trunc", (args, _k, ctx) => toInt(args[0], ctx)),
  isnan: fn("isnan", (args, _k, ctx) => Number.isNaN(real(args[0], ctx))),
  isinf: fn("isinf", (args, _k, ctx) => { const x = real(args[0], ctx); return x === Infinity || x === -Infinity; }),
  isfinite: fn("isfinite", (args, _k, ctx) => Number.isFinite(real(args[0], ctx))),
  isclose: fn("isclose", (args, kwargs, ctx) => {
    const { a, b, rel_tol, abs_tol } = bindArgs("isclose", ["a", "b", "*", "rel_tol=1e-09", "abs_tol=0.0"], args, kwargs);
    const x = real(a, ctx), y = real(b, ctx);
    if (x === y) return true;
    if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
    const d = Math.abs(x - y);
    return d <= Math.abs(real(rel_tol, ctx) * y) || d <= Math.abs(real(rel_tol, ctx) * x) || d <= real(abs_tol, ctx);
  }),
  prod: fn("prod", (args, kwargs, ctx) => {
    const { iterable, start } = bindArgs("prod", ["iterable", "*", "start=1"], args, kwargs);
    let acc = start;
    for (const x of iterate(iterable, ctx)) acc = binaryOp("*", acc, x, ctx);
    return acc;
  }),
  fsum: fn("fsum", (args, _k, ctx) => { let s = 0; for (const x of iterate(args[0], ctx)) s += real(x, ctx); return new PyFloat(s); }),
  gcd: fn("gcd", (args, _k, ctx) => args.map((a) => toInt(a, ctx)).reduce(gcd, 0)),
  lcm: fn("lcm", (args, _k, ctx) => args.map((a) => toInt(a, ctx)).reduce((a, b) => (a === 0 || b === 0 ? 0 : intFromBig(BigInt(Math.abs(a / gcd(a, b))) * BigInt(Math.abs(b)))), 1)),
  factorial: fn("factorial", (args, _k, ctx) => {
    const n = toInt(args[0], ctx);
    if (n < 0) throw new PyException("ValueError", "factorial() not defined for negative values");
    let r = 1n;
    for (let i = 2; i <= n; i++) r *= BigInt(i);
    return intFromBig(r);
  }),
  comb: fn("comb", (args, _k, ctx) => {
    const n = toInt(args[0], ctx), k = toInt(args[1], ctx);
    if (k < 0 || k > n) return 0;
    let r = 1n;
    for (let i = 1; i <= Math.min(k, n - k); i++) r = (r * BigInt(n - i + 1)) / BigInt(i);
    return intFromBig(r);
  }),
  isqrt: fn("isqrt", (args, _k, ctx) => { const n = toInt(args[0], ctx); if (n < 0) throw new PyException("ValueError", "isqrt() argument must be nonnegative"); let r = Math.floor(Math.sqrt(n)); while (r * r > n) r--; while ((r + 1) * (r + 1) <= n) r++; return r; }),
}));

// ---------------------------------------------------------------- os, sys

function splitext(p: string): string[] {
  const ext = posix.extname(p);
  return [p.slice(0, p.length - ext.length), ext];
}

function pathModule(): PyModule {
  const str = (v: PyValue) => { if (typeof v !== "string") throw new PyException("TypeError", `expected str, not ${typeName(v)}`); return v; };
  return module("os.path", {
    join: fn("join", (args) => args.map(str).reduce((acc, part) => (part.startsWith("/") || acc === "" ? part : acc.endsWith("/") ? acc + part : `${acc}/${part}`), "")),
    basename: fn("basename", (args) => posix.basename(str(args[0]))),
    dirname: fn("dirname", (args) => posix.dirname(str(args[0]))),
    splitext: fn("splitext", (args) => new PyTuple(splitext(str(args[0])))),
    sep: "/",
  });
}
registerNativeModule("os.path", pathModule);
registerNativeModule("os", () => {
  const environ = new PyDict();
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) environ.entries.set(keyOf(k), [k, v]);
  return module("os", {
    environ,
    path: pathModule(),
    sep: "/",
    getenv: fn("getenv", (args) => { const e = environ.entries.get(keyOf(args[0])); return e ? e[1] : args[1] ?? null; }),
  });
});
registerNativeModule("sys", () => module("sys", {
  path: new PyList([]), argv: new PyList([""]), platform: "linux", maxsize: Number.MAX_SAFE_INTEGER,
  version: "3.10.0 (gpsimd)", version_info: new PyTuple([3, 10, 0, "final", 0]),
  exit: fn("exit", (args) => { throw new PyException("SystemExit", args.length ? String(args[0]) : ""); }),
  modules: new PyDict(),
}));

// ---------------------------------------------------------------- unittest

function failure(msg: PyValue | undefined, fallback: string): PyException {
  return new PyException("AssertionError", msg !== undefined && msg !== null ? `${fallback} : ${String(msg)}` : fallback);
}
/** `with self.assertRaises(E) as cm:`: the body must raise E; cm.exception is what it raised. */
class AssertRaises extends HostObject {
  readonly typeName = "_AssertRaisesContext";
  private caught: PyValue = null;
  constructor(private readonly expected: PyValue) { super(); }
  expectedName(): string {
    const names = (this.expected instanceof PyTuple ? this.expected.items : [this.expected]).map((c) => (c instanceof PyClass ? c.name : pyRepr(c)));
    return names.join(", ");
  }
  matches(e: PyException): boolean {
    const cls = exceptionInstance(e).cls;
    return (this.expected instanceof PyTuple ? this.expected.items : [this.expected]).some((c) => c instanceof PyClass && cls.isSubclassOf(c));
  }
  override getAttr(name: string): PyValue | undefined {
    if (name === "exception") return this.caught;
    if (name === "__enter__") return new NativeFunction("__enter__", () => this);
    if (name === "__exit__") {
      return new NativeFunction("__exit__", ([type, value]) => {
        if (type === null || type === undefined) throw new PyException("AssertionError", `${this.expectedName()} not raised`);
        const cls = value instanceof PyInstance ? value.cls : null;
        const ok = cls !== null && (this.expected instanceof PyTuple ? this.expected.items : [this.expected]).some((c) => c instanceof PyClass && cls.isSubclassOf(c));
        if (ok) this.caught = value;
        return ok;
      });
    }
    return undefined;
  }
}

registerNativeModule("unittest", () => {
  const method = (name: string, f: (args: PyValue[], ctx: CallContext) => PyValue) => new NativeMethod(name, (args, _k, ctx) => f(args, ctx));
  const testCase = new PyClass("TestCase", [], new Map<string, PyValue>([
    ["assertEqual", method("assertEqual", ([, a, b, msg], ctx) => { if (!truthy(compareOp("==", a, b, ctx), ctx)) throw failure(msg, `${pyRepr(a)} != ${pyRepr(b)}`); return null; })],
    ["assertNotEqual", method("assertNotEqual", ([, a, b, msg]) => { if (pyEquals(a, b)) throw failure(msg, `${pyRepr(a)} == ${pyRepr(b)}`); return null; })],
    ["assertTrue", method("assertTrue", ([, a, msg], ctx) => { if (!truthy(a, ctx)) throw failure(msg, `${pyRepr(a)} is not true`); return null; })],
    ["assertFalse", method("assertFalse", ([, a, msg], ctx) => { if (truthy(a, ctx)) throw failure(msg, `${pyRepr(a)} is not false`); return null; })],
    ["assertIsNone", method("assertIsNone", ([, a, msg]) => { if (a !== null) throw failure(msg, `${pyRepr(a)} is not None`); return null; })],
    ["assertIn", method("assertIn", ([, a, b, msg], ctx) => { if (!toArray(b, ctx).some((x) => pyEquals(x, a))) throw failure(msg, `${pyRepr(a)} not found in ${pyRepr(b)}`); return null; })],
    ["assertRaises", method("assertRaises", ([, expected, callable, ...rest], ctx) => {
      const raisesContext = new AssertRaises(expected);
      if (callable === undefined) return raisesContext;
      try { callValue(callable, rest, new Map(), ctx); } catch (e) {
        if (e instanceof PyException && raisesContext.matches(e)) return null;
        throw e;
      }
      throw new PyException("AssertionError", `${raisesContext.expectedName()} not raised`);
    })],
    ["setUp", method("setUp", () => null)],
    ["tearDown", method("tearDown", () => null)],
  ]));
  const identity = fn("decorator", (args) => args[0]);
  return module("unittest", {
    TestCase: testCase,
    main: fn("main", () => null),
    skip: fn("skip", () => identity),
    skipIf: fn("skipIf", () => identity),
    skipUnless: fn("skipUnless", () => identity),
    expectedFailure: identity,
  });
});

// ---------------------------------------------------------------- typing

/** A typing construct: subscriptable (List[int]) and callable (TypeVar("T")), otherwise inert. */
class TypingForm extends HostObject {
  readonly typeName = "typing";
  constructor(readonly name: string) { super(); }
  override getItem(): PyValue { return this; }
  override call(args: PyValue[]): PyValue { return args.length === 1 && this.name === "NewType" ? args[0] : new TypingForm(`${this.name}(...)`); }
  override binary(): PyValue { return this; } // int | None
  override getAttr(name: string): PyValue | undefined { return name === "__name__" ? this.name : undefined; }
  override repr(): string { return `typing.${this.name}`; }
}
registerNativeModule("typing", () => {
  const names = ["Any", "Optional", "List", "Tuple", "Dict", "Set", "Union", "Callable", "Sequence", "Iterable", "Iterator", "Mapping", "Type", "TypeVar", "Generic", "Literal", "NewType", "Protocol", "ClassVar", "Final", "Annotated", "NamedTuple"];
  const entries: Record<string, PyValue> = {};
  for (const n of names) entries[n] = new TypingForm(n);
  entries.TYPE_CHECKING = false;
  entries.cast = fn("cast", (args) => args[1]);
  entries.overload = fn("overload", (args) => args[0]);
  return module("typing", entries);
});

// ---------------------------------------------------------------- __future__, warnings, copy

registerNativeModule("__future__", () => {
  const features: Record<string, PyValue> = {};
  for (const f of ["annotations", "division", "print_function", "absolute_import", "unicode_literals", "generators", "nested_scopes", "with_statement"]) features[f] = new FutureFeature(f);
  return module("__future__", features);
});


registerNativeModule("warnings", () => module("warnings", {
  warn: fn("warn", (args) => { output().warn(String(args[0] instanceof HostObject ? pyRepr(args[0]) : args[0])); return null; }),
  filterwarnings: fn("filterwarnings", () => null),
  simplefilter: fn("simplefilter", () => null),
}));

function deepCopy(v: PyValue): PyValue {
  if (v instanceof PyList) return new PyList(v.items.map(deepCopy));
  if (v instanceof PyTuple) return new PyTuple(v.items.map(deepCopy));
  if (v instanceof PyDict) { const d = new PyDict(); for (const [k, [key, x]] of v.entries) d.entries.set(k, [key, deepCopy(x)]); return d; }
  return v;
}
registerNativeModule("copy", () => module("copy", {
  copy: fn("copy", (args) => {
    const v = args[0];
    if (v instanceof PyList) return new PyList([...v.items]);
    if (v instanceof PyDict) { const d = new PyDict(); for (const [k, e] of v.entries) d.entries.set(k, e); return d; }
    return v;
  }),
  deepcopy: fn("deepcopy", (args) => deepCopy(args[0])),
}));


