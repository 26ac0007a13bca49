// The small typed syntax tree the interpreter walks, built once per file from lezer's concrete
// tree (parse.ts). Every node carries its 1-based line and column so errors can name them.

import type { PyValue } from "./values.js";

export interface Pos { readonly line: number; readonly column: number }

export type BinOpName = "+" | "-" | "*" | "/" | "//" | "%" | "**" | "@" | "&" | "|" | "^" | "<<" | ">>";
export type CmpOpName = "<" | "<=" | ">" | ">=" | "==" | "!=" | "in" | "not in" | "is" | "is not";

export interface Param {
  readonly name: string;
  /** pos: ordinary; vararg: *args; kwonly: after * or *args; kwarg: **kwargs. */
  readonly kind: "pos" | "vararg" | "kwonly" | "kwarg";
  readonly default: Expr | null;
  /** `name: annotation`: evaluated when the def runs, as Python does (unless `from __future__ import annotations`). */
  readonly annotation: Expr | null;
}

/** The names a function (or lambda, or comprehension) binds locally, found before it runs. */
export interface ScopeInfo {
  readonly locals: Set<string>;
  readonly globals: Set<string>;
  readonly nonlocals: Set<string>;
}

export interface Comprehension { readonly target: Expr; readonly iter: Expr; readonly ifs: Expr[] }

export interface KeywordArg { readonly name: string | null; readonly value: Expr } // name null: **mapping

export type FStringPart = string | { readonly value: Expr; readonly conversion: "s" | "r" | "a" | null; readonly spec: FStringPart[] | null; readonly selfDoc: string | null };

export type Expr = Pos & (
  | { kind: "Name"; id: string }
  | { kind: "Const"; value: PyValue }
  | { kind: "FString"; parts: FStringPart[] }
  | { kind: "Tuple"; items: Expr[] }
  | { kind: "List"; items: Expr[] }
  | { kind: "Set"; items: Expr[] }
  | { kind: "Dict"; keys: (Expr | null)[]; values: Expr[] }
  | { kind: "Starred"; value: Expr }
  | { kind: "Attribute"; obj: Expr; name: string }
  | { kind: "Subscript"; obj: Expr; index: Expr }
  | { kind: "Slice"; lower: Expr | null; upper: Expr | null; step: Expr | null }
  | { kind: "Call"; func: Expr; args: Expr[]; keywords: KeywordArg[] }
  | { kind: "BinOp"; op: BinOpName; left: Expr; right: Expr }
  | { kind: "UnaryOp"; op: "-" | "+" | "~" | "not"; operand: Expr }
  | { kind: "BoolOp"; op: "and" | "or"; left: Expr; right: Expr }
  | { kind: "Compare"; left: Expr; ops: CmpOpName[]; comparators: Expr[] }
  | { kind: "IfExp"; test: Expr; body: Expr; orelse: Expr }
  | { kind: "Lambda"; params: Param[]; body: Expr; scope: ScopeInfo }
  | { kind: "Comp"; comp: "list" | "set" | "gen" | "dict"; elt: Expr; value: Expr | null; generators: Comprehension[]; scope: ScopeInfo }
  | { kind: "Unsupported"; construct: string }
);

export interface ExceptHandler extends Pos { readonly type: Expr | null; readonly name: string | null; readonly body: Stmt[] }

export interface ImportName { readonly name: string; readonly asname: string | null }

export type Stmt = Pos & (
  | { kind: "Expr"; value: Expr }
  | { kind: "Assign"; targets: Expr[]; value: Expr }
  | { kind: "AnnAssign"; target: Expr; annotation: Expr | null; value: Expr | null }
  | { kind: "AugAssign"; target: Expr; op: BinOpName; value: Expr }
  | { kind: "Pass" }
  | { kind: "Break" }
  | { kind: "Continue" }
  | { kind: "Return"; value: Expr | null }
  | { kind: "Raise"; exc: Expr | null; cause: Expr | null }
  | { kind: "Import"; names: ImportName[] }
  | { kind: "ImportFrom"; module: string; level: number; names: ImportName[] | "*" }
  | { kind: "Global"; names: string[] }
  | { kind: "Nonlocal"; names: string[] }
  | { kind: "Assert"; test: Expr; msg: Expr | null }
  | { kind: "Delete"; targets: Expr[] }
  | { kind: "If"; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | { kind: "While"; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | { kind: "For"; target: Expr; iter: Expr; body: Stmt[]; orelse: Stmt[] }
  | { kind: "Try"; body: Stmt[]; handlers: ExceptHandler[]; orelse: Stmt[]; finalbody: Stmt[] }
  | { kind: "With"; items: { context: Expr; target: Expr | null }[]; body: Stmt[] }
  | { kind: "FunctionDef"; name: string; params: Param[]; returns: Expr | null; body: Stmt[]; decorators: Expr[]; scope: ScopeInfo; doc: string | null; unsupported: string | null; generator: boolean }
  | { kind: "Yield"; value: Expr | null; from: boolean }
  | { kind: "ClassDef"; name: string; bases: Expr[]; keywords: KeywordArg[]; body: Stmt[]; decorators: Expr[] }
  | { kind: "Unsupported"; construct: string }
);

export interface Module { readonly file: string; readonly source: string; readonly body: Stmt[] }
