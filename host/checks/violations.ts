// Turns a violation the kernel library reported (a code and three numbers)
// into a typed error whose message names the operator, the core, the tensor
// and the offending index or range, with what was allowed.
import * as K from "./error-codes.js";
import {
  GpsimdError, AccessorIndexError, AccessorRankError, ReadOnlyTensorError, TensorRangeError, TcmRangeError, TcmFreeError,
  TcmLeakError, TcmGuardError, StreamAccessorError, CoherenceError, UninitializedTcmError, MulticoreRuleError,
  KernelHeapError, DTypeMismatchError, KernelShapeError, KernelLimitError, KernelTimeoutError,
  type ErrorContext,
} from "./errors.js";
import { describePlace, functionName, type SourcePlace } from "./source-locator.js";
import { dtypeFromScalarType, ScalarType } from "../device/dtype.js";
import { TCM_ARENA_BYTES, TCM_GUARD_BYTE } from "../device/layout.js";
import { DEVICE_SHAPE_LIMITS } from "../device/tensor.js";

/** The device's shape limits (DEVICE_SHAPE_LIMITS), as a kernel-made tensor's error states them. */
const KERNEL_LIMITS_TEXT = `a tensor has at most ${DEVICE_SHAPE_LIMITS.map((l) => `${l.maxDims} dimensions of sizes in [0, ${l.maxSize}]`).join(", or at most ")}`;

/** What the host knows about the launch that reported a violation. */
export interface ViolationSite {
  /** Qualified operator name, lib::op. */
  op: string;
  core: number;
  /** How to name the tensor in descriptor slot `slot` ("argument 0 't_in'", "the output", ...). */
  tensorName(slot: number): string;
  /** Address of this core's TCM arena, to show TCM addresses as offsets. */
  tcmBase: number;
}

const ACCESSOR_KINDS = ["element-wise accessor", "read stream accessor", "write stream accessor", "TCM accessor"];
const POLICIES = ["COHERENT", "INCOHERENT_VERBOSE", "INCOHERENT_QUIET"];

/** "an element-wise accessor", "a read stream accessor". */
function aKind(kind: number): string {
  const name = ACCESSOR_KINDS[kind] ?? "accessor";
  return `${/^[aeiou]/.test(name) ? "an" : "a"} ${name}`;
}

/** TCM address as "TCM+0x40 (0x...)". */
function tcm(addr: number, site: ViolationSite): string {
  const offset = addr - site.tcmBase;
  return offset >= 0 && offset < TCM_ARENA_BYTES ? `TCM+0x${offset.toString(16)}` : `0x${addr.toString(16)} (not in this core's TCM)`;
}

