// Which names a function binds locally, found from its body before it runs (Python decides this
// at compile time: a name assigned anywhere in the function is local everywhere in it, so reading
// it before the assignment is an UnboundLocalError, not a read of the global).

import type { Expr, Param, ScopeInfo, Stmt } from "./ast.js";

export function analyzeFunction(params: Param[], body: Stmt[]): ScopeInfo {
  const info: ScopeInfo = { locals: new Set(params.map((p) => p.name)), globals: new Set(), nonlocals: new Set() };
  collectStatements(body, info);
  for (const g of info.globals) info.locals.delete(g);
  for (const n of info.nonlocals) info.locals.delete(n);
  return info;
}

/** A comprehension's scope: the names its `for` targets bind. */
export function analyzeNames(targets: Expr[]): ScopeInfo {
  const info: ScopeInfo = { locals: new Set(), globals: new Set(), nonlocals: new Set() };
  for (const t of targets) collectTarget(t, info.locals);
  return info;
}

function collectTarget(t: Expr, into: Set<string>): void {
  switch (t.kind) {
    case "Name": into.add(t.id); break;
    case "Tuple": case "List": for (const i of t.items) collectTarget(i, into); break;
    case "Starred": collectTarget(t.value, into); break;
    default: break; // attribute and subscript targets bind no name
  }
}

function collectStatements(body: Stmt[], info: ScopeInfo): void {
  for (const s of body) {
    switch (s.kind) {
      case "Assign": for (const t of s.targets) collectTarget(t, info.locals); break;
      case "AnnAssign": if (s.value) collectTarget(s.target, info.locals); break;
      case "AugAssign": collectTarget(s.target, info.locals); break;
      case "Delete": for (const t of s.targets) collectTarget(t, info.locals); break;
      case "Import": for (const n of s.names) info.locals.add(n.asname ?? n.name.split(".")[0]); break;
      case "ImportFrom": if (s.names !== "*") for (const n of s.names) info.locals.add(n.asname ?? n.name); break;
      case "Global": for (const n of s.names) info.globals.add(n); break;
      case "Nonlocal": for (const n of s.names) info.nonlocals.add(n); break;
      case "If": case "While": collectStatements(s.body, info); collectStatements(s.orelse, info); break;
      case "For": collectTarget(s.target, info.locals); collectStatements(s.body, info); collectStatements(s.orelse, info); break;
      case "Try":
        collectStatements(s.body, info); collectStatements(s.orelse, info); collectStatements(s.finalbody, info);
        for (const h of s.handlers) { if (h.name) info.locals.add(h.name); collectStatements(h.body, info); }
        break;
      case "With":
        for (const item of s.items) if (item.target) collectTarget(item.target, info.locals);
        collectStatements(s.body, info);
        break;
      case "FunctionDef": case "ClassDef": info.locals.add(s.name); break;
      default: break;
    }
  }
}
