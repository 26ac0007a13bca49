// The tree-walking interpreter: executes the syntax tree of parse.ts over the values of
// values.ts. Statements return a completion code (normal, break, continue, return) rather than
// throwing, so loops stay cheap; Python exceptions are PyExceptions, located at the innermost
// expression that raised them.

import { KernelTimeoutError, NkiSyntaxError } from "../../host/checks/errors.js";
import type { Expr, FStringPart, Module, Stmt } from "./ast.js";
import {
  HostObject, PyDict, PyException, PyList, PySlice, PyTuple,
  type BinaryOperator, type CallContext, type CompareOperator, type PyValue, type SourceSite,
} from "./values.js";
import { Scope, ScopeKind } from "./scope.js";
import {
  ClassMethod, exceptionClassFor, exceptionInstance, isExceptionClass, Property, PyClass, PyFunction, PyInstance, PySuper, StaticMethod,
  type FunctionParam, type FunctionRunner,
} from "./objects.js";
import { FutureFeature, NamespaceView, PyIterator, PyRange, PySet } from "./types.js";
import { bindParams } from "./args.js";
import {
  binaryOp, callValue, compareOp, contains, dictSet, delItem, getItem, inplaceOp, isOp, iterate, keyOf, overflow, setItem, toArray, truthy, typeName, unaryOp,
} from "./operators.js";
import { delAttribute, getAttribute, setAttribute } from "./methods.js";
import { formatValue, pyRepr, pyStr } from "./format.js";
import { builtinNamespace } from "./builtins.js";
import { hasTraceback, recordTraceback } from "./python-errors.js";
import { runGeneratorBody, type GeneratorHost } from "./generator.js";
import { BREAK, CONTINUE, NORMAL, RETURN, type Completion } from "./completion.js";

/** Python frames deeper than this raise RecursionError (the JS stack would overflow soon after). */
const MAX_DEPTH = 400;

export interface StopOptions {
  /** Date.now() after which running Python code stops with a KernelTimeoutError. */
  deadline?: number;
  /** Polled at loop iterations and calls; true stops the code with a KernelTimeoutError. */
  shouldStop?: () => boolean;
}

/** How import statements are resolved (modules.ts). */
export interface Importer {
  /** `import a.b.c`: the top package (bound without `as`) and the leaf module. */
  importModule(name: string, fromFile: string, ctx: CallContext): { top: PyValue; leaf: PyValue };
  /** `from <level dots><name> import ...`: the module imported from. */
  importFrom(name: string, level: number, fromFile: string, ctx: CallContext): PyValue;
  /** `from m import name` when m has no attribute name: a submodule m.name, or undefined. */
  importSubmodule(module: PyValue, name: string, fromFile: string, ctx: CallContext): PyValue | undefined;
}

export class Interpreter implements FunctionRunner {
  private file = "<module>";
  private fnName = "<module>";
  private currentFn: PyFunction | null = null;
  private readonly callSites: SourceSite[] = [];
  private stackCache: readonly SourceSite[] | null = null;
  private readonly handling: PyException[] = [];
  private returnValue: PyValue = null;
  private tick = 0;
  private readonly builtins = builtinNamespace();
  importer: Importer | null = null;

  constructor(public stop: StopOptions = {}) {}

  // ---------------------------------------------------------------- entry points

  /** Runs a module's top-level code in globals. */
  /** Runs a module's top-level code in globals; importedAt is the import statement that loads it (a traceback frame). */
  runModule(module: Module, globals: Map<string, PyValue>, importedAt?: SourceSite): void {
    const saved = this.enter(module.file, "<module>", null);
    if (importedAt) { this.callSites.push(importedAt); this.stackCache = null; }
    try {
      const scope = new Scope(ScopeKind.Module, null, null, globals, this.builtins, globals);
      const r = this.execBlock(module.body, scope);
      if (r === RETURN) throw new PyException("SyntaxError", "'return' outside function");
    } finally {
      this.leave(saved);
      if (importedAt) { this.callSites.pop(); this.stackCache = null; }
    }
  }

