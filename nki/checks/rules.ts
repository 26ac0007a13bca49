// What NKI's compiler rejects though Python would run it, rejected at the same line with the rule
// named (NkiRuleError E_NKI_RULE, details.rule). Each rule and the NKI document it comes from is listed
// in docs/nki.md, "Compiler rules". The machine and the language call the functions below at the
// points where a kernel breaks a rule; BufferRuleCheck follows the instruction stream (recorder.ts).
import { NkiRuleError } from "../../host/checks/errors.js";
import { HostObject, type CallContext, type PyValue, type SourceSite } from "../python/values.js";
import { atSite, errorDetails } from "../machine/site.js";
import type { InstructionEvent, RunConsumer } from "./recorder.js";

export type RuleName = "tile-control-flow" | "compile-time-int" | "sbuf-only-output" | "engine" | "engine-buffer";

export const RULES: Readonly<Record<RuleName, { readonly title: string; readonly source: string }>> = {
  "tile-control-flow": {
    title: "control flow (if, while, and/or/not, bool()) is evaluated when the kernel is compiled, where a tile's values are not known",
    source: "nki/get-started/nki-language-guide.rst, Control Flow (\"they are all evaluated at specialization time\"); nki/api/nki/isa/__init__.py, register notes (a device value in Python control flow raises TypeError)",
  },
  "compile-time-int": {
    title: "loop bounds, shapes and sizes are compile-time ints; a tile's value (data) cannot be one",
    source: "nki/deep-dives/nki-dynamic-loops.rst (affine_range, sequential_range and static_range require compile-time constant bounds; runtime trip counts need nl.dynamic_range with a register)",
  },
  "sbuf-only-output": {
    title: "iota and affine_select run on GpSimdE, which cannot access PSUM: their tiles must be in SBUF",
    source: "nki/api/nki/isa/__init__.py, iota and affine_select (\"The output dst tile must be in SBUF\"); nki/guides/architecture/trainium_inferentia2_arch.rst (GpSimd cannot access PSUM)",
  },
  // Each instruction's own source is in engines.ts (ENGINE_RULES); these are the general statements.
  "engine": {
    title: "an instruction's engine= must be one of the engines the ISA reference lists for it, able to run its operator",
    source: "nki/api/nki/isa/__init__.py, the engine parameter of each instruction",
  },
  "engine-buffer": {
    title: "the engine chosen with engine= must reach the instruction's tiles: GpSimd Engine cannot access PSUM, a Tensor Engine transpose reads SBUF and writes PSUM",
    source: "nki/api/nki/isa/__init__.py, tensor_copy, tensor_tensor, tensor_scalar, nc_transpose; nki/guides/architecture/trainium_inferentia2_arch.rst (GpSimd cannot access PSUM)",
  },
};

export function ruleError(rule: RuleName, what: string, site: SourceSite | undefined, details: Record<string, unknown> = {}): NkiRuleError {
  return new NkiRuleError(
    "E_NKI_RULE",
    `NKI compiler rule '${rule}' (${RULES[rule].title}): ${what}${atSite(site)}`,
    { details: errorDetails(site, { rule, source: RULES[rule].source, ...details }) },
  );
}

/** What a tile's describe() says, for objects the rules see only as HostObjects. */
function described(v: HostObject): string {
  const d = (v as unknown as { storage?: { describe(): string } }).storage;
  return d ? d.describe() : `a ${v.typeName}`;
}

/** A tile or HBM tensor used as a truth value (if t:, while t:, t and x, not t, bool(t)). */
export function tileTruthValue(tile: HostObject, ctx: CallContext): never {
  throw ruleError("tile-control-flow",
    `${described(tile)} is used as a truth value; element-wise choices are nl.where / nisa.select or a mask=, device-side control flow is nl.dynamic_range with a register`,
    ctx.site);
}

/** Tiles and tensors where an int known at compile time is needed (a loop bound, a shape, a size). */
export function requireCompileTimeInt(v: PyValue, what: string, ctx: CallContext): void {
  if (!(v instanceof HostObject) || (v.typeName !== "Tile" && v.typeName !== "HbmTensor")) return;
  throw ruleError("compile-time-int",
    `${what} is ${described(v)}, whose values exist only when the kernel runs; a data-dependent trip count needs nl.dynamic_range over a register (nisa.register_load), a data-dependent shape is not expressible`,
    ctx.site, { argument: what });
}

const GPSIMD_SBUF_ONLY = /^nisa\.(iota|affine_select)$/;

/** The instruction-stream rules: GpSimd-only instructions touching PSUM. */
export class BufferRuleCheck implements RunConsumer {
  instruction(e: InstructionEvent): void {
    if (!GPSIMD_SBUF_ONLY.test(e.name)) return;
    const psum = e.accesses.find((a) => a.storage.kind === "psum");
    if (!psum) return;
    throw ruleError("sbuf-only-output", `${e.name} ${psum.kind === "read" ? "reads" : "writes"} ${psum.storage.describe()}, which is in PSUM`, e.site, { instruction: e.name, tile: psum.storage.name });
  }
}
