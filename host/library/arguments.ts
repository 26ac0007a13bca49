// Checks an operator call against its kernel's signature before anything
// runs: how many arguments, of which kind (tensor, double, int64_t), and that
// tensors are alive. Converts scalars to what the WebAssembly export takes.
import { ArgumentError } from "../checks/errors.js";
import { Tensor, checkDeviceLimits, metaTensorOf } from "../device/tensor.js";
import type { KernelSignature, KernelParam } from "../../build/signatures.js";
import { isCppSource } from "../../build/cpp/kernel-decls.js";

/** The checked arguments: tensors in their slots (null for scalars), and raw scalars (null for tensors). */
export interface CheckedArguments { tensors: (Tensor | null)[]; scalars: (number | bigint | null)[]; }

const KIND_NAMES: Record<KernelParam["kind"], string> = { tensor: "Tensor", f64: "f64 (double)", f32: "f32", i64: "i64 (int64_t)", i32: "i32", bool: "bool" };

/** The kinds as a C++ kernel declares them (an f64 may be written float or torch::Scalar too: double says what crosses). */
const CPP_KIND_NAMES: Record<KernelParam["kind"], string> = { tensor: "torch::Tensor", f64: "double", f32: "float", i64: "int64_t", i32: "int32_t", bool: "bool" };

/** A parameter in its kernel's language: "eps: f64" (AssemblyScript), "double eps" (C++). */
export function paramText(k: KernelSignature, p: KernelParam): string {
  return isCppSource(k.file) ? `${CPP_KIND_NAMES[p.kind]} ${p.name}` : `${p.name}: ${KIND_NAMES[p.kind].split(" ")[0]}`;
}

/** A parameter's type in its kernel's language: "f64" (AssemblyScript), "double" (C++). */
export function paramTypeText(k: KernelSignature, p: KernelParam): string {
  return isCppSource(k.file) ? CPP_KIND_NAMES[p.kind] : KIND_NAMES[p.kind].split(" ")[0];
}

/** "relu_forward(t_in: Tensor)"; a C++ kernel's in C++: "layer_norm(torch::Tensor x, double eps)". */
export function signatureText(k: KernelSignature): string {
  return `${k.name}(${k.params.map((p) => paramText(k, p)).join(", ")})`;
}

function describeValue(v: unknown): string {
  if (v instanceof Tensor) return `a tensor ${v.describe()}`;
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`;
}

/**
 * What a shape function (and gpsimd check's reference) receives for a call's arguments: each tensor as a meta
 * tensor (sizes and dtype, no data), each scalar as a number. An int64_t given as a bigint becomes the nearest
 * number (exact up to 2^53), so shape functions see one type whichever way the operator was called; the kernel
 * still gets the exact int64 value.
 */
export function shapeArguments(args: readonly unknown[]): unknown[] {
  return args.map((a) => (a instanceof Tensor ? metaTensorOf(a) : typeof a === "bigint" ? Number(a) : a));
}

/** Checks args against the kernel's parameters; throws ArgumentError naming the operator, the argument and what was expected. */
export function checkArguments(op: string, kernel: KernelSignature, args: unknown[]): CheckedArguments {
  const params = kernel.params;
  if (args.length !== params.length) {
    throw new ArgumentError("E_ARG_COUNT", `${op} expects ${params.length} argument${params.length === 1 ? "" : "s"}, ${signatureText(kernel)}, but got ${args.length}`, { op, details: { expected: params.length, got: args.length } });
  }
  // A plain loop, with errors made only when thrown: every call comes through here.
  const tensors = new Array<Tensor | null>(params.length);
  const scalars = new Array<number | bigint | null>(params.length);
  for (let i = 0; i < params.length; i++) {
    const p = params[i], v = args[i];
    if (p.kind === "tensor") {
      if (!(v instanceof Tensor)) throw badArgument(op, kernel, i, v, "a Tensor");
      if (v.is_meta) throw new ArgumentError("E_ARG_META", `${op}: argument ${i} '${p.name}' is a shape-function (meta) tensor without data`, { op, details: { index: i } });
      if (v.disposed) throw new ArgumentError("E_ARG_DISPOSED", `${op}: argument ${i} '${p.name}' (${v.describe()}) was disposed`, { op, details: { index: i } });
      checkDeviceLimits(v, `${op}: argument ${i} '${p.name}'`, op);
      tensors[i] = v; scalars[i] = null;
      continue;
    }
    tensors[i] = null;
    scalars[i] = scalarArgument(op, kernel, i, v);
  }
  return { tensors, scalars };
}

/** Argument i, a scalar, as the WebAssembly export takes it. */
function scalarArgument(op: string, kernel: KernelSignature, i: number, v: unknown): number | bigint {
  const p = kernel.params[i];
  if (p.kind === "bool") {
    if (typeof v !== "boolean") throw badArgument(op, kernel, i, v, "a boolean");
    return v ? 1 : 0;
  }
  if (p.kind === "i64") {
    if (typeof v === "bigint") {
      if (BigInt.asIntN(64, v) !== v) throw badArgument(op, kernel, i, v, "an integer in the int64_t range [-2^63, 2^63)");
      return v;
    }
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw badArgument(op, kernel, i, v, "an integer (number or bigint) for int64_t");
    return BigInt(v);
  }
  if (p.kind === "i32") {
    if (typeof v !== "number" || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 32) throw badArgument(op, kernel, i, v, "a 32-bit integer");
    return v | 0;
  }
  if (typeof v !== "number") throw badArgument(op, kernel, i, v, "a number");
  return v;
}

/** "argument 0 'x' must be a Tensor, got number 3 (kernel ...)" */
function badArgument(op: string, kernel: KernelSignature, i: number, v: unknown, expected: string): ArgumentError {
  const p = kernel.params[i];
  return new ArgumentError("E_ARG_KIND", `${op}: argument ${i} '${p.name}' must be ${expected}, got ${describeValue(v)} (kernel ${signatureText(kernel)})`, { op, details: { index: i, name: p.name, expected: p.kind } });
}
