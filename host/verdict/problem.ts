// One error or warning as the verdict schema (schema/verdict.schema.json)
// records it. Errors fill `details` with many spellings (index/numel,
// offset/count, asked/allowed, address/bytes/room, range.lo/hi...); this is
// the ONE place that maps them onto the schema's fields.
import { GpsimdError } from "../checks/errors.js";

/** Where in memory a problem is: a tensor's elements, TCM or linear-memory bytes, or an NKI buffer. */
export interface ProblemLocation {
  /** "tensor" (elements of an operator tensor), "tcm", "memory" (a kernel's linear memory), "hbm", "sbuf", "psum". */
  space: string;
  /** Byte address (tcm, memory). */
  address?: number;
  /** The NKI tile or HBM tensor's variable name. */
  name?: string;
  /** Dimension the index range is in; -1 or absent: flat. */
  dim?: number;
}

/** An error or warning in the schema's fields. Absent fields are unknown or do not apply. */
export interface Problem {
  class: string;
  code: string;
  message: string;
  /** Qualified operator lib::op (C++ / AssemblyScript). */
  op?: string;
  /** NKI kernel name. */
  kernel?: string;
  core?: number;
  /** SPMD instance (program ids) of an NKI kernel. */
  instance?: number[];
  /** The tensor or tile concerned, as the message names it. */
  tensor?: string;
  location?: ProblemLocation;
  /** Inclusive index range [first, last] that was asked for (elements, or bytes for tcm/memory). */
  index?: [number, number];
  /** Inclusive range [first, last] that was allowed. */
  allowed?: [number, number];
  file?: string;
  line?: number;
  column?: number;
  function?: string;
  /** The error's own details, as plain JSON (bigints as strings). */
  details: Record<string, unknown>;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const pair = (v: unknown): [number, number] | undefined =>
  Array.isArray(v) && v.length === 2 && num(v[0]) !== undefined && num(v[1]) !== undefined ? [v[0], v[1]] : undefined;
const upTo = (n: unknown): [number, number] | undefined => (num(n) !== undefined && (n as number) > 0 ? [0, (n as number) - 1] : undefined);

/** Asked and allowed ranges and the memory location, from whichever spelling the error used. */
function ranges(code: string, d: Record<string, unknown>): Pick<Problem, "index" | "allowed" | "location"> {
  // NKI buffers: sbuf and psum tiles, or HBM tensors ("input", "shared_hbm", "hbm"... all HBM).
  const buffer = d.buffer === undefined ? undefined : d.buffer === "sbuf" || d.buffer === "psum" ? d.buffer : "hbm";
  const nkiName = str(d.tile) ?? str(d.tensor);
  const dim = num(d.dim);
  // NKI accesses: asked/allowed pairs in a buffer's dimension.
  if (pair(d.asked)) return { index: pair(d.asked), allowed: pair(d.allowed), location: { space: buffer ?? "hbm", name: nkiName, dim } };
  // NKI ranges shared by two iterations or SPMD instances: flat element ranges.
  const range = d.range as Record<string, unknown> | undefined;
  if (range && num(range.lo) !== undefined && num(range.hi) !== undefined) {
    return { index: [range.lo as number, range.hi as number], location: { space: buffer ?? "hbm", name: nkiName } };
  }
  switch (code) {
    case "E_TENSOR_RANGE": {
      const o = num(d.offset), c = num(d.count);
      return { index: o !== undefined && c !== undefined ? [o, o + c - 1] : undefined, allowed: upTo(d.numel), location: { space: "tensor" } };
    }
    case "E_TCM_RANGE": {
      const a = num(d.address), b = num(d.bytes), room = num(d.room);
      return { index: a !== undefined && b !== undefined ? [a, a + b - 1] : undefined, allowed: a !== undefined && room !== undefined && room > 0 ? [a, a + room - 1] : undefined, location: { space: "tcm", address: a } };
    }
    case "E_TCM_GUARD": {
      const first = num(d.firstChanged);
      return { index: first !== undefined ? [first, first] : undefined, allowed: upTo(d.bytes), location: { space: "tcm", address: num(d.address) } };
    }
    case "E_UNINITIALIZED_TCM": {
      const o = num(d.offset);
      return { index: o !== undefined ? [o, o] : undefined, location: { space: "tcm", address: num(d.address) } };
    }
    case "E_STREAM_END": {
      const p = num(d.position);
      return { index: p !== undefined ? [p, p] : undefined, allowed: upTo(d.numel), location: { space: "tensor" } };
    }
    case "E_HEAP_EXHAUSTED":
      return { index: num(d.asked) !== undefined ? [0, (d.asked as number) - 1] : undefined, allowed: upTo(d.free), location: { space: "memory" } };
    case "E_UNWRITTEN_OUTPUT": {
      const gap = pair((d.gaps as unknown[] | undefined)?.[0]);
      return { index: gap ? [gap[0], gap[1] - 1] : undefined, location: { space: "tensor" } };
    }
  }
  if (typeof d.address === "number" && typeof d.access === "string") {
    // The sanitizer: a raw load or store of `bytes` at `address` in linear memory.
    const b = num(d.bytes) ?? 1;
    return { index: [d.address, d.address + b - 1], location: { space: "memory", address: d.address } };
  }
  if (num(d.index) !== undefined) {
    return { index: [d.index as number, d.index as number], allowed: upTo(d.size) ?? upTo(d.numel), location: { space: "tensor", dim: dim ?? (d.size === undefined ? -1 : undefined) } };
  }
  if (d.address !== undefined && num(d.address) !== undefined) return { location: { space: "tcm", address: d.address as number } };
  return {};
}

/** A compile error's place: the first "file:line:column: error:" line of the compiler's messages. */
function buildPlace(d: Record<string, unknown>): Pick<Problem, "file" | "line" | "column"> {
  const first = (d.messages as unknown[] | undefined)?.map(String).find((m) => /^.+?:\d+:\d+: (?:fatal )?error/.test(m));
  const m = first && /^(.+?):(\d+):(\d+): /.exec(first);
  return m ? { file: m[1], line: Number(m[2]), column: Number(m[3]) } : {};
}

/** A cross-core overlap's or race's range is in the message's words: "[start, end)" of the output. */
function overlapRange(e: GpsimdError): [number, number] | undefined {
  const m = /elements \[(\d+), (\d+)\)/.exec(e.message);
  return m ? [Number(m[1]), Number(m[2]) - 1] : undefined;
}

/** details as plain JSON: bigints as decimal strings, functions and undefined dropped. */
export function plainDetails(details: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(details, (_k, v) => (typeof v === "bigint" ? v.toString() : v))) as Record<string, unknown>;
}