  callFunction(fn: PyFunction, args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    if (fn.code.unsupported) throw unsupportedError(fn.code.unsupported, fn.site);
    this.poll(ctx.site);
    if (this.callSites.length >= MAX_DEPTH) throw new PyException("RecursionError", "maximum recursion depth exceeded");
    const values = bindParams(fn.qualname, fn.params, args, kwargs);
    const scope = new Scope(ScopeKind.Function, fn.code.scope, fn.closure, fn.closure.globals, this.builtins);
    for (let i = 0; i < values.length; i++) { const v = values[i]; if (v !== undefined) scope.vars.set(fn.params[i].name, v); }
    if (fn.code.generator) return new PyIterator("generator", this.generatorFrames(fn, scope, ctx.site));
    this.callSites.push(ctx.site);
    this.stackCache = null;
    const saved = this.enter(fn.site.file, fn.name, fn);
    // a caller may be unwinding a `return` (through __exit__ or a finally) while this call runs
    const pendingReturn = this.returnValue;
    try {
      const body = fn.code.body;
      if (!Array.isArray(body)) return this.eval(body as Expr, scope);
      const r = this.execBlock(body, scope);
      if (r === RETURN) return this.returnValue;
      return null;
    } finally {
      this.returnValue = pendingReturn;
      this.leave(saved);
      this.callSites.pop();
      this.stackCache = null;
    }
  }

  /**
   * A generator's body resumed on each next(): its frame (file, function, call site) is entered for
   * every resumption and left at every yield, as Python suspends and resumes a frame.
   */
  private generatorFrames(fn: PyFunction, scope: Scope, site: SourceSite): Iterator<PyValue> {
    const body = runGeneratorBody(this.generatorHost(), fn.code.body as Stmt[], scope);
    let finished = false;
    return {
      next: () => {
        if (finished) return { done: true, value: undefined };
        if (this.callSites.length >= MAX_DEPTH) throw new PyException("RecursionError", "maximum recursion depth exceeded");
        this.callSites.push(site);
        this.stackCache = null;
        const saved = this.enter(fn.site.file, fn.name, fn);
        const pendingReturn = this.returnValue;
        try {
          const r = body.next();
          if (r.done) { finished = true; return { done: true, value: undefined }; }
          return { done: false, value: r.value };
        } catch (e) { finished = true; throw e; } finally {
          this.returnValue = pendingReturn;
          this.leave(saved);
          this.callSites.pop();
          this.stackCache = null;
        }
      },
    };
  }

  /** What generator.ts needs of the interpreter (its statements run here; it runs the ones that yield). */
  private generatorHost(): GeneratorHost {
    return {
      exec: (s, scope) => this.exec(s, scope),
      eval: (e, scope) => this.eval(e, scope),
      test: (e, scope) => this.test(e, scope),
      assign: (t, v, scope) => this.assign(t, v, scope),
      ctx: (node) => this.ctx(node),
      poll: (node) => this.poll(node),
      located: (e, node) => this.located(e, node),
      matches: (e, type) => this.matches(e, type),
      handling: this.handling,
      getReturn: () => this.returnValue,
      setReturn: (v) => { this.returnValue = v; },
    };
  }

  private enter(file: string, fnName: string, fn: PyFunction | null): [string, string, PyFunction | null] {
    const saved: [string, string, PyFunction | null] = [this.file, this.fnName, this.currentFn];
    this.file = file; this.fnName = fnName; this.currentFn = fn;
    return saved;
  }
  private leave([file, fnName, fn]: [string, string, PyFunction | null]): void { this.file = file; this.fnName = fnName; this.currentFn = fn; }

  // ---------------------------------------------------------------- sites

  site(node: { line: number; column: number }): SourceSite {
    return { file: this.file, line: node.line, column: node.column, function: this.fnName };
  }
  private stack(): readonly SourceSite[] {
    if (!this.stackCache) this.stackCache = Object.freeze([...this.callSites]);
    return this.stackCache;
  }
  ctx(node: { line: number; column: number }): CallContext { return { site: this.site(node), stack: this.stack() }; }