function bytes(n: number): string {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`;
}

function dtypeName(t: number): string {
  try { return dtypeFromScalarType(t).name; } catch { return `dtype ${t}`; }
}

/**
 * The typed error for a violation; `place` is the kernel statement that caused it (the call into the kernel
 * library), added to the message as " at fn (file:line:column)" (or " at fn") and to the details.
 */
export function violationError(code: number, slot: number, a: number, b: number, c: number, site: ViolationSite, place: SourcePlace | null = null): GpsimdError {
  const error = describeViolation(code, slot, a, b, c, site, place !== null, isCppPlace(place));
  if (!place) return error;
  const Class = error.constructor as new (code: string, message: string, context: ErrorContext) => GpsimdError;
  const at = place.file ? { file: place.file, line: place.line, column: place.column } : {};
  return new Class(error.code, `${error.message}${describePlace(place)}`, {
    op: error.op, core: error.core, details: { ...error.details, function: functionName(place), ...at },
  });
}

/** The error without its place; `placed`: the place will follow the message (phrased for it). */
function describeViolation(code: number, slot: number, a: number, b: number, c: number, site: ViolationSite, placed: boolean, cpp: boolean): GpsimdError {
  const where = `${site.op} (core ${site.core})`;
  const t = site.tensorName(slot);
  const ctx = (details: Record<string, unknown>) => ({ op: site.op, core: site.core, details: { slot, tensor: t, ...details } });
  switch (code) {
    case K.E_ACCESSOR_INDEX:
      if (c === -1) return new AccessorIndexError("E_ACCESSOR_INDEX", `${where}: element-wise accessor index ${a} is out of range for ${t}, which has ${b} elements (expected 0 <= index < ${b})`, ctx({ index: a, numel: b }));
      if (c === -2) return new AccessorIndexError("E_ACCESSOR_INDEX", `${where}: dimension ${a} does not exist in ${t}, which has ${b} dimensions`, ctx({ dim: a, ndim: b }));
      return new AccessorIndexError("E_ACCESSOR_INDEX", `${where}: accessor index ${a} in dimension ${c} is out of range for ${t} (size ${b} in that dimension; expected 0 <= index < ${b})`, ctx({ index: a, size: b, dim: c }));
    case K.E_ACCESSOR_RANK:
      return new AccessorRankError("E_ACCESSOR_RANK", `${where}: accessor for ${a} dimensions opened on ${t}, which has ${b} dimensions`, ctx({ rank: a, ndim: b }));
    case K.E_STALE_ACCESSOR:
      return new AccessorRankError("E_STALE_ACCESSOR", `${where}: a partial index (acc[i]) was used after ${b - a} newer ones (only the last ${c} are kept) replaced it; index all dimensions in one expression, acc[i][j]`, ctx({ handle: a, latest: b }));
    case K.E_READ_ONLY:
      return new ReadOnlyTensorError("E_READ_ONLY", `${where}: write through ${aKind(a)} into ${t}, which is an operator input and read-only${a === K.KIND_ELEMENTWISE || a === K.KIND_TCM ? ` (at element ${b})` : ""}; write into get_dst_tensor() or a tensor the kernel made`, ctx({ kind: ACCESSOR_KINDS[a], index: b }));
    case K.E_TENSOR_RANGE:
      return new TensorRangeError("E_TENSOR_RANGE", `${where}: TCM copy of ${b} elements at offset ${a} reaches outside ${t}: elements [${a}, ${a + b}) requested, the tensor has ${c} (expected 0 <= offset and offset + count <= ${c})`, ctx({ offset: a, count: b, numel: c }));
    case K.E_TCM_RANGE:
      return new TcmRangeError("E_TCM_RANGE", `${where}: TCM copy for ${t} uses ${bytes(b)} at ${tcm(a, site)}, ${c > 0 ? `but its tcm_malloc block ends ${bytes(c)} after that address (allowed: at most ${bytes(c)})` : c === -1 ? "a block that was already freed" : "which is not inside a live tcm_malloc block"}`, ctx({ address: a, bytes: b, room: c }));
    case K.E_TCM_FREE_FOREIGN:
      return new TcmFreeError("E_TCM_FREE_FOREIGN", `${where}: tcm_free(${tcm(a, site)}): this pointer was not returned by tcm_malloc`, ctx({ address: a }));
    case K.E_TCM_DOUBLE_FREE:
      return new TcmFreeError("E_TCM_DOUBLE_FREE", `${where}: tcm_free(${tcm(a, site)}): this block was already freed`, ctx({ address: a }));
    case K.E_TCM_LEAK:
      // The place of a leak is the statement that allocated the first block (host/cores/kernel-instance.ts).
      return new TcmLeakError("E_TCM_LEAK", `${where}: ${a} TCM block${a === 1 ? "" : "s"} (${bytes(b)}) still allocated when the kernel returned (call tcm_free, and close() stream accessors): the first at ${tcm(c, site)}${placed ? ", allocated by tcm_malloc" : ""}`, ctx({ blocks: a, bytes: b, first: c }));
    case K.E_TCM_GUARD: {
      // The guard bytes are compared when the block is freed or the kernel returns, not at the store, so what is
      // known is the first byte that changed (c past the end). Right at the end that is the first byte written past
      // the block; further on, the kernel may also have written the bytes before it with the guard's own value, which
      // leaves them unchanged: the write began somewhere from the end to that byte. Sanitize mode stops at the store.
      const first = b + c;
      const found = c === 0
        ? `the first at byte ${first} of the block, which has ${bytes(b)} (allowed: bytes 0 to ${b - 1})`
        : `the first changed byte is byte ${first} of the block, which has ${bytes(b)} (allowed: bytes 0 to ${b - 1}); bytes ${b} to ${first - 1} still hold the guard value 0x${TCM_GUARD_BYTE.toString(16)}, which a store of that value leaves unchanged, so the write began at one of bytes ${b} to ${first} (sanitize: true stops at the store itself)`;
      return new TcmGuardError("E_TCM_GUARD", `${where}: bytes past the end of the TCM block at ${tcm(a, site)} were overwritten: ${found}; the kernel wrote past the block (guard bytes are checked by tcm_free and when the kernel returns: the store came before this point)`, ctx({ address: a, bytes: b, past: c, firstWritten: c === 0 ? first : null, firstChanged: first }));
    }
    case K.E_STREAM_END:
      return new StreamAccessorError("E_STREAM_END", `${where}: ${c ? "write" : "read"} stream on ${t} ${c ? "wrote" : "read"} element ${a}, past the end (the tensor has ${b} elements)`, ctx({ position: a, numel: b }));
    case K.E_STREAM_CLOSED:
      return new StreamAccessorError("E_STREAM_CLOSED", `${where}: ${a ? "write" : "read"} stream on ${t} used after close()`, ctx({}));
    case K.E_STREAM_NOT_CLOSED:
      return new StreamAccessorError("E_STREAM_NOT_CLOSED", `${where}: write stream on ${t} was never closed; ${a} buffered element${a === 1 ? " was" : "s were"} never written to the tensor (call close())`, ctx({ pending: a }));
    case K.E_INCOHERENT:
      return new CoherenceError("E_INCOHERENT", `${where}: ${ACCESSOR_KINDS[a]} opened on ${t} while ${aKind(b)} is active: potentially incoherent under the ${POLICIES[c]} policy (safe: many read streams, or one write stream, and no stream together with element-wise accessors; or set_accessor_coherence_policy(INCOHERENT_VERBOSE/INCOHERENT_QUIET))`, ctx({ requested: ACCESSOR_KINDS[a], active: ACCESSOR_KINDS[b], policy: POLICIES[c] }));
    case K.E_UNINITIALIZED_TCM:
      return new UninitializedTcmError("E_UNINITIALIZED_TCM", `${where}: tcm_to_tensor copied TCM the kernel never wrote into ${t}: element ${a} comes from ${tcm(b, site)}, which nothing wrote since tcm_malloc handed out its block`, ctx({ offset: a, address: b, count: c }));
    case K.E_MULTICORE_ACCESSOR:
      return new MulticoreRuleError("E_MULTICORE_ACCESSOR", `${where}: ${ACCESSOR_KINDS[a]} on ${t} in a multicore kernel; only TCM accessors are allowed when multicore=true`, ctx({ kind: ACCESSOR_KINDS[a] }));
    case K.E_WRITE_NOT_OUTPUT:
      return new MulticoreRuleError("E_WRITE_NOT_OUTPUT", `${where}: tcm_to_tensor into ${t}; a multicore kernel must write its result through get_dst_tensor()`, ctx({}));
    case K.E_NO_OUTPUT:
      return new MulticoreRuleError("E_NO_OUTPUT", `${where}: get_dst_tensor() called but the operator has no output tensor`, ctx({}));
    case K.E_HEAP_EXHAUSTED:
      return new KernelHeapError("E_HEAP_EXHAUSTED", `${where}: the kernel heap is full: ${bytes(a)} asked, ${bytes(b)} free of ${bytes(c)}; tensors made inside a kernel live there until it returns (raise it with extra_cflags: ["-DSTACK_SIZE=<bytes>"])`, ctx({ asked: a, free: b, size: c }));
    case K.E_DTYPE_MISMATCH:
      if (cpp) {
        return new DTypeMismatchError("E_DTYPE_MISMATCH", `${where}: accessor element type ${cppElementType(a, b)} does not match ${t}, whose dtype is ${dtypeName(c)}; write ${cppTypeOfDtype(c)} (accessor<${cppTypeOfDtype(c)}, N>(), tensor_to_tcm<${cppTypeOfDtype(c)}>)`, ctx({ elementBytes: a, dtype: dtypeName(c) }));
      }
      return new DTypeMismatchError("E_DTYPE_MISMATCH", `${where}: accessor element type (${b ? "float" : "integer"}, ${a} bytes) does not match ${t}, whose dtype is ${dtypeName(c)}${c === ScalarType.BFloat16 || c === ScalarType.Half ? " (16-bit floats are accessed as u16 bits)" : ""}`, ctx({ elementBytes: a, dtype: dtypeName(c) }));
    case K.E_TOO_MANY: {
      const what = ["stream accessors", "TCM blocks", "tensors"][a] ?? "items";
      return new KernelLimitError("E_TOO_MANY", `${where}: more than ${b} ${what} in one launch`, ctx({ what, limit: b }));
    }
    case K.E_SHAPE: {
      const text = a === 0 ? `shapes differ (${b} vs ${c} elements); tensor operations do not broadcast`
        : a === 1 ? `dtypes differ (${dtypeName(b)} vs ${dtypeName(c)})`
        : a === 2 ? `${b} dimensions requested; ${KERNEL_LIMITS_TEXT}`
        : a === 3 ? `unknown dtype ${b}`
        : `dimension ${b} has size ${c}; ${KERNEL_LIMITS_TEXT}`;
      return new KernelShapeError("E_SHAPE", `${where}: ${t}: ${text}`, ctx({ what: a, a: b, b: c }));
    }
    case K.E_TENSOR_OP:
      return tensorOpError(a, tensorOpName(b), t, c, site, `${where}: ${tensorOpName(b)}: `, ctx);
    case K.E_STOPPED:
      return new KernelTimeoutError("E_STOPPED", `${where}: stopped: the kernel ran past the library's timeout_ms`, ctx({}));
    default:
      return new GpsimdError("E_UNKNOWN_VIOLATION", `${where}: kernel library reported violation ${code} (${a}, ${b}, ${c})`, ctx({ code, a, b, c }));
  }
}