/** A gpsimd error in the schema's fields. */
export function problemOf(e: GpsimdError): Problem {
  const d = e.details ?? {};
  const r = ranges(e.code, d);
  const instance = Array.isArray(d.instance) ? (d.instance as unknown[]).filter((x): x is number => typeof x === "number") : num(d.instance) !== undefined ? [d.instance as number] : undefined;
  const index = r.index ?? (e.code === "E_CROSS_CORE_OVERLAP" || e.code === "E_CROSS_CORE_RACE" ? overlapRange(e) : undefined);
  const problem: Problem = {
    class: e.name, code: e.code, message: e.message,
    op: e.op, kernel: str(d.kernel), core: e.core ?? num(d.core), instance,
    tensor: str(d.tensor) ?? str(d.tile),
    location: r.location ?? (index ? { space: "tensor" } : undefined), index, allowed: r.allowed,
    file: str(d.file), line: num(d.line), column: num(d.column), function: str(d.function),
    ...(d.file === undefined && Array.isArray(d.messages) ? buildPlace(d) : {}),
    details: plainDetails(d),
  };
  for (const k of Object.keys(problem) as (keyof Problem)[]) if (problem[k] === undefined) delete problem[k];
  if (problem.location) for (const k of Object.keys(problem.location) as (keyof ProblemLocation)[]) if (problem.location[k] === undefined) delete problem.location[k];
  return problem;
}

/** Any thrown value as a problem: gpsimd errors by their fields, anything else as an internal error. */
export function problemOfThrown(e: unknown): Problem {
  if (e instanceof GpsimdError) return problemOf(e);
  return { class: "InternalError", code: "E_INTERNAL", message: e instanceof Error ? e.message : String(e), details: {} };
}

/** What a warning's text is about, by the words the runtime uses (host/output.ts warn sinks). */
const WARNING_CODES: [RegExp, string][] = [
  [/TCM block.*still allocated/, "E_TCM_LEAK"],
  [/incoherent/i, "E_INCOHERENT"],
  [/printf/i, "E_PRINTF_DROPPED"],
];

/**
 * A warning (text given to the output sink's warn) in the schema's fields: "<lib::op> (core 3): ..." or
 * "(cores 0-7): ..." names the operator and core, " at fn (file:line:column)" the place.
 */
export function problemOfWarning(text: string): Problem {
  const head = /^(\S+::\S+) \(cores? (\d+)(?:-\d+)?\)/.exec(text);
  const at = / at ([^\s()]+) \(([^()]+):(\d+):(\d+)\)/.exec(text);
  const problem: Problem = { class: "Warning", code: WARNING_CODES.find(([re]) => re.test(text))?.[1] ?? "E_WARNING", message: text, details: {} };
  if (head) { problem.op = head[1]; problem.core = Number(head[2]); }
  if (at) Object.assign(problem, { function: at[1], file: at[2], line: Number(at[3]), column: Number(at[4]) });
  return problem;
}
