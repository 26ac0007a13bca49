// The engine= argument of the nisa instructions that take one: which engines the NKI ISA reference
// lets each instruction run on, and which buffers an engine can reach there. A choice the reference
// forbids is NkiRuleError E_NKI_RULE (rule 'engine' or 'engine-buffer') at the call's line; an allowed
// choice is remembered per call so that the profile places the instruction on that engine.
import { NkiArray } from "../machine/tile.js";
import { EnumValue } from "../language/constants.js";
import type { CallContext, PyValue } from "../python/values.js";
import { ruleError } from "./rules.js";

/** nki.isa.engine's members (activation and pool: the hardware's names of the Scalar and GpSimd engines). */
export type NkiEngine = "tensor" | "vector" | "scalar" | "gpsimd" | "dma" | "sync" | "unknown";
const ALIASES: Readonly<Record<string, NkiEngine>> = { activation: "scalar", pool: "gpsimd" };

const ISA = "nki/api/nki/isa/__init__.py";
const ARCH = "nki/guides/architecture/trainium_inferentia2_arch.rst (GpSimd cannot access PSUM)";

interface EngineRule {
  /** The engines the reference names for engine= (unknown, the compiler's choice, is always allowed). */
  readonly allowed: readonly NkiEngine[];
  /** Where the reference says so. */
  readonly source: string;
}

export const ENGINE_RULES: Readonly<Record<string, EngineRule>> = {
  "nisa.tensor_copy": { allowed: ["vector", "scalar", "gpsimd"], source: `${ISA}, tensor_copy (engine: vector, scalar, gpsimd or unknown; "Scalar or Vector Engine must be chosen when the input or output tile is in PSUM")` },
  "nisa.memset": { allowed: ["vector", "gpsimd"], source: `${ISA}, memset (engine: "nki.isa.engine.vector or nki.isa.engine.gpsimd")` },
  "nisa.tensor_tensor": { allowed: ["vector", "gpsimd"], source: `${ISA}, tensor_tensor (engine: vector, gpsimd or unknown; nl.power "runs on the GpSimd engine", "the input/output tiles cannot be in PSUM if op is nl.power")` },
  "nisa.tensor_scalar": { allowed: ["vector", "scalar", "gpsimd"], source: `${ISA}, tensor_scalar (engine: vector, scalar, "gpsimd (only allowed for rsqrt)" or unknown; "If bitvec operators are used, the tensor_scalar instruction must run on Vector Engine")` },
  "nisa.nc_transpose": { allowed: ["tensor", "vector"], source: `${ISA}, nc_transpose (engine: tensor or vector; "Tensor Engine nc_transpose must read the input tile from SBUF and write the transposed result to PSUM"; "Vector Engine can handle shape [32, 32] or smaller")` },
  "nisa.dma_copy": { allowed: ["sync", "scalar"], source: `${ISA}, dma_copy (engine: "nki.isa.engine.sync or nki.isa.engine.scalar. Only valid when dge_mode=nisa.dge_mode.hwdge")` },
};