/** Whether the statement that caused a violation is C++ (its messages then name C++ types). */
function isCppPlace(place: SourcePlace | null): boolean {
  return !!place?.file && /\.(cpp|cc|cxx|c\+\+|h|hh|hpp|hxx)$/i.test(place.file);
}

/**
 * The C++ element type a kernel used, from what the runtime knows of it (its bytes, whether it is a float): 16-bit
 * elements are c10::BFloat16, c10::Half or uint16_t, all moved as their bits.
 */
function cppElementType(bytes: number, isFloat: number): string {
  if (isFloat) return bytes === 8 ? "double" : "float";
  return ({ 8: "int64_t", 4: "int32_t", 2: "a 16-bit type (c10::BFloat16, c10::Half, int16_t or uint16_t)", 1: "int8_t or uint8_t" } as Record<number, string>)[bytes] ?? `of ${bytes} bytes`;
}

/** The C++ element type of a dtype. */
function cppTypeOfDtype(scalarType: number): string {
  const types: Record<number, string> = {
    [ScalarType.Float]: "float", [ScalarType.BFloat16]: "c10::BFloat16", [ScalarType.Half]: "c10::Half", [ScalarType.Int]: "int32_t",
    [ScalarType.Char]: "int8_t", [ScalarType.Long]: "int64_t", [ScalarType.Short]: "int16_t", [ScalarType.Byte]: "uint8_t",
  };
  return types[scalarType] ?? "the element type of its dtype";
}