  /** Gives an exception without a site the site of node; maps a JS stack overflow to RecursionError. */
  private located(e: unknown, node: { line: number; column: number }): unknown {
    if (e instanceof PyException) {
      if (!e.site) e.site = this.site(node);
      if (!hasTraceback(e)) recordTraceback(e, [...this.callSites, e.site]);
      return e;
    }
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      const p = new PyException("RecursionError", "maximum recursion depth exceeded", this.site(node));
      recordTraceback(p, [...this.callSites, p.site!]);
      return p;
    }
    return e;
  }

  private poll(site: SourceSite | { line: number; column: number }): void {
    if ((++this.tick & 15) !== 0) return; // Date.now() every 16 polls: cheap next to an iteration, prompt after slow native calls
    const { deadline, shouldStop } = this.stop;
    if ((deadline !== undefined && Date.now() > deadline) || (shouldStop && shouldStop())) {
      const s = "file" in site ? site : this.site(site);
      throw new KernelTimeoutError("E_TIMEOUT", `the Python code was stopped (deadline reached) at ${s.function} (${s.file}:${s.line}:${s.column})`, {
        details: { file: s.file, line: s.line, column: s.column, function: s.function },
      });
    }
  }

  // ---------------------------------------------------------------- statements

  private execBlock(body: Stmt[], scope: Scope): Completion {
    for (let i = 0; i < body.length; i++) {
      const r = this.exec(body[i], scope);
      if (r !== NORMAL) return r;
    }
    return NORMAL;
  }

  private exec(s: Stmt, scope: Scope): Completion {
    try {
      return this.execInner(s, scope);
    } catch (e) { throw this.located(e, s); }
  }

  private execInner(s: Stmt, scope: Scope): Completion {
    switch (s.kind) {
      case "Expr": this.eval(s.value, scope); return NORMAL;
      case "Assign": {
        const v = this.eval(s.value, scope);
        for (let i = 0; i < s.targets.length; i++) this.assign(s.targets[i], v, scope);
        return NORMAL;
      }
      case "AnnAssign": this.annAssign(s, scope); return NORMAL;
      case "AugAssign": this.augAssign(s, scope); return NORMAL;
      case "Pass": case "Global": case "Nonlocal": return NORMAL;
      case "Break": return BREAK;
      case "Continue": return CONTINUE;
      case "Return": this.returnValue = s.value ? this.eval(s.value, scope) : null; return RETURN;
      case "If": return truthy(this.eval(s.test, scope), this.ctx(s.test)) ? this.execBlock(s.body, scope) : this.execBlock(s.orelse, scope);
      case "For": return this.forLoop(s, scope);
      case "While": {
        while (this.test(s.test, scope)) {
          this.poll(s);
          const r = this.execBlock(s.body, scope);
          if (r === BREAK) return NORMAL;
          if (r === RETURN) return r;
        }
        return this.execBlock(s.orelse, scope);
      }
      case "Try": return this.tryStatement(s, scope);
      case "With": return this.withStatement(s, scope, 0);
      case "Raise": throw this.raise(s, scope);
      case "Assert": {
        if (this.test(s.test, scope)) return NORMAL;
        const msg = s.msg ? pyStr(this.eval(s.msg, scope)) : "";
        throw new PyException("AssertionError", msg, this.site(s));
      }
      case "Import": {
        const ctx = this.ctx(s);
        for (const n of s.names) {
          const { top, leaf } = this.importer!.importModule(n.name, this.file, ctx);
          scope.assign(n.asname ?? n.name.split(".")[0], n.asname ? leaf : top);
        }
        return NORMAL;
      }
      case "ImportFrom": this.importFrom(s, scope); return NORMAL;
      case "Delete": for (const t of s.targets) this.deleteTarget(t, scope); return NORMAL;
      case "FunctionDef": scope.assign(s.name, this.functionDef(s, scope)); return NORMAL;
      case "ClassDef": scope.assign(s.name, this.classDef(s, scope)); return NORMAL;
      case "Unsupported": throw unsupportedError(s.construct, this.site(s));
      case "Yield": throw new PyException("SyntaxError", "'yield' outside function", this.site(s));
    }
  }

  private test(e: Expr, scope: Scope): boolean {
    const v = this.eval(e, scope);
    if (typeof v === "boolean") return v;
    return truthy(v, this.ctx(e));
  }

  private forLoop(s: Stmt & { kind: "For" }, scope: Scope): Completion {
    const iterable = this.eval(s.iter, scope);
    const target = s.target;
    const simple = target.kind === "Name" ? target.id : null;
    if (iterable instanceof PyRange) {
      const n = iterable.length, start = iterable.start, step = iterable.step;
      for (let i = 0; i < n; i++) {
        this.poll(s);
        const v = start + i * step;
        if (simple !== null) scope.assign(simple, v); else this.assign(target, v, scope);
        const r = this.execBlock(s.body, scope);
        if (r === BREAK) return NORMAL;
        if (r === RETURN) return r;
      }
      return this.execBlock(s.orelse, scope);
    }
    const it = iterate(iterable, this.ctx(s.iter));
    for (let next = it.next(); !next.done; next = it.next()) {
      this.poll(s);
      if (simple !== null) scope.assign(simple, next.value); else this.assign(target, next.value, scope);
      const r = this.execBlock(s.body, scope);
      if (r === BREAK) return NORMAL;
      if (r === RETURN) return r;
    }
    return this.execBlock(s.orelse, scope);
  }

  private tryStatement(s: Stmt & { kind: "Try" }, scope: Scope): Completion {
    let result: Completion = NORMAL;
    let pending: unknown = undefined;
    let threw = false;
    try {
      let raised: PyException | null = null;
      try { result = this.execBlock(s.body, scope); } catch (e) {
        if (!(e instanceof PyException)) throw e; // gpsimd's own errors are not Python exceptions: kernels cannot catch them
        raised = e;
      }
      if (raised) {
        const handler = s.handlers.find((h) => h.type === null || this.matches(raised!, this.eval(h.type, scope)));
        if (!handler) throw raised;
        if (handler.name) scope.assign(handler.name, exceptionInstance(raised));
        this.handling.push(raised);
        try { result = this.execBlock(handler.body, scope); } finally {
          this.handling.pop();
          if (handler.name) scope.vars.delete(handler.name);
        }
      } else if (result === NORMAL) result = this.execBlock(s.orelse, scope);
    } catch (e) { threw = true; pending = e; }
    if (s.finalbody.length) {
      const savedReturn = this.returnValue;
      const r = this.execBlock(s.finalbody, scope);
      if (r !== NORMAL) return r; // break/continue/return in finally discard the exception, as in Python
      this.returnValue = savedReturn;
    }
    if (threw) throw pending;
    return result;
  }

  /** with a as x, b: __enter__, the body, then __exit__ (which may suppress a Python exception). */
  private withStatement(s: Stmt & { kind: "With" }, scope: Scope, index: number): Completion {
    const item = s.items[index];
    const ctx = this.ctx(item.context);
    const manager = this.eval(item.context, scope);
    const exit = getAttribute(manager, "__exit__", ctx);
    const entered = callValue(getAttribute(manager, "__enter__", ctx), [], new Map(), ctx);
    if (item.target) this.assign(item.target, entered, scope);
    let result: Completion;
    try {
      result = index + 1 < s.items.length ? this.withStatement(s, scope, index + 1) : this.execBlock(s.body, scope);
    } catch (e) {
      if (!(e instanceof PyException)) { callValue(exit, [null, null, null], new Map(), ctx); throw e; }
      const instance = exceptionInstance(e);
      if (!truthy(callValue(exit, [instance.cls, instance, null], new Map(), ctx), ctx)) throw e;
      return NORMAL;
    }
    callValue(exit, [null, null, null], new Map(), ctx);
    return result;
  }

  private matches(e: PyException, type: PyValue): boolean {
    if (type instanceof PyTuple) return type.items.some((t) => this.matches(e, t));
    if (!(type instanceof PyClass)) {
      if (type instanceof HostObject && (type as unknown as { isPlaceholder?: boolean }).isPlaceholder) return false;
      throw new PyException("TypeError", "catching classes that do not inherit from BaseException is not allowed");
    }
    const cls = e.value instanceof PyInstance ? e.value.cls : exceptionClassFor(e.pyType);
    return cls.isSubclassOf(type);
  }

  private raise(s: Stmt & { kind: "Raise" }, scope: Scope): PyException {
    if (!s.exc) {
      const current = this.handling[this.handling.length - 1];
      if (!current) return new PyException("RuntimeError", "No active exception to reraise", this.site(s));
      return current;
    }
    let v = this.eval(s.exc, scope);
    if (s.cause) this.eval(s.cause, scope);
    if (isExceptionClass(v)) v = v.call([], new Map(), this.ctx(s.exc));
    if (v instanceof PyInstance && isExceptionClass(v.cls)) {
      const e = new PyException(v.cls.name, pyStr(v), this.site(s), v);
      recordTraceback(e, [...this.callSites, e.site!]);
      return e;
    }
    return new PyException("TypeError", "exceptions must derive from BaseException", this.site(s));
  }

  private importFrom(s: Stmt & { kind: "ImportFrom" }, scope: Scope): void {
    const ctx = this.ctx(s);
    const mod = this.importer!.importFrom(s.module, s.level, this.file, ctx);
    const modName = s.module || ".";
    if (s.names === "*") {
      if (!(mod instanceof HostObject) || !("attrs" in mod)) return; // a placeholder: nothing to copy
      const attrs = (mod as unknown as { attrs: Map<string, PyValue> }).attrs;
      const all = attrs.get("__all__");
      const names = all instanceof PyList || all instanceof PyTuple ? all.items.map(String) : [...attrs.keys()].filter((k) => !k.startsWith("_"));
      for (const n of names) { const v = attrs.get(n); if (v !== undefined) scope.assign(n, v); }
      return;
    }
    for (const n of s.names) {
      let v: PyValue | undefined;
      try { v = mod instanceof HostObject && mod.getAttr ? mod.getAttr(n.name, ctx) : undefined; } catch (e) {
        if (!(e instanceof PyException && e.pyType === "AttributeError")) throw e;
      }
      if (v === undefined) v = this.importer!.importSubmodule(mod, n.name, this.file, ctx);
      if (v === undefined) throw new PyException("ImportError", `cannot import name '${n.name}' from '${modName}'`, this.site(s));
      scope.assign(n.asname ?? n.name, v);
    }
  }

  private functionDef(s: Stmt & { kind: "FunctionDef" }, scope: Scope): PyValue {
    const decorators = s.decorators.map((d) => this.eval(d, scope));
    const params: FunctionParam[] = s.params.map((p) => ({ name: p.name, kind: p.kind, default: p.default ? this.eval(p.default, scope) : undefined }));
    const fn = new PyFunction(s.name, params, this.site(s), { body: s.body, scope: s.scope, unsupported: s.unsupported, generator: s.generator }, scope, s.doc, this);
    fn.decorators = decorators;
    fn.qualname = this.qualify(s.name, scope);
    if (!(scope.globals.get("annotations") instanceof FutureFeature)) {
      for (const p of s.params) if (p.annotation) fn.annotations.set(p.name, this.eval(p.annotation, scope));
      if (s.returns) fn.annotations.set("return", this.eval(s.returns, scope));
    }
    let v: PyValue = fn;
    for (let i = decorators.length - 1; i >= 0; i--) v = callValue(decorators[i], [v], new Map(), this.ctx(s.decorators[i]));
    return v;
  }

  /** Python's __qualname__: Class.name in a class body, outer.<locals>.name in a function. */
  private qualify(name: string, scope: Scope): string {
    if (scope.kind === ScopeKind.Class) return `${String(scope.vars.get("__qualname__") ?? "")}.${name}`;
    if (scope.kind === ScopeKind.Function && this.currentFn) return `${this.currentFn.qualname}.<locals>.${name}`;
    return name;
  }

  private classDef(s: Stmt & { kind: "ClassDef" }, scope: Scope): PyValue {
    const decorators = s.decorators.map((d) => this.eval(d, scope));
    const bases = s.bases.map((b) => this.eval(b, scope));
    for (const k of s.keywords) this.eval(k.value, scope); // metaclass=...: evaluated, otherwise ignored
    const body = new Scope(ScopeKind.Class, null, scope, scope.globals, this.builtins);
    body.vars.set("__module__", scope.globals.get("__name__") ?? null);
    body.vars.set("__qualname__", this.qualify(s.name, scope));
    const r = this.execBlock(s.body, body);
    if (r === RETURN) throw new PyException("SyntaxError", "'return' outside function", this.site(s));
    const cls = new PyClass(s.name, bases, body.vars, this.site(s));
    for (const v of body.vars.values()) {
      const fn = v instanceof StaticMethod || v instanceof ClassMethod ? v.fn : v instanceof Property ? v.getter : v;
      if (fn instanceof PyFunction && fn.ownerClass === null) fn.ownerClass = cls;
    }
    // a base's __init_subclass__ (implicitly a classmethod) sees the new class: enum.Enum builds its members there
    for (const base of cls.mro.slice(1)) {
      const hook = base.ns.get("__init_subclass__");
      if (hook instanceof HostObject && hook.call) { hook.call([cls], new Map(), this.ctx(s)); break; }
    }
    let out: PyValue = cls;
    for (let i = decorators.length - 1; i >= 0; i--) out = callValue(decorators[i], [out], new Map(), this.ctx(s.decorators[i]));
    return out;
  }

  // ---------------------------------------------------------------- assignment

  assign(t: Expr, v: PyValue, scope: Scope): void {
    switch (t.kind) {
      case "Name": scope.assign(t.id, v); return;
      case "Tuple": case "List": this.unpack(t.items, v, scope, t); return;
      case "Attribute": setAttribute(this.eval(t.obj, scope), t.name, v, this.ctx(t)); return;
      case "Subscript": {
        const obj = this.eval(t.obj, scope);
        const key = this.eval(t.index, scope);
        setItem(obj, key, v, this.ctx(t));
        return;
      }
      case "Starred": throw new PyException("SyntaxError", "starred assignment target must be in a list or tuple");
      default: throw new PyException("SyntaxError", `cannot assign to ${t.kind === "Call" ? "function call" : "expression"}`);
    }
  }

  private unpack(targets: Expr[], v: PyValue, scope: Scope, at: Expr): void {
    const items = v instanceof PyTuple || v instanceof PyList ? v.items : toArray(v, this.ctx(at));
    const star = targets.findIndex((t) => t.kind === "Starred");
    if (star < 0) {
      if (items.length !== targets.length) {
        throw new PyException("ValueError", items.length > targets.length
          ? `too many values to unpack (expected ${targets.length})`
          : `not enough values to unpack (expected ${targets.length}, got ${items.length})`);
      }
      for (let i = 0; i < targets.length; i++) this.assign(targets[i], items[i], scope);
      return;
    }
    const after = targets.length - star - 1;
    if (items.length < targets.length - 1) throw new PyException("ValueError", `not enough values to unpack (expected at least ${targets.length - 1}, got ${items.length})`);
    for (let i = 0; i < star; i++) this.assign(targets[i], items[i], scope);
    this.assign((targets[star] as Expr & { kind: "Starred" }).value, new PyList(items.slice(star, items.length - after)), scope);
    for (let i = 0; i < after; i++) this.assign(targets[star + 1 + i], items[items.length - after + i], scope);
  }

  /** `x: T = v`; in class and module bodies the annotation is recorded in __annotations__ (dataclasses read it). */
  private annAssign(s: Stmt & { kind: "AnnAssign" }, scope: Scope): void {
    if (scope.kind !== ScopeKind.Function && s.target.kind === "Name" && s.annotation) {
      let annotations = scope.vars.get("__annotations__");
      if (!(annotations instanceof PyDict)) scope.vars.set("__annotations__", annotations = new PyDict());
      const future = scope.globals.get("annotations") instanceof FutureFeature;
      dictSet(annotations, s.target.id, future ? null : this.eval(s.annotation, scope));
    }
    if (s.value) this.assign(s.target, this.eval(s.value, scope), scope);
  }

  private augAssign(s: Stmt & { kind: "AugAssign" }, scope: Scope): void {
    const t = s.target, op = s.op as BinaryOperator;
    switch (t.kind) {
      case "Name": {
        const cur = scope.lookup(t.id);
        const rhs = this.eval(s.value, scope);
        if (typeof cur === "number" && typeof rhs === "number" && (op === "+" || op === "-")) {
          const r = op === "+" ? cur + rhs : cur - rhs;
          if (!Number.isSafeInteger(r)) throw overflow();
          scope.assign(t.id, r);
          return;
        }
        scope.assign(t.id, inplaceOp(op, cur, rhs, this.ctx(s)));
        return;
      }
      case "Attribute": {
        const obj = this.eval(t.obj, scope);
        const ctx = this.ctx(t);
        const cur = getAttribute(obj, t.name, ctx);
        setAttribute(obj, t.name, inplaceOp(op, cur, this.eval(s.value, scope), this.ctx(s)), ctx);
        return;
      }
      case "Subscript": {
        const obj = this.eval(t.obj, scope);
        const key = this.eval(t.index, scope);
        const ctx = this.ctx(t);
        const cur = getItem(obj, key, ctx);
        setItem(obj, key, inplaceOp(op, cur, this.eval(s.value, scope), this.ctx(s)), ctx);
        return;
      }
      default: throw new PyException("SyntaxError", "illegal expression for augmented assignment");
    }
  }

  private deleteTarget(t: Expr, scope: Scope): void {
    switch (t.kind) {
      case "Name": scope.delete(t.id); return;
      case "Tuple": case "List": for (const i of t.items) this.deleteTarget(i, scope); return;
      case "Subscript": delItem(this.eval(t.obj, scope), this.eval(t.index, scope), this.ctx(t)); return;
      case "Attribute": delAttribute(this.eval(t.obj, scope), t.name); return;
      default: throw new PyException("SyntaxError", "cannot delete expression");
    }
  }

  // ---------------------------------------------------------------- expressions

  eval(e: Expr, scope: Scope): PyValue {
    switch (e.kind) {
      case "Const": return e.value;
      case "Name": try { return scope.lookup(e.id); } catch (err) { throw this.located(err, e); }
      default: try { return this.evalInner(e, scope); } catch (err) { throw this.located(err, e); }
    }
  }

  private evalInner(e: Expr, scope: Scope): PyValue {
    switch (e.kind) {
      case "BinOp": {
        const a = this.eval(e.left, scope), b = this.eval(e.right, scope);
        if (typeof a === "number" && typeof b === "number") {
          let r: number | undefined;
          switch (e.op) {
            case "+": r = a + b; break;
            case "-": r = a - b; break;
            case "*": r = a * b; break;
            default: break;
          }
          if (r !== undefined && Number.isSafeInteger(r)) return r === 0 ? 0 : r;
        }
        return binaryOp(e.op as BinaryOperator, a, b, this.ctx(e));
      }
      case "Compare": {
        let left = this.eval(e.left, scope);
        let result: PyValue = true;
        for (let i = 0; i < e.ops.length; i++) {
          const right = this.eval(e.comparators[i], scope);
          result = this.compare(e.ops[i], left, right, e);
          if (i < e.ops.length - 1 && !(typeof result === "boolean" ? result : truthy(result, this.ctx(e)))) return result;
          left = right;
        }
        return result;
      }
      case "BoolOp": {
        const a = this.eval(e.left, scope);
        const t = typeof a === "boolean" ? a : truthy(a, this.ctx(e.left));
        if (e.op === "and") return t ? this.eval(e.right, scope) : a;
        return t ? a : this.eval(e.right, scope);
      }
      case "UnaryOp": return unaryOp(e.op, this.eval(e.operand, scope), this.ctx(e));
      case "IfExp": return this.test(e.test, scope) ? this.eval(e.body, scope) : this.eval(e.orelse, scope);
      case "Attribute": return getAttribute(this.eval(e.obj, scope), e.name, this.ctx(e));
      case "Subscript": {
        const obj = this.eval(e.obj, scope);
        const key = this.eval(e.index, scope);
        if (obj instanceof PyList && typeof key === "number") {
          const i = key < 0 ? key + obj.items.length : key;
          if (i >= 0 && i < obj.items.length) return obj.items[i];
        }
        return getItem(obj, key, this.ctx(e));
      }
      case "Slice": return new PySlice(e.lower ? this.eval(e.lower, scope) : null, e.upper ? this.eval(e.upper, scope) : null, e.step ? this.eval(e.step, scope) : null);
      case "Call": return this.call(e, scope);
      case "Tuple": return new PyTuple(this.items(e.items, scope));
      case "List": return new PyList(this.items(e.items, scope));
      case "Set": {
        const s = new PySet();
        for (const v of this.items(e.items, scope)) s.items.set(keyOf(v), v);
        return s;
      }
      case "Dict": {
        const d = new PyDict();
        for (let i = 0; i < e.keys.length; i++) {
          const k = e.keys[i];
          const v = this.eval(e.values[i], scope);
          if (k === null) {
            if (!(v instanceof PyDict)) throw new PyException("TypeError", `'${typeName(v)}' object is not a mapping`);
            for (const [key, entry] of v.entries) d.entries.set(key, entry);
          } else {
            const kv = this.eval(k, scope);
            dictSet(d, kv, v);
          }
        }
        return d;
      }
      case "FString": return this.fstring(e.parts, scope);
      case "Lambda": {
        const params: FunctionParam[] = e.params.map((p) => ({ name: p.name, kind: p.kind, default: p.default ? this.eval(p.default, scope) : undefined }));
        return new PyFunction("<lambda>", params, this.site(e), { body: e.body, scope: e.scope, unsupported: null, generator: false }, scope, null, this);
      }
      case "Comp": return this.comprehension(e, scope);
      case "Starred": throw new PyException("SyntaxError", "can't use starred expression here");
      case "Unsupported": throw unsupportedError(e.construct, this.site(e));
      case "Const": return e.value;
      case "Name": return scope.lookup(e.id);
    }
  }

  private compare(op: string, a: PyValue, b: PyValue, at: Expr): PyValue {
    switch (op) {
      case "in": return contains(b, a, this.ctx(at));
      case "not in": return !contains(b, a, this.ctx(at));
      case "is": return isOp(a, b);
      case "is not": return !isOp(a, b);
      default:
        if (typeof a === "number" && typeof b === "number") {
          switch (op) {
            case "<": return a < b;
            case "<=": return a <= b;
            case ">": return a > b;
            case ">=": return a >= b;
            case "==": return a === b;
            default: return a !== b;
          }
        }
        return compareOp(op as CompareOperator, a, b, this.ctx(at));
    }
  }

  private items(exprs: Expr[], scope: Scope): PyValue[] {
    const out: PyValue[] = [];
    for (const x of exprs) {
      if (x.kind === "Starred") out.push(...toArray(this.eval(x.value, scope), this.ctx(x)));
      else out.push(this.eval(x, scope));
    }
    return out;
  }

  private call(e: Expr & { kind: "Call" }, scope: Scope): PyValue {
    if (e.func.kind === "Name" && e.args.length === 0 && e.keywords.length === 0) {
      // builtins that read the caller's frame (unless the name was rebound)
      if (e.func.id === "super" && scope.kind === ScopeKind.Function) return this.zeroArgSuper(scope);
      if (e.func.id === "globals" && !scope.globals.has("globals")) return new NamespaceView(scope.globals);
      if (e.func.id === "locals" && !scope.globals.has("locals")) return new NamespaceView(scope.vars);
    }
    const f = this.eval(e.func, scope);
    const args = this.items(e.args, scope);
    const kwargs = new Map<string, PyValue>();
    for (const k of e.keywords) {
      const v = this.eval(k.value, scope);
      if (k.name !== null) {
        if (kwargs.has(k.name)) throw new PyException("SyntaxError", `keyword argument repeated: ${k.name}`);
        kwargs.set(k.name, v);
      } else {
        if (!(v instanceof PyDict)) throw new PyException("TypeError", `argument after ** must be a mapping, not ${typeName(v)}`);
        for (const [key, val] of v.entries.values()) {
          if (typeof key !== "string") throw new PyException("TypeError", "keywords must be strings");
          if (kwargs.has(key)) throw new PyException("TypeError", `got multiple values for keyword argument '${key}'`);
          kwargs.set(key, val);
        }
      }
    }
    const ctx = this.ctx(e);
    if (f instanceof PyFunction && f.runner === this) return this.callFunction(f, args, kwargs, ctx);
    return callValue(f, args, kwargs, ctx);
  }

  private zeroArgSuper(scope: Scope): PyValue {
    const fn = this.currentFn;
    if (!fn || !fn.ownerClass || fn.params.length === 0) throw new PyException("RuntimeError", "super(): no arguments");
    const self = scope.lookup(fn.params[0].name);
    return new PySuper(fn.ownerClass, self);
  }

  private fstring(parts: FStringPart[], scope: Scope): string {
    let out = "";
    for (const p of parts) {
      if (typeof p === "string") { out += p; continue; }
      let v = this.eval(p.value, scope);
      if (p.selfDoc !== null) out += p.selfDoc;
      if (p.conversion === "r" || p.conversion === "a") v = pyRepr(v);
      else if (p.conversion === "s") v = pyStr(v);
      out += formatValue(v, p.spec === null ? "" : this.fstring(p.spec, scope));
    }
    return out;
  }

  /** A generator expression's items, computed as they are consumed (any() and next() stop early, as in Python). */
  private *generate(e: Expr & { kind: "Comp" }, inner: Scope, firstIter: PyValue, level: number): Generator<PyValue> {
    const g = e.generators[level];
    const iterable = level === 0 ? firstIter : this.eval(g.iter, inner);
    for (const x of iterate(iterable, this.ctx(g.iter))) {
      this.poll(g.iter);
      this.assign(g.target, x, inner);
      let keep = true;
      for (const cond of g.ifs) if (!this.test(cond, inner)) { keep = false; break; }
      if (!keep) continue;
      if (level + 1 < e.generators.length) yield* this.generate(e, inner, firstIter, level + 1);
      else yield this.eval(e.elt, inner);
    }
  }

  private comprehension(e: Expr & { kind: "Comp" }, scope: Scope): PyValue {
    const inner = new Scope(ScopeKind.Function, e.scope, scope, scope.globals, this.builtins);
    const out: PyValue[] = [];
    const dict = e.comp === "dict" ? new PyDict() : null;
    const gens = e.generators;
    const firstIter = this.eval(gens[0].iter, scope);
    if (e.comp === "gen") return new PyIterator("generator", this.generate(e, inner, firstIter, 0));
    const run = (level: number): void => {
      const g = gens[level];
      const iterable = level === 0 ? firstIter : this.eval(g.iter, inner);
      for (const x of iterate(iterable, this.ctx(g.iter))) {
        this.poll(g.iter);
        this.assign(g.target, x, inner);
        let keep = true;
        for (const cond of g.ifs) if (!this.test(cond, inner)) { keep = false; break; }
        if (!keep) continue;
        if (level + 1 < gens.length) run(level + 1);
        else if (dict) { const k = this.eval(e.elt, inner); dictSet(dict, k, this.eval(e.value!, inner)); }
        else out.push(this.eval(e.elt, inner));
      }
    };
    run(0);
    switch (e.comp) {
      case "list": return new PyList(out);
      case "dict": return dict!;
      default: { const s = new PySet(); for (const v of out) s.items.set(keyOf(v), v); return s; }
    }
  }
}

/** E_NKI_UNSUPPORTED: a construct gpsimd's Python does not execute, named with its place. */
export function unsupportedError(construct: string, site: SourceSite): NkiSyntaxError {
  return new NkiSyntaxError("E_NKI_UNSUPPORTED", `${construct} is not supported by gpsimd's Python interpreter at ${site.function} (${site.file}:${site.line}:${site.column})`, {
    details: { file: site.file, line: site.line, column: site.column, function: site.function, construct },
  });
}
