// Generator functions: a body that yields runs as a JavaScript generator over the same
// statements. Only the statements that (transitively) contain a `yield` run here; all others go
// back to the interpreter, so a generator costs nothing where it does not suspend.

import type { Expr, Stmt } from "./ast.js";
import type { Scope } from "./scope.js";
import { PyException, type CallContext, type PyValue } from "./values.js";
import { BREAK, NORMAL, RETURN, type Completion } from "./completion.js";
import { exceptionInstance } from "./objects.js";
import { callValue, iterate, truthy } from "./operators.js";
import { getAttribute } from "./methods.js";

export interface GeneratorHost {
  exec(s: Stmt, scope: Scope): Completion;
  eval(e: Expr, scope: Scope): PyValue;
  test(e: Expr, scope: Scope): boolean;
  assign(target: Expr, value: PyValue, scope: Scope): void;
  ctx(node: { line: number; column: number }): CallContext;
  poll(node: { line: number; column: number }): void;
  located(e: unknown, node: { line: number; column: number }): unknown;
  matches(e: PyException, type: PyValue): boolean;
  readonly handling: PyException[];
  getReturn(): PyValue;
  setReturn(v: PyValue): void;
}

type Gen = Generator<PyValue, Completion, undefined>;

const yields = new WeakMap<Stmt, boolean>();

/** Does the statement yield (not counting functions and classes defined in it)? */
function containsYield(s: Stmt): boolean {
  const hit = yields.get(s);
  if (hit !== undefined) return hit;
  let r: boolean;
  switch (s.kind) {
    case "Yield": r = true; break;
    case "If": case "While": case "For": r = s.body.some(containsYield) || s.orelse.some(containsYield); break;
    case "With": r = s.body.some(containsYield); break;
    case "Try": r = [s.body, s.orelse, s.finalbody, ...s.handlers.map((h) => h.body)].some((b) => b.some(containsYield)); break;
    default: r = false;
  }
  yields.set(s, r);
  return r;
}

export function runGeneratorBody(host: GeneratorHost, body: Stmt[], scope: Scope): Gen {
  return block(host, body, scope);
}

function* block(host: GeneratorHost, body: Stmt[], scope: Scope): Gen {
  for (const s of body) {
    const r = containsYield(s) ? yield* statement(host, s, scope) : host.exec(s, scope);
    if (r !== NORMAL) return r;
  }
  return NORMAL;
}

function* statement(host: GeneratorHost, s: Stmt, scope: Scope): Gen {
  try {
    switch (s.kind) {
      case "Yield": {
        const v = s.value ? host.eval(s.value, scope) : null;
        if (s.from) { for (const x of iterate(v, host.ctx(s))) yield x; } else yield v;
        return NORMAL;
      }
      case "If": return host.test(s.test, scope) ? yield* block(host, s.body, scope) : yield* block(host, s.orelse, scope);
      case "While":
        while (host.test(s.test, scope)) {
          host.poll(s);
          const r = yield* block(host, s.body, scope);
          if (r === BREAK) return NORMAL;
          if (r === RETURN) return r;
        }
        return yield* block(host, s.orelse, scope);
      case "For": {
        const it = iterate(host.eval(s.iter, scope), host.ctx(s.iter));
        for (let next = it.next(); !next.done; next = it.next()) {
          host.poll(s);
          host.assign(s.target, next.value, scope);
          const r = yield* block(host, s.body, scope);
          if (r === BREAK) return NORMAL;
          if (r === RETURN) return r;
        }
        return yield* block(host, s.orelse, scope);
      }
      case "Try": return yield* tryStatement(host, s, scope);
      case "With": return yield* withStatement(host, s, scope, 0);
      default: return host.exec(s, scope);
    }
  } catch (e) { throw host.located(e, s); }
}

function* tryStatement(host: GeneratorHost, s: Stmt & { kind: "Try" }, scope: Scope): Gen {
  let result: Completion = NORMAL;
  let pending: unknown = undefined;
  let threw = false;
  try {
    let raised: PyException | null = null;
    try { result = yield* block(host, s.body, scope); } catch (e) {
      if (!(e instanceof PyException)) throw e;
      raised = e;
    }
    if (raised) {
      const handler = s.handlers.find((h) => h.type === null || host.matches(raised!, host.eval(h.type, scope)));
      if (!handler) throw raised;
      if (handler.name) host.assign({ kind: "Name", id: handler.name, line: handler.line, column: handler.column }, exceptionInstance(raised), scope);
      host.handling.push(raised);
      try { result = yield* block(host, handler.body, scope); } finally {
        host.handling.pop();
        if (handler.name) scope.vars.delete(handler.name);
      }
    } else if (result === NORMAL) result = yield* block(host, s.orelse, scope);
  } catch (e) { threw = true; pending = e; }
  if (s.finalbody.length) {
    const savedReturn = host.getReturn();
    const r = yield* block(host, s.finalbody, scope);
    if (r !== NORMAL) return r;
    host.setReturn(savedReturn);
  }
  if (threw) throw pending;
  return result;
}

function* withStatement(host: GeneratorHost, s: Stmt & { kind: "With" }, scope: Scope, index: number): Gen {
  const item = s.items[index];
  const ctx = host.ctx(item.context);
  const manager = host.eval(item.context, scope);
  const exit = getAttribute(manager, "__exit__", ctx);
  const entered = callValue(getAttribute(manager, "__enter__", ctx), [], new Map(), ctx);
  if (item.target) host.assign(item.target, entered, scope);
  let result: Completion;
  try {
    result = index + 1 < s.items.length ? yield* withStatement(host, s, scope, index + 1) : yield* block(host, s.body, scope);
  } catch (e) {
    if (!(e instanceof PyException)) { callValue(exit, [null, null, null], new Map(), ctx); throw e; }
    const instance = exceptionInstance(e);
    if (!truthy(callValue(exit, [instance.cls, instance, null], new Map(), ctx), ctx)) throw e;
    return NORMAL;
  }
  callValue(exit, [null, null, null], new Map(), ctx);
  return result;
}
