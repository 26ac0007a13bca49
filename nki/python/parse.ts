// Python source to the interpreter's syntax tree (ast.ts), through @lezer/python. lezer always
// produces a tree; its error nodes become NkiSyntaxError E_NKI_SYNTAX here. Constructs the
// interpreter does not execute become "Unsupported" nodes that raise E_NKI_UNSUPPORTED when run,
// so a file that merely contains one (say a generator in a test helper) still loads.

import { createHash } from "node:crypto";
import { parser } from "@lezer/python";
import type { SyntaxNode } from "@lezer/common";
import { NkiSyntaxError } from "../../host/checks/errors.js";
import { Ellipsis, pyFloat } from "./values.js";
import type { BinOpName, CmpOpName, Comprehension, ExceptHandler, Expr, FStringPart, ImportName, KeywordArg, Module, Param, Pos, Stmt } from "./ast.js";
import { analyzeFunction, analyzeNames } from "./scope-analysis.js";

const cache = new Map<string, Module>();
const sources = new Map<string, string>();

/** The source text last parsed for a file (tracebacks quote its lines). */
export function sourceOf(file: string): string | undefined { return sources.get(file); }

/** Parses a file; the result is cached per (file, source hash). */
export function parseModule(file: string, text: string): Module {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // a UTF-8 byte order mark
  const key = `${file}\0${createHash("sha1").update(source).digest("hex")}`;
  const hit = cache.get(key);
  sources.set(file, source);
  if (hit) return hit;
  const module = new Converter(file, source).module();
  cache.set(key, module);
  return module;
}

class Converter {
  private readonly lineStarts: number[] = [0];
  /** One entry per function being converted: did its body contain yield? */
  private readonly yieldSeen: boolean[] = [];

  constructor(private readonly file: string, private readonly src: string) {
    for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  module(): Module {
    const tree = parser.parse(this.src);
    let bad: SyntaxNode | null = null;
    tree.iterate({ enter: (n) => { if (bad) return false; if (n.type.isError && !tolerated(n.node)) { bad = n.node; return false; } return undefined; } });
    if (bad) {
      const parent = (bad as SyntaxNode).parent;
      // Python 3.9 allows any expression after @; lezer's grammar (and so gpsimd) only a dotted name with optional arguments
      if (parent && (parent.name === "Decorator" || parent.name === "DecoratedStatement")) {
        this.unsupportedNow(parent.name === "Decorator" ? parent : bad, "this decorator form (gpsimd supports @name, @a.b and @a.b(args))");
      }
      this.syntaxError(bad);
    }
    const top = tree.topNode;
    return { file: this.file, source: this.src, body: this.statements(kids(top)) };
  }

  private pos(offset: number): Pos {
    let lo = 0, hi = this.lineStarts.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (this.lineStarts[mid] <= offset) lo = mid; else hi = mid - 1; }
    return { line: lo + 1, column: offset - this.lineStarts[lo] + 1 };
  }

  private text(n: SyntaxNode): string { return this.src.slice(n.from, n.to); }

  private syntaxError(n: SyntaxNode): never {
    const at = this.pos(n.from);
    const lineText = this.src.slice(this.lineStarts[at.line - 1], this.lineStarts[at.line] ?? this.src.length).replace(/\r?\n$/, "");
    const near = n.to > n.from ? this.text(n) : lineText.slice(Math.max(0, at.column - 1)).trim() || lineText.trim();
    const indent = /^[ \t]*/.exec(lineText)![0].length;
    const badIndent = indent > 0 && at.column <= indent + 1 && lineText.trim() !== "";
    const what = badIndent ? `unexpected indent near '${lineText.trim().slice(0, 40)}'`
      : near ? `invalid syntax near '${near.length > 40 ? near.slice(0, 40) + "…" : near}'` : "invalid syntax (unexpected end of file)";
    throw new NkiSyntaxError("E_NKI_SYNTAX", `${what} at <module> (${this.file}:${at.line}:${at.column})`, {
      details: { file: this.file, line: at.line, column: at.column, function: "<module>", text: lineText },
    });
  }