/** The bitvec operators of the ALU table (tensor_scalar runs them on VectorE only). */
const BITVEC = new Set(["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "invert", "bitwise_not"]);

/** What the call site's engine= was, for the profile (calls without one, or with unknown, are absent). */
const chosen = new WeakMap<CallContext, NkiEngine>();

export function requestedEngine(call: CallContext): NkiEngine | undefined {
  return chosen.get(call);
}

export interface EngineCall {
  /** The instruction's tensor operands by parameter name (dst, src, data...), as given. */
  readonly operands: Readonly<Record<string, PyValue>>;
  /** The nl names of its operators (op, op0, op1), for the rules that depend on them. */
  readonly ops?: readonly string[];
  /** dma_copy's dge_mode member (engine= is only valid with hwdge). */
  readonly dgeMode?: string;
}

const spelled = (e: NkiEngine) => `nisa.engine.${e}`;

/**
 * Checks instruction `instr`'s engine= value against the reference and remembers an allowed choice
 * for the profile; returns the engine (unknown when none was given).
 */
export function checkEngineArg(instr: string, value: PyValue, call: EngineCall, ctx: CallContext): NkiEngine {
  if (value === null || value === undefined) return "unknown";
  const rule = ENGINE_RULES[instr];
  if (!(value instanceof EnumValue) || value.enumName !== "engine") {
    throw ruleError("engine", `${instr}(engine=${value instanceof EnumValue ? value.repr() : String(value)}) is not an engine; pass one of ${rule.allowed.map(spelled).join(", ")} or ${spelled("unknown")}`, ctx.site, { instruction: instr, source: rule.source });
  }
  const engine = ALIASES[value.member] ?? (value.member as NkiEngine);
  if (engine === "unknown") return engine;
  const fail = (name: "engine" | "engine-buffer", why: string, extra: Record<string, unknown> = {}) =>
    ruleError(name, `${instr}(engine=${spelled(engine)}) ${why}`, ctx.site, { instruction: instr, engine, allowed: [...rule.allowed], source: rule.source, ...extra });
  if (!rule.allowed.includes(engine)) {
    throw fail("engine", `cannot run there: ${instr} runs on ${rule.allowed.map(spelled).join(" or ")} (or ${spelled("unknown")}, the compiler's choice)`);
  }
  opRules(instr, engine, call, fail);
  bufferRules(instr, engine, call, fail);
  chosen.set(ctx, engine);
  return engine;
}

type Fail = (name: "engine" | "engine-buffer", why: string, extra?: Record<string, unknown>) => Error;

/** Engine choices that depend on the operator or the DMA mode. */
function opRules(instr: string, engine: NkiEngine, call: EngineCall, fail: Fail): void {
  const ops = call.ops ?? [];
  if (instr === "nisa.tensor_scalar") {
    const bitvec = ops.find((o) => BITVEC.has(o));
    if (bitvec && engine !== "vector") throw fail("engine", `cannot run the bitvec operator nl.${bitvec}: bitvec operators run on ${spelled("vector")} only`, { op: bitvec });
    if (engine === "gpsimd" && ops[0] !== "rsqrt") throw fail("engine", `is only allowed for nl.rsqrt, not op0=nl.${ops[0]}; use ${spelled("vector")} or ${spelled("scalar")}`, { op: ops[0] });
  }
  if (instr === "nisa.tensor_tensor" && ops[0] === "power" && engine !== "gpsimd") {
    throw fail("engine", `cannot run nl.power, which runs on ${spelled("gpsimd")} only`, { op: "power" });
  }
  if (instr === "nisa.dma_copy" && call.dgeMode !== "hwdge") {
    throw fail("engine", `chooses the engine that generates DMA descriptors in hardware, which is only valid with dge_mode=nisa.dge_mode.hwdge (given: ${call.dgeMode === undefined ? "the default, nisa.dge_mode.unknown" : `nisa.dge_mode.${call.dgeMode}`})`);
  }
}

/** Engine choices the operands' buffers rule out. */
function bufferRules(instr: string, engine: NkiEngine, call: EngineCall, fail: Fail): void {
  const tiles = Object.entries(call.operands).filter((e): e is [string, NkiArray] => e[1] instanceof NkiArray);
  const inPsum = tiles.find(([, t]) => t.storage.kind === "psum");
  if (engine === "gpsimd" && inPsum) {
    throw fail("engine-buffer", `has ${inPsum[0]}=${inPsum[1].storage.describe()} in PSUM, which GpSimd Engine cannot access; choose ${spelled("vector")}${ENGINE_RULES[instr].allowed.includes("scalar") ? ` or ${spelled("scalar")}` : ""}`, { tile: inPsum[1].storage.name, source: `${ENGINE_RULES[instr].source}; ${ARCH}` });
  }
  if (instr !== "nisa.nc_transpose") return;
  const data = call.operands.data, dst = call.operands.dst;
  if (engine === "tensor") {
    if (data instanceof NkiArray && data.storage.kind !== "sbuf") throw fail("engine-buffer", `must read data from SBUF; data=${data.storage.describe()}`, { tile: data.storage.name });
    if (dst instanceof NkiArray && dst.storage.kind !== "psum") throw fail("engine-buffer", `must write its result to PSUM; dst=${dst.storage.describe()}`, { tile: dst.storage.name });
  }
  if (engine === "vector" && data instanceof NkiArray && (data.shape[0] > 32 || data.numel / data.shape[0] > 32)) {
    throw fail("engine", `transposes tiles of [32, 32] or smaller; data is [${data.shape.join(", ")}] (${spelled("tensor")} takes up to [128, 128])`);
  }
}
