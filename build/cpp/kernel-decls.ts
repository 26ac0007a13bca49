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
// The declaration starts after a newline, ';' or '}' and blanks of its own line only: a `\s*` there would make every
// newline of a run of blank (or blanked comment) lines scan the whole run again, quadratic in its length.
const KERNEL = /(^|[;}\n])[ \t\r\f\v]*((?:static\s+|inline\s+)*(?:torch::|at::)?Tensor)\s+([A-Za-z_]\w*)\s*\(([^()]*)\)\s*\{/g;

/** The kernels defined in one C++ source (in time linear in its length). */
export function cppKernels(file: string, text: string): { kernels: CppKernel[]; problems: CppKernelProblem[] } {
  const code = blankComments(text);
  const kernels: CppKernel[] = [];
  const problems: CppKernelProblem[] = [];
  // Unbalanced braces (a syntax error) make depths meaningless: every declaration at a line's start counts, and clang,
  // compiling the source, names the error at its line.
  const balanced = depthAt(code, code.length) === 0;
  const depth = forwardCounter(code, (c) => (c === 123 ? 1 : c === 125 ? -1 : 0)); // '{' and '}'
  const lines = forwardCounter(code, (c) => (c === 10 ? 1 : 0));
  for (const m of code.matchAll(KERNEL)) {
    const at = m.index + m[1].length;
    if (balanced && depth(at) !== 0) continue; // a method or a nested block, not a kernel
    if (/\bstatic\b/.test(m[2])) continue; // internal linkage: not callable as an operator
    if (/\btemplate\s*<[^;{}]*>\s*$/.test(code.slice(Math.max(0, at - 300), at))) continue; // a template: kernels are its instances' callers
    const name = m[3];
    const line = 1 + lines(at + m[0].slice(m[1].length).search(/\S/));
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

/**
 * The text with comments and string and character literals blanked (lines and columns kept): one pass over the
 * characters (a replace callback per comment takes seconds for a source of millions of comment lines).
 */
function blankComments(text: string): string {
  const n = text.length;
  const out = new Uint16Array(n);
  const SPACE = 32, NL = 10, SLASH = 47, STAR = 42, BACKSLASH = 92, DQ = 34, SQ = 39;
  for (let i = 0; i < n;) {
    const c = text.charCodeAt(i);
    const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
    if (c === SLASH && next === SLASH) { // a line comment, to the end of the line
      while (i < n && text.charCodeAt(i) !== NL) out[i++] = SPACE;
    } else if (c === SLASH && next === STAR) { // a block comment (unterminated: to the end of the text)
      out[i] = out[i + 1] = SPACE;
      i += 2;
      while (i < n && !(text.charCodeAt(i) === STAR && text.charCodeAt(i + 1) === SLASH)) { out[i] = text.charCodeAt(i) === NL ? NL : SPACE; i++; }
      if (i < n) { out[i] = out[i + 1] = SPACE; i += 2; }
    } else if (c === DQ || c === SQ) { // a literal, ending at its quote or (unterminated) at the line's end
      out[i++] = SPACE;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === NL) break;
        out[i++] = SPACE;
        if (d === c) break;
        if (d === BACKSLASH && i < n && text.charCodeAt(i) !== NL) out[i++] = SPACE;
      }
    } else {
      out[i++] = c;
    }
  }
  return new TextDecoder("utf-16le").decode(out);
}

function depthAt(code: string, at: number): number {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    if (code[i] === "{") depth++;
    else if (code[i] === "}") depth--;
  }
  return depth;
}

/**
 * A running sum of step(char) over text[0, at) for increasing `at` (the matches come in order): each character is
 * counted once, where a fresh count per match would make a source with many matches quadratic.
 */
function forwardCounter(text: string, step: (charCode: number) => number): (at: number) => number {
  let pos = 0, sum = 0;
  return (at) => {
    if (at < pos) { pos = 0; sum = 0; }
    for (; pos < at; pos++) sum += step(text.charCodeAt(pos));
    return sum;
  };
}

/** Source extensions that make a compute source C++. */
export const CPP_EXTENSIONS = [".cpp", ".cc", ".cxx"];
/** Whether a file is a C++ source. */
export function isCppSource(file: string): boolean { return CPP_EXTENSIONS.includes(path.extname(file).toLowerCase()); }