/** "add_scalar_out" from an E_TENSOR_OP operation number (OP_* + 100 * form). */
function tensorOpName(n: number): string {
  const base = Object.entries(K).find(([name, value]) => name.startsWith("OP_") && value === n % 100)?.[0].slice(3).toLowerCase() ?? `operation ${n % 100}`;
  const form = Math.floor(n / 100);
  return `${form >= 4 ? "scalar_" : ""}${base}${form === 2 || form === 3 ? "_scalar" : ""}${form % 2 === 1 ? "_out" : ""}`;
}

/** The error for an E_TENSOR_OP report (what: TOP_*) about tensor t of operation op. */
function tensorOpError(what: number, op: string, t: string, detail: number, site: ViolationSite, prefix: string,
  ctx: (details: Record<string, unknown>) => { op: string; core: number; details: Record<string, unknown> }): GpsimdError {
  const info = (more: Record<string, unknown>) => ctx({ operation: op, ...more });
  switch (what) {
    case K.TOP_SHAPES:
      return new KernelShapeError("E_TENSOR_OP", `${prefix}${both(t, site.tensorName(detail))} have different shapes; tensor operations do not broadcast`, info({ what: "shapes" }));
    case K.TOP_DTYPES:
      return new DTypeMismatchError("E_TENSOR_OP", `${prefix}${both(t, site.tensorName(detail))} have different dtypes; tensor operations do not promote one to the other`, info({ what: "dtypes" }));
    case K.TOP_RESULT_DTYPE:
      return new DTypeMismatchError("E_TENSOR_OP", `${prefix}${t} cannot hold the result, which is ${dtypeName(detail)} like the operands; tensor operations do not convert`, info({ what: "result dtype", required: dtypeName(detail) }));
    case K.TOP_RESULT_FLOAT:
      return new DTypeMismatchError("E_TENSOR_OP", `${prefix}${t} cannot hold the result, which is ${dtypeName(detail)}: integral operands give float32 with div (true division), sin, cos, tan, log, log2, log10, exp and a floating Scalar, as in torch`, info({ what: "result dtype", required: dtypeName(detail) }));
    case K.TOP_NOT_INTEGRAL:
      return new DTypeMismatchError("E_TENSOR_OP", `${prefix}${t} is ${dtypeName(detail)}; bitwise operations take integral tensors only (int8, uint8, int16, int32, int64)`, info({ what: "not integral", dtype: dtypeName(detail) }));
    case K.TOP_READ_ONLY:
      return new ReadOnlyTensorError("E_TENSOR_OP", `${prefix}cannot write into ${t}, which is an operator input and read-only; write into get_dst_tensor() or a tensor the kernel made`, info({ what: "read-only" }));
    case K.TOP_NEGATIVE_POWER:
      return new DTypeMismatchError("E_TENSOR_OP", `${prefix}${t} is integral and the exponent ${detail} is a negative integer; integers to negative integer powers are not allowed (as in torch); pass a floating exponent`, info({ what: "negative power", exponent: detail }));
    case K.TOP_FLOAT_ALPHA:
      return new DTypeMismatchError("E_TENSOR_OP", `${prefix}alpha ${detail} is a floating-point Scalar but ${t} is integral; integral operands take an integral alpha (as in torch)`, info({ what: "floating alpha", alpha: detail }));
    default:
      return new GpsimdError("E_TENSOR_OP", `${prefix}tensor operation violation ${what} on ${t} (${detail})`, info({ what }));
  }
}

/** "argument 1 'b' (float32[3]) and argument 0 'a' (float32[4])"; only tensors the kernel made share a name. */
function both(t: string, other: string): string {
  return t === other ? "two tensors the kernel made" : `${t} and ${other}`;
}
