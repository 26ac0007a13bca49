// Finds the exported kernel functions of AssemblyScript sources and the kind
// of each parameter, so the host can check calls before entering WebAssembly
// and name arguments in errors. Uses TypeScript's parser (AssemblyScript
// syntax is TypeScript syntax); nothing is type-checked here.
import { typescript } from "./typescript.js";

/** Kinds of kernel parameters, as in the C++ API: tensors, double, int64_t (and the narrower scalars). */
export type ParamKind = "tensor" | "f64" | "f32" | "i64" | "i32" | "bool";

/** One kernel parameter. */
export interface KernelParam { name: string; kind: ParamKind; }

/** One exported kernel function. */
export interface KernelSignature {
  name: string;
  params: KernelParam[];
  returnsTensor: boolean;
  file: string;
  line: number;
}

const KINDS: Record<string, ParamKind> = {
  Tensor: "tensor", f64: "f64", f32: "f32", i64: "i64", u64: "i64", isize: "i64", i32: "i32", u32: "i32", usize: "i32",
  i16: "i32", u16: "i32", i8: "i32", u8: "i32", bool: "bool",
};

/** A problem with a kernel's signature, with its place. */
export interface SignatureProblem { file: string; line: number; message: string; }

/** The exported functions of one source file. */
export function kernelSignatures(file: string, text: string): { kernels: KernelSignature[]; problems: SignatureProblem[] } {
  const ts = typescript();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const kernels: KernelSignature[] = [];
  const problems: SignatureProblem[] = [];
  for (const stmt of source.statements) {
    if (!ts.isFunctionDeclaration(stmt) || !stmt.name) continue;
    if (!stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    const line = source.getLineAndCharacterOfPosition(stmt.getStart()).line + 1;
    const params: KernelParam[] = [];
    for (const p of stmt.parameters) {
      const typeText = p.type?.getText(source) ?? "";
      const kind = KINDS[typeText];
      if (!kind) {
        problems.push({ file, line: source.getLineAndCharacterOfPosition(p.getStart()).line + 1, message: `kernel ${stmt.name.text}: parameter '${p.name.getText(source)}' has type '${typeText || "(none)"}'; kernel parameters are Tensor, f64 (double), i64 (int64_t), or f32/i32/bool` });
        continue;
      }
      params.push({ name: p.name.getText(source), kind });
    }
    kernels.push({ name: stmt.name.text, params, returnsTensor: stmt.type?.getText(source) === "Tensor", file, line });
  }
  return { kernels, problems };
}
