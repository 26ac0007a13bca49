// Name binding at run time: module globals, function locals (decided ahead of time by
// scope-analysis.ts), class bodies, and the closures nested functions keep of their enclosers.

import type { ScopeInfo } from "./ast.js";
import { PyException, type PyValue } from "./values.js";

export enum ScopeKind { Module, Function, Class }

export class Scope {
  readonly vars: Map<string, PyValue>;

  constructor(
    readonly kind: ScopeKind,
    /** Function scopes: which names are local, global, nonlocal. */
    readonly info: ScopeInfo | null,
    /** The enclosing function scope (class bodies are skipped, as Python skips them), or the module's. */
    readonly parent: Scope | null,
    readonly globals: Map<string, PyValue>,
    readonly builtins: Map<string, PyValue>,
    vars?: Map<string, PyValue>,
  ) {
    this.vars = vars ?? new Map();
  }

  lookup(name: string): PyValue {
    if (this.kind === ScopeKind.Function) {
      const info = this.info!;
      if (info.locals.has(name)) {
        const v = this.vars.get(name);
        if (v === undefined) throw new PyException("UnboundLocalError", `cannot access local variable '${name}' where it is not associated with a value`);
        return v;
      }
      if (!info.globals.has(name)) {
        for (let s = this.parent; s && s.kind !== ScopeKind.Module; s = s.parent) {
          if (s.kind === ScopeKind.Function) { const v = s.vars.get(name); if (v !== undefined) return v; }
        }
      }
    } else if (this.kind === ScopeKind.Class) {
      const v = this.vars.get(name);
      if (v !== undefined) return v;
      for (let s = this.parent; s && s.kind !== ScopeKind.Module; s = s.parent) {
        if (s.kind === ScopeKind.Function) { const w = s.vars.get(name); if (w !== undefined) return w; }
      }
    }
    const g = this.globals.get(name);
    if (g !== undefined) return g;
    const b = this.builtins.get(name);
    if (b !== undefined) return b;
    throw new PyException("NameError", `name '${name}' is not defined`);
  }

  assign(name: string, value: PyValue): void {
    if (this.kind === ScopeKind.Function) {
      const info = this.info!;
      if (info.globals.has(name)) { this.globals.set(name, value); return; }
      if (info.nonlocals.has(name)) { this.enclosingOwner(name).vars.set(name, value); return; }
    }
    this.vars.set(name, value);
  }

  delete(name: string): void {
    let owner: Scope = this;
    if (this.kind === ScopeKind.Function) {
      if (this.info!.globals.has(name)) owner = { vars: this.globals } as Scope;
      else if (this.info!.nonlocals.has(name)) owner = this.enclosingOwner(name);
    }
    if (!owner.vars.delete(name)) throw new PyException("NameError", `name '${name}' is not defined`);
  }

  private enclosingOwner(name: string): Scope {
    for (let s = this.parent; s && s.kind !== ScopeKind.Module; s = s.parent) {
      if (s.kind === ScopeKind.Function && s.info!.locals.has(name)) return s;
    }
    throw new PyException("SyntaxError", `no binding for nonlocal '${name}' found`);
  }
}