  /** Raised for a construct that can never run correctly here, at parse time. */
  private unsupportedNow(n: SyntaxNode, construct: string): never {
    const at = this.pos(n.from);
    throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `${construct} is not supported by gpsimd's Python interpreter at <module> (${this.file}:${at.line}:${at.column})`, {
      details: { file: this.file, line: at.line, column: at.column, function: "<module>", construct },
    });
  }

  // ---------------------------------------------------------------- statements

  private statements(nodes: SyntaxNode[]): Stmt[] {
    const out: Stmt[] = [];
    for (const n of nodes) this.statement(n, out);
    return out;
  }

  private body(n: SyntaxNode | undefined): Stmt[] {
    if (!n || n.name !== "Body") return [];
    return this.statements(kids(n).filter((k) => k.name !== ":"));
  }

  private statement(n: SyntaxNode, out: Stmt[]): void {
    const p = this.pos(n.from);
    const k = kids(n);
    switch (n.name) {
      case "StatementGroup":
        for (const s of k) if (s.name !== ";") this.statement(s, out);
        return;
      case "ExpressionStatement": out.push({ ...p, kind: "Expr", value: this.exprList(k, p) }); return;
      case "AssignStatement": out.push(this.assign(k, p)); return;
      case "UpdateStatement": {
        const opIndex = k.findIndex((c) => c.name === "UpdateOp");
        const op = this.text(k[opIndex]).slice(0, -1) as BinOpName;
        const target = this.exprList(k.slice(0, opIndex), p);
        const valueNodes = k.slice(opIndex + 1);
        if (valueNodes.some((c) => c.name === "YieldExpression")) { out.push({ ...p, kind: "Unsupported", construct: "yield inside an expression (gpsimd runs yield as a statement)" }); this.sawYield(); return; }
        out.push({ ...p, kind: "AugAssign", target, op, value: this.exprList(valueNodes, p) });
        return;
      }
      case "DeleteStatement": out.push({ ...p, kind: "Delete", targets: this.items(k.slice(1)) }); return;
      case "PassStatement": out.push({ ...p, kind: "Pass" }); return;
      case "BreakStatement": out.push({ ...p, kind: "Break" }); return;
      case "ContinueStatement": out.push({ ...p, kind: "Continue" }); return;
      case "ReturnStatement": out.push({ ...p, kind: "Return", value: k.length > 1 ? this.exprList(k.slice(1), p) : null }); return;
      case "YieldStatement": {
        this.sawYield();
        const rest = k.slice(1);
        const from = rest[0]?.name === "from";
        const valueNodes = (from ? rest.slice(1) : rest).filter((c) => !c.type.isError);
        out.push({ ...p, kind: "Yield", value: valueNodes.length ? this.exprList(valueNodes, p) : null, from });
        return;
      }
      case "PrintStatement": out.push({ ...p, kind: "Unsupported", construct: "the Python 2 print statement" }); return;
      case "RaiseStatement": {
        const rest = k.slice(1);
        if (rest.some((c) => c.name === ",")) { out.push({ ...p, kind: "Unsupported", construct: "Python 2 raise with a comma" }); return; }
        const fromAt = rest.findIndex((c) => c.name === "from");
        const exc = rest.length ? this.expr(rest[0]) : null;
        const cause = fromAt >= 0 ? this.expr(rest[fromAt + 1]) : null;
        out.push({ ...p, kind: "Raise", exc, cause });
        return;
      }
      case "ImportStatement": out.push(this.importStatement(k, p)); return;
      case "ScopeStatement": {
        const names = k.filter((c) => c.name === "VariableName").map((c) => this.text(c));
        out.push({ ...p, kind: k[0].name === "global" ? "Global" : "Nonlocal", names });
        return;
      }
      case "AssertStatement": {
        const parts = this.items(k.slice(1));
        out.push({ ...p, kind: "Assert", test: parts[0], msg: parts[1] ?? null });
        return;
      }
      case "TypeDefinition": out.push({ ...p, kind: "Unsupported", construct: "the type statement" }); return;
      case "IfStatement": out.push(this.ifStatement(k, p)); return;
      case "WhileStatement": {
        const bodies = k.filter((c) => c.name === "Body");
        if (k[1].name === "NamedExpression") { out.push({ ...p, kind: "Unsupported", construct: "the walrus operator (:=)" }); return; }
        out.push({ ...p, kind: "While", test: this.expr(k[1]), body: this.body(bodies[0]), orelse: this.body(bodies[1]) });
        return;
      }
      case "ForStatement": {
        if (k[0].name === "async") { out.push({ ...p, kind: "Unsupported", construct: "async for" }); return; }
        const inAt = k.findIndex((c) => c.name === "in");
        const bodyAt = k.findIndex((c) => c.name === "Body");
        const bodies = k.filter((c) => c.name === "Body");
        out.push({
          ...p, kind: "For",
          target: this.exprList(k.slice(1, inAt), p),
          iter: this.exprList(k.slice(inAt + 1, bodyAt), p),
          body: this.body(bodies[0]), orelse: this.body(bodies[1]),
        });
        return;
      }
      case "TryStatement": out.push(this.tryStatement(k, p)); return;
      case "WithStatement": {
        if (k[0].name === "async") { out.push({ ...p, kind: "Unsupported", construct: "async with" }); return; }
        const items: { context: Expr; target: Expr | null }[] = [];
        for (let i = 1; i < k.length && k[i].name !== "Body"; i++) {
          if (k[i].name === ",") continue;
          if (k[i].name === "as") { items[items.length - 1].target = this.expr(k[++i]); continue; }
          items.push({ context: this.expr(k[i]), target: null });
        }
        out.push({ ...p, kind: "With", items, body: this.body(k.find((c) => c.name === "Body")) });
        return;
      }
      case "FunctionDefinition": out.push(this.functionDef(n, [])); return;
      case "ClassDefinition": out.push(this.classDef(n, [])); return;
      case "DecoratedStatement": {
        const decorators = k.filter((c) => c.name === "Decorator").map((d) => this.decorator(d));
        const def = k[k.length - 1];
        out.push(def.name === "ClassDefinition" ? this.classDef(def, decorators) : this.functionDef(def, decorators));
        return;
      }
      case "MatchStatement": out.push({ ...p, kind: "Unsupported", construct: "the match statement" }); return;
      default:
        if (n.type.isError) this.syntaxError(n);
        out.push({ ...p, kind: "Unsupported", construct: `the statement '${this.text(n).split("\n")[0]}'` });
    }
  }

  private sawYield(): void { if (this.yieldSeen.length) this.yieldSeen[this.yieldSeen.length - 1] = true; }

  private assign(k: SyntaxNode[], p: Pos): Stmt {
    const groups: SyntaxNode[][] = [[]];
    let annotated = false, annotation: Expr | null = null;
    for (const c of k) {
      if (c.name === "AssignOp") groups.push([]);
      else if (c.name === "TypeDef") { annotated = true; annotation = this.typeDef(c); }
      else groups[groups.length - 1].push(c);
    }
    if (groups.some((g) => g.some((c) => c.name === "YieldExpression"))) { this.sawYield(); return { ...p, kind: "Unsupported", construct: "yield inside an expression (gpsimd runs yield as a statement)" }; }
    const exprs = groups.map((g) => this.exprList(g, p));
    if (annotated) return { ...p, kind: "AnnAssign", target: exprs[0], annotation, value: exprs.length > 1 ? exprs[exprs.length - 1] : null };
    return { ...p, kind: "Assign", targets: exprs.slice(0, -1), value: exprs[exprs.length - 1] };
  }

  private importStatement(k: SyntaxNode[], p: Pos): Stmt {
    const names = (tokens: SyntaxNode[]): ImportName[] => {
      const out: ImportName[] = [];
      let dotted: string[] = [];
      let asname: string | null = null;
      let expectAs = false;
      const flush = () => { if (dotted.length) out.push({ name: dotted.join("."), asname }); dotted = []; asname = null; };
      for (const t of tokens) {
        if (t.name === "VariableName") { if (expectAs) { asname = this.text(t); expectAs = false; } else dotted.push(this.text(t)); }
        else if (t.name === "as") expectAs = true;
        else if (t.name === ",") flush();
      }
      flush();
      return out;
    };
    if (k[0].name === "import") return { ...p, kind: "Import", names: names(k.slice(1)) };
    const importAt = k.findIndex((c) => c.name === "import");
    let level = 0;
    const module: string[] = [];
    for (const t of k.slice(1, importAt)) {
      // leading dots are the relative level; dots after the first name separate its parts
      if (t.name === "." && module.length === 0) level++;
      else if (t.name === "Ellipsis") level += 3;
      else if (t.name === "VariableName") module.push(this.text(t));
    }
    const rest = k.slice(importAt + 1);
    if (rest.length === 1 && rest[0].name === "*") return { ...p, kind: "ImportFrom", module: module.join("."), level, names: "*" };
    return { ...p, kind: "ImportFrom", module: module.join("."), level, names: names(rest) };
  }

  private ifStatement(k: SyntaxNode[], p: Pos): Stmt {
    // if test Body (elif test Body)* (else Body)?
    const branches: { test: Expr; body: Stmt[]; pos: Pos }[] = [];
    let orelse: Stmt[] = [];
    for (let i = 0; i < k.length; i++) {
      const c = k[i];
      if (c.name === "if" || c.name === "elif") {
        const testNode = k[i + 1];
        const test: Expr = testNode.name === "NamedExpression" ? { ...this.pos(testNode.from), kind: "Unsupported", construct: "the walrus operator (:=)" } : this.expr(testNode);
        branches.push({ test, body: this.body(k[i + 2]), pos: this.pos(c.from) });
        i += 2;
      } else if (c.name === "else") { orelse = this.body(k[i + 1]); i++; }
    }
    for (let i = branches.length - 1; i >= 1; i--) {
      orelse = [{ ...branches[i].pos, kind: "If", test: branches[i].test, body: branches[i].body, orelse }];
    }
    return { ...p, kind: "If", test: branches[0].test, body: branches[0].body, orelse };
  }

  private tryStatement(k: SyntaxNode[], p: Pos): Stmt {
    let body: Stmt[] = [], orelse: Stmt[] = [], finalbody: Stmt[] = [];
    const handlers: ExceptHandler[] = [];
    for (let i = 0; i < k.length; i++) {
      const c = k[i];
      if (c.name === "try") { body = this.body(k[++i]); }
      else if (c.name === "except") {
        const hp = this.pos(c.from);
        let j = i + 1;
        if (k[j].name === "*") return { ...hp, kind: "Unsupported", construct: "except*" };
        let type: Expr | null = null, name: string | null = null;
        if (k[j].name !== "Body") { type = this.expr(k[j]); j++; }
        if (k[j].name === "as" || k[j].name === ",") { name = this.text(k[j + 1]); j += 2; }
        handlers.push({ ...hp, type, name, body: this.body(k[j]) });
        i = j;
      } else if (c.name === "else") orelse = this.body(k[++i]);
      else if (c.name === "finally") finalbody = this.body(k[++i]);
    }
    return { ...p, kind: "Try", body, handlers, orelse, finalbody };
  }

  private decorator(d: SyntaxNode): Expr {
    const k = kids(d);
    let e: Expr | null = null;
    for (const c of k) {
      if (c.name === "VariableName") {
        const cp = this.pos(c.from);
        e = e === null ? { ...cp, kind: "Name", id: this.text(c) } : { ...this.pos(d.from + 1), kind: "Attribute", obj: e, name: this.text(c) };
      } else if (c.name === "ArgList" && e) e = this.call(e, c, this.pos(d.from + 1));
    }
    if (!e) this.unsupportedNow(d, "this decorator form");
    return e;
  }

  private functionDef(n: SyntaxNode, decorators: Expr[]): Stmt {
    const k = kids(n);
    const p = this.pos(n.from); // the def line (decorators above it have their own sites)
    const isAsync = k[0].name === "async";
    const name = this.text(k.find((c) => c.name === "VariableName")!);
    const params = this.params(k.find((c) => c.name === "ParamList")!);
    const returnsNode = k.find((c) => c.name === "TypeDef");
    const returns = returnsNode ? this.typeDef(returnsNode) : null;
    this.yieldSeen.push(false);
    const bodyNode = k.find((c) => c.name === "Body");
    const body = this.body(bodyNode);
    const hasYield = this.yieldSeen.pop()!;
    const first = body[0];
    const doc = first && first.kind === "Expr" && first.value.kind === "Const" && typeof first.value.value === "string" ? first.value.value : null;
    const unsupported = isAsync ? "async def" : k.some((c) => c.name === "TypeParamList") ? "type parameters" : null;
    return { ...p, kind: "FunctionDef", name, params, returns, body, decorators, scope: analyzeFunction(params, body), doc, unsupported, generator: hasYield };
  }

  private typeDef(t: SyntaxNode): Expr | null {
    const e = kids(t).filter((c) => c.name !== ":" && c.name !== "->")[0];
    return e ? this.expr(e) : null;
  }

  private classDef(n: SyntaxNode, decorators: Expr[]): Stmt {
    const k = kids(n);
    const p = this.pos(n.from);
    const name = this.text(k.find((c) => c.name === "VariableName")!);
    const argList = k.find((c) => c.name === "ArgList");
    let bases: Expr[] = [], keywords: KeywordArg[] = [];
    if (argList) {
      const call = this.call({ ...p, kind: "Const", value: null }, argList, p);
      if (call.kind === "Call") { bases = call.args; keywords = call.keywords; }
    }
    return { ...p, kind: "ClassDef", name, bases, keywords, body: this.body(k.find((c) => c.name === "Body")), decorators };
  }

  private params(list: SyntaxNode): Param[] {
    const out: Param[] = [];
    let kind: Param["kind"] = "pos";
    let pending: { name: string; kind: Param["kind"] } | null = null;
    let def: Expr | null = null, annotation: Expr | null = null;
    let afterStar = false;
    const flush = () => { if (pending) out.push({ name: pending.name, kind: pending.kind, default: def, annotation }); pending = null; def = null; annotation = null; };
    const tokens = kids(list);
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      switch (t.name) {
        case "(": case ")": break;
        case "TypeDef": annotation = this.typeDef(t); break;
        case ",": flush(); kind = afterStar ? "kwonly" : "pos"; break;
        case "*": afterStar = true; kind = "vararg"; break;
        case "**": kind = "kwarg"; break;
        case "/": break; // positional-only marker: the names stay usable positionally, which is all kernels rely on
        case "VariableName": pending = { name: this.text(t), kind }; break;
        case "AssignOp": def = this.expr(tokens[++i]); break;
        default: break;
      }
    }
    flush();
    return out;
  }

  // ---------------------------------------------------------------- expressions

  /** Splits comma-separated items; "*" before an item makes it Starred. */
  private items(nodes: SyntaxNode[]): Expr[] {
    const out: Expr[] = [];
    let star: SyntaxNode | null = null;
    for (const c of nodes) {
      if (c.name === ",") continue;
      if (c.name === "*") { star = c; continue; }
      const e = this.expr(c);
      out.push(star ? { ...this.pos(star.from), kind: "Starred", value: e } : e);
      star = null;
    }
    return out;
  }

  /** An `expressions` list: one item is itself, several (or a trailing comma) a tuple. */
  private exprList(nodes: SyntaxNode[], p: Pos): Expr {
    const items = this.items(nodes);
    const hasComma = nodes.some((c) => c.name === ",");
    if (!hasComma && items.length === 1 && items[0].kind !== "Starred") return items[0];
    return { ...(items[0] ?? p), kind: "Tuple", items };
  }

  expr(n: SyntaxNode): Expr {
    const p = this.pos(n.from);
    switch (n.name) {
      case "VariableName": return { ...p, kind: "Name", id: this.text(n) };
      case "Number": return this.number(n, p);
      case "String": return { ...p, kind: "Const", value: this.stringLiteral(n) };
      case "FormatString": return { ...p, kind: "FString", parts: this.fstring(n) };
      case "ContinuedString": {
        const parts: FStringPart[] = [];
        for (const c of kids(n)) {
          if (c.name === "String") parts.push(this.stringLiteral(c));
          else parts.push(...this.fstring(c));
        }
        if (parts.every((x) => typeof x === "string")) return { ...p, kind: "Const", value: parts.join("") };
        return { ...p, kind: "FString", parts };
      }
      case "Boolean": return { ...p, kind: "Const", value: this.text(n) === "True" };
      case "None": return { ...p, kind: "Const", value: null };
      case "Ellipsis": return { ...p, kind: "Const", value: Ellipsis };
      case "ParenthesizedExpression": {
        const inner = kids(n).filter((c) => c.name !== "(" && c.name !== ")");
        if (inner.some((c) => c.name === "YieldExpression")) { this.sawYield(); return { ...p, kind: "Unsupported", construct: "yield inside an expression (gpsimd runs yield as a statement)" }; }
        if (inner[0]?.name === "*") return this.unsupportedNow(n, "a starred expression in parentheses");
        return this.expr(inner[0]);
      }
      case "TupleExpression": return { ...p, kind: "Tuple", items: this.items(inner(n)) };
      case "ArrayExpression": return { ...p, kind: "List", items: this.items(inner(n)) };
      case "SetExpression": return { ...p, kind: "Set", items: this.items(inner(n)) };
      case "DictionaryExpression": return this.dict(inner(n), p);
      case "ComprehensionExpression": return this.comprehension("gen", inner(n), p);
      case "ArrayComprehensionExpression": return this.comprehension("list", inner(n), p);
      case "SetComprehensionExpression": return this.comprehension("set", inner(n), p);
      case "DictionaryComprehensionExpression": return this.comprehension("dict", inner(n), p);
      case "CallExpression": {
        const k = kids(n);
        return this.call(this.expr(k[0]), k[1], p);
      }
      case "MemberExpression": {
        const k = kids(n);
        if (isTrailingDotFloat(n)) return { ...p, kind: "Const", value: pyFloat(Number(this.text(k[0]).replace(/_/g, ""))) };
        const obj = this.expr(k[0]);
        if (k[1].name === ".") return { ...p, kind: "Attribute", obj, name: this.text(k[2]) };
        return { ...p, kind: "Subscript", obj, index: this.subscript(k.slice(2, -1), p) };
      }
      case "BinaryExpression": return this.binary(n, p);
      case "UnaryExpression": {
        const k = kids(n);
        const op = k[0].name === "not" ? "not" : (this.text(k[0]) as "-" | "+" | "~");
        return { ...p, kind: "UnaryOp", op, operand: this.expr(k[1]) };
      }
      case "ConditionalExpression": {
        const k = kids(n);
        return { ...p, kind: "IfExp", body: this.expr(k[0]), test: this.expr(k[2]), orelse: this.expr(k[4]) };
      }
      case "LambdaExpression": {
        const k = kids(n);
        const params = this.params(k[1]);
        const body = this.expr(k[k.length - 1]);
        return { ...p, kind: "Lambda", params, body, scope: analyzeFunction(params, [{ ...p, kind: "Return", value: body }]) };
      }
      case "AwaitExpression": return { ...p, kind: "Unsupported", construct: "await" };
      case "YieldExpression": this.sawYield(); return { ...p, kind: "Unsupported", construct: "yield inside an expression (gpsimd runs yield as a statement)" };
      case "NamedExpression": return { ...p, kind: "Unsupported", construct: "the walrus operator (:=)" };
      default:
        if (n.type.isError) this.syntaxError(n);
        return { ...p, kind: "Unsupported", construct: `the expression '${this.text(n)}'` };
    }
  }

  private number(n: SyntaxNode, p: Pos): Expr {
    const t = this.text(n).replace(/_/g, "");
    if (/[jJ]$/.test(t)) return { ...p, kind: "Unsupported", construct: "complex numbers" };
    if (/^0[xob]/i.test(t)) {
      const v = Number(t.toLowerCase());
      if (!Number.isSafeInteger(v)) return { ...p, kind: "Unsupported", construct: `the integer ${t} (beyond 2**53)` };
      return { ...p, kind: "Const", value: v };
    }
    if (/[.eE]/.test(t)) return { ...p, kind: "Const", value: pyFloat(Number(t)) };
    const v = Number(t);
    if (!Number.isSafeInteger(v)) return { ...p, kind: "Unsupported", construct: `the integer ${t} (beyond 2**53)` };
    return { ...p, kind: "Const", value: v };
  }

  private stringLiteral(n: SyntaxNode): string {
    const t = this.text(n);
    const m = /^([a-zA-Z]*)('''|"""|'|")/.exec(t)!;
    const prefix = m[1].toLowerCase(), quote = m[2];
    const body = t.slice(m[0].length, t.length - quote.length);
    return prefix.includes("r") ? body : unescape(body);
  }

  private fstring(n: SyntaxNode): FStringPart[] {
    const t = this.text(n);
    const m = /^([a-zA-Z]*)('''|"""|'|")/.exec(t)!;
    const raw = m[1].toLowerCase().includes("r");
    const start = n.from + m[0].length, end = n.to - m[2].length;
    return this.fstringParts(n, start, end, raw);
  }

  /** Literal text and replacement fields between offsets start and end (a string body or a format spec). */
  private fstringParts(n: SyntaxNode, start: number, end: number, raw: boolean): FStringPart[] {
    const parts: FStringPart[] = [];
    let at = start;
    const literal = (to: number) => {
      if (to <= at) return;
      let s = this.src.slice(at, to).replace(/\{\{/g, "{").replace(/\}\}/g, "}");
      if (!raw) s = unescape(s);
      parts.push(s);
    };
    for (const c of kids(n)) {
      if (c.name !== "FormatReplacement") continue;
      literal(c.from);
      parts.push(this.replacement(c, raw));
      at = c.to;
    }
    literal(end);
    return parts;
  }

  private replacement(n: SyntaxNode, raw: boolean): FStringPart {
    const k = kids(n).filter((c) => c.name !== "{" && c.name !== "}");
    const exprNodes: SyntaxNode[] = [];
    let conversion: "s" | "r" | "a" | null = null, spec: FStringPart[] | null = null, selfDoc: string | null = null;
    for (const c of k) {
      if (c.name === "FormatConversion") conversion = this.text(c).slice(1) as "s" | "r" | "a";
      else if (c.name === "FormatSpec") spec = this.fstringParts(c, c.from + 1, c.to, raw);
      else if (c.name === "FormatSelfDoc") selfDoc = this.src.slice(n.from + 1, c.to);
      else exprNodes.push(c);
    }
    const value = this.exprList(exprNodes, this.pos(n.from));
    if (selfDoc !== null && conversion === null && spec === null) conversion = "r";
    return { value, conversion, spec, selfDoc };
  }

  private dict(nodes: SyntaxNode[], p: Pos): Expr {
    const keys: (Expr | null)[] = [], values: Expr[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const c = nodes[i];
      if (c.name === ",") continue;
      if (c.name === "**") { keys.push(null); values.push(this.expr(nodes[++i])); continue; }
      keys.push(this.expr(c));
      values.push(this.expr(nodes[i + 2]));
      i += 2;
    }
    return { ...p, kind: "Dict", keys, values };
  }

  private comprehension(comp: "list" | "set" | "gen" | "dict", nodes: SyntaxNode[], p: Pos): Expr {
    const forAt = nodes.findIndex((c) => c.name === "for" || c.name === "async");
    if (nodes[forAt].name === "async") return { ...p, kind: "Unsupported", construct: "async comprehensions" };
    const head = nodes.slice(0, forAt);
    if (head[0].name === "*" || head[0].name === "**") return this.unsupportedNow(head[0], "a starred comprehension element");
    const elt = this.expr(head[0]);
    const value = comp === "dict" ? this.expr(head[2]) : null;
    const generators = this.compClauses(nodes.slice(forAt), p);
    const targets: Expr[] = generators.map((g) => g.target);
    return { ...p, kind: "Comp", comp, elt, value, generators, scope: analyzeNames(targets) };
  }

  /** for a in b if c for d in e ... */
  private compClauses(nodes: SyntaxNode[], p: Pos): Comprehension[] {
    const out: { target: Expr; iter: Expr; ifs: Expr[] }[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const c = nodes[i];
      if (c.name === "for") {
        const inAt = nodes.findIndex((x, j) => j > i && x.name === "in");
        const target = this.exprList(nodes.slice(i + 1, inAt), p);
        const iter = this.expr(nodes[inAt + 1]);
        out.push({ target, iter, ifs: [] });
        i = inAt + 1;
      } else if (c.name === "if") {
        out[out.length - 1].ifs.push(this.expr(nodes[i + 1]));
        i++;
      } else if (c.name === "async") return [{ target: { ...p, kind: "Unsupported", construct: "async for" }, iter: { ...p, kind: "Unsupported", construct: "async for" }, ifs: [] }];
    }
    return out;
  }

  private call(func: Expr, argList: SyntaxNode, p: Pos): Expr {
    const nodes = inner(argList);
    const args: Expr[] = [], keywords: KeywordArg[] = [];
    // f(x for k, v in items): an unparenthesized generator is the call's only argument (its target may hold commas)
    if (nodes.some((c) => c.name === "for")) return { ...p, kind: "Call", func, args: [this.comprehension("gen", nodes, this.pos(nodes[0].from))], keywords };
    // split on top-level commas
    const groups: SyntaxNode[][] = [[]];
    for (const c of nodes) { if (c.name === ",") groups.push([]); else groups[groups.length - 1].push(c); }
    for (const g of groups) {
      if (g.length === 0) continue;
      if (g[0].name === "*") args.push({ ...this.pos(g[0].from), kind: "Starred", value: this.expr(g[1]) });
      else if (g[0].name === "**") keywords.push({ name: null, value: this.expr(g[1]) });
      else if (g.length >= 3 && g[1].name === "AssignOp") {
        if (this.text(g[1]) === ":=") args.push({ ...this.pos(g[0].from), kind: "Unsupported", construct: "the walrus operator (:=)" });
        else keywords.push({ name: this.text(g[0]), value: this.expr(g[2]) });
      } else if (g.length > 1 && g[1].name === "for") args.push(this.comprehension("gen", g, this.pos(g[0].from)));
      else args.push(this.expr(g[0]));
    }
    return { ...p, kind: "Call", func, args, keywords };
  }

  private subscript(nodes: SyntaxNode[], p: Pos): Expr {
    const groups: SyntaxNode[][] = [[]];
    for (const c of nodes) { if (c.name === ",") groups.push([]); else groups[groups.length - 1].push(c); }
    const trailingComma = groups.length > 1 && groups[groups.length - 1].length === 0;
    if (trailingComma) groups.pop();
    const items = groups.map((g): Expr => {
      if (!g.some((c) => c.name === ":")) {
        if (g[0]?.name === "*") return { ...this.pos(g[0].from), kind: "Starred", value: this.expr(g[1]) };
        return this.expr(g[0]);
      }
      const sp = this.pos(g[0].from);
      const slots: (Expr | null)[] = [null, null, null];
      let slot = 0;
      for (const c of g) { if (c.name === ":") slot++; else slots[slot] = this.expr(c); }
      return { ...sp, kind: "Slice", lower: slots[0], upper: slots[1], step: slots[2] };
    });
    if (items.length === 1 && !trailingComma) return items[0];
    return { ...(items[0] ?? p), kind: "Tuple", items };
  }

  private binary(n: SyntaxNode, p: Pos): Expr {
    const k = kids(n);
    const left = k[0];
    const opNodes = k.slice(1, -1);
    const right = this.expr(k[k.length - 1]);
    const opText = opNodes.map((o) => this.text(o)).join(" ");
    if (opText === "and" || opText === "or") return { ...p, kind: "BoolOp", op: opText, left: this.expr(left), right };
    const cmp: Record<string, CmpOpName> = { "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!=", "<>": "!=", in: "in", "not in": "not in", is: "is", "is not": "is not" };
    const cmpOp = opNodes[0].name === "ArithOp" || opNodes[0].name === "BitOp" ? undefined : cmp[opText];
    if (cmpOp) {
      const l = this.expr(left);
      // a < b < c: lezer nests the first comparison on the left; Python chains them.
      if (l.kind === "Compare" && left.name === "BinaryExpression") return { ...p, kind: "Compare", left: l.left, ops: [...l.ops, cmpOp], comparators: [...l.comparators, right] };
      return { ...p, kind: "Compare", left: l, ops: [cmpOp], comparators: [right] };
    }
    return { ...p, kind: "BinOp", op: opText as BinOpName, left: this.expr(left), right };
  }
}

/** `2.` (a float with nothing after the point): lezer reads it as member access missing its name. */
function isTrailingDotFloat(member: SyntaxNode): boolean {
  const num = member.firstChild, dot = num?.nextSibling;
  if (!num || !dot || num.name !== "Number" || dot.name !== "." || num.to !== dot.from) return false;
  const after = dot.nextSibling;
  return !after || (after.type.isError && after.from === after.to);
}

/** lezer error nodes that stand for valid Python lezer's grammar lacks: `2.` and a bare `yield`. */
function tolerated(err: SyntaxNode): boolean {
  const parent = err.parent;
  if (!parent || err.from !== err.to) return false;
  if (parent.name === "MemberExpression") return isTrailingDotFloat(parent);
  return parent.name === "YieldStatement" || parent.name === "YieldExpression";
}

function kids(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = n.firstChild; c; c = c.nextSibling) if (c.name !== "Comment") out.push(c);
  return out;
}

/** Children between the opening and closing bracket. */
function inner(n: SyntaxNode): SyntaxNode[] {
  const k = kids(n);
  return k.slice(1, k[k.length - 1] && [")", "]", "}"].includes(k[k.length - 1].name) ? -1 : undefined);
}

const simpleEscapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", v: "\v", "\n": "" };

function unescape(s: string): string {
  if (!s.includes("\\")) return s;
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\r\n|[\s\S])/g, (all, e: string) => {
    if (e in simpleEscapes) return simpleEscapes[e];
    if (e === "\r\n") return "";
    if (/^[xuU]/.test(e) && e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return all;
  });
}

export { unescape as unescapePythonString };
