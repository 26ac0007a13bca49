// Finds the kernels of C++ compute sources: the top-level functions that
// return torch::Tensor, with the kind of each parameter (Tensor, double,
// int64_t, torch::Scalar). A declaration scan, not a parser: kernels are
// plain C++ functions, as on the device; clang checks everything else.
import path from "node:path";
import type { KernelSignature, KernelParam, ParamKind } from "../signatures.js";

/** A kernel with the text clang needs to declare it again (its parameter list as written). */
export interface CppKernel extends KernelSignature { paramsText: string; returnText: string; }

/** A parameter whose type is not a kernel parameter type. */
export interface CppKernelProblem { file: string; line: number; message: string; }

// `torch::Tensor name(params) {` at the top level (params without parentheses: no function-pointer parameters).
const KERNEL = /(^|[;}\n])\s*((?:static\s+|inline\s+)*(?:torch::|at::)?Tensor)\s+([A-Za-z_]\w*)\s*\(([^()]*)\)\s*\{/g;

/** The kernels defined in one C++ source. */
export function cppKernels(file: string, text: string): { kernels: CppKernel[]; problems: CppKernelProblem[] } {
  const code = blankComments(text);
  const kernels: CppKernel[] = [];
  const problems: CppKernelProblem[] = [];
  for (const m of code.matchAll(KERNEL)) {
    const at = m.index + m[1].length;
    if (depthAt(code, at) !== 0) continue; // a method or a nested block, not a kernel
    if (/\bstatic\b/.test(m[2])) continue; // internal linkage: not callable as an operator
    if (/\btemplate\s*<[^;{}]*>\s*$/.test(code.slice(Math.max(0, at - 300), at))) continue; // a template: kernels are its instances' callers
    const name = m[3];
    const line = lineOf(code, at + m[0].slice(m[1].length).search(/\S/));
    const params: KernelParam[] = [];
    const raw = m[4].trim();
    const list = raw === "" || raw === "void" ? [] : raw.split(",");
    list.forEach((p, i) => {
      const decl = p.replace(/=.*$/s, "").trim();
      const nameMatch = /([A-Za-z_]\w*)\s*$/.exec(decl);
      const type = nameMatch && !/^(?:const\s+)?(?:torch::|at::|std::)?\w+$/.test(decl) ? decl.slice(0, nameMatch.index).trim() : decl;
      const kind = kindOf(type);
      if (!kind) {
        problems.push({ file, line, message: `kernel ${name}: parameter ${i + 1} has type '${type}'; kernel parameters are torch::Tensor, double, int64_t or torch::Scalar` });
        return;
      }
      params.push({ name: nameMatch && type !== decl ? nameMatch[1] : `arg${i}`, kind });
    });
    kernels.push({ name, params, returnsTensor: true, file, line, paramsText: m[4], returnText: m[2].replace(/\b(?:static|inline)\s+/g, "") });
  }
  return { kernels, problems };
}

function kindOf(type: string): ParamKind | null {
  const t = type.replace(/\bconst\b|&/g, "").replace(/\s+/g, " ").trim();
  if (/^(?:torch::|at::)?Tensor$/.test(t)) return "tensor";
  if (/^(?:torch::|at::|c10::)?Scalar$/.test(t) || t === "double" || t === "float") return "f64";
  if (/^(?:std::)?(?:u?int64_t|int32_t|uint32_t)$|^(?:unsigned )?(?:long long|long|int)$/.test(t)) return "i64";
  if (t === "bool") return "bool";
  return null;
}

/** The text with comments and string contents blanked (lines and columns kept). */
function blankComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, (s) => s.replace(/[^\n]/g, " "));
}

function depthAt(code: string, at: number): number {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    if (code[i] === "{") depth++;
    else if (code[i] === "}") depth--;
  }
  return depth;
}

function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Source extensions that make a compute source C++. */
export const CPP_EXTENSIONS = [".cpp", ".cc", ".cxx"];
/** Whether a file is a C++ source. */
export function isCppSource(file: string): boolean { return CPP_EXTENSIONS.includes(path.extname(file).toLowerCase()); }
