// Every error gpsimd throws: a class per kind, a stable `code`, and the
// operator, core and details that locate it. Errors cross worker threads as
// plain ErrorData and are rebuilt here with their class.

/** An error as plain data (what crosses threads). */
export interface ErrorData {
  name: string;
  code: string;
  message: string;
  op?: string;
  core?: number;
  details?: Record<string, unknown>;
}

/** Where an error happened and what it concerns. */
export interface ErrorContext {
  op?: string;
  core?: number;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** Base class of gpsimd errors. */
export class GpsimdError extends Error {
  /** Stable identifier of the kind of error, e.g. "E_ACCESSOR_INDEX". */
  readonly code: string;
  /** Qualified operator name (lib::op), when an operator was running. */
  readonly op?: string;
  /** Emulated core id, when a kernel was running. */
  readonly core?: number;
  /** Numbers behind the message (indices, ranges, sizes). */
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, context: ErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.code = code;
    this.op = context.op;
    this.core = context.core;
    this.details = context.details ?? {};
  }

  /** Plain data for postMessage. */
  toJSON(): ErrorData {
    return { name: this.name, code: this.code, message: this.message, op: this.op, core: this.core, details: this.details };
  }
}

// ---- what kernels do wrong (reported by the kernel library) ----
/** An accessor index outside its dimension. */
export class AccessorIndexError extends GpsimdError {}
/** An N-d accessor on a tensor of another rank, or a stale partial index. */
export class AccessorRankError extends GpsimdError {}
/** A write into an operator input (inputs are const). */
export class ReadOnlyTensorError extends GpsimdError {}
/** A TCM copy that reaches outside the tensor. */
export class TensorRangeError extends GpsimdError {}
/** A TCM copy that reaches outside a live tcm_malloc block. */
export class TcmRangeError extends GpsimdError {}
/** tcm_free of a pointer tcm_malloc did not return, or freed twice. */
export class TcmFreeError extends GpsimdError {}
/** TCM blocks still allocated when the kernel returned (when leaks are errors). */
export class TcmLeakError extends GpsimdError {}
/** Bytes past the end of a TCM block were overwritten. */
export class TcmGuardError extends GpsimdError {}
/** A stream read or write past the end, after close(), or a write stream never closed. */
export class StreamAccessorError extends GpsimdError {}
/** Potentially incoherent accessors on one tensor under the COHERENT policy. */
export class CoherenceError extends GpsimdError {}
/** TCM bytes the kernel never wrote reached a tensor. */
export class UninitializedTcmError extends GpsimdError {}
/** An accessor multicore kernels may not use, or an output not written through get_dst_tensor(). */
export class MulticoreRuleError extends GpsimdError {}
/** The kernel heap (scratch memory of one core) is full. */
export class KernelHeapError extends GpsimdError {}
/** An accessor or copy whose element type does not match the tensor's dtype. */
export class DTypeMismatchError extends GpsimdError {}
/** Shapes or sizes a kernel-side tensor operation rejects. */
export class KernelShapeError extends GpsimdError {}
/** A fixed per-core table (streams, TCM blocks, tensors) is full. */
export class KernelLimitError extends GpsimdError {}
/** A raw load or store outside the kernel's own memory (sanitize mode). */
export class SanitizerError extends GpsimdError {}

// ---- what happens to a kernel ----
/** abort() in the kernel (an assert, a thrown error). */
export class KernelAbortError extends GpsimdError {}
/** A WebAssembly trap in the kernel (unreachable, division by zero, out of bounds). */
export class KernelTrapError extends GpsimdError {}
/** A kernel ran past the library's timeout. */
export class KernelTimeoutError extends GpsimdError {}
/** A worker thread died; everything it was running failed. */
export class WorkerCrashError extends GpsimdError {}
/** Two cores wrote the same output elements. */
export class CrossCoreWriteError extends GpsimdError {}
/** Output elements no core wrote. */
export class UnwrittenOutputError extends GpsimdError {}
/** Output elements one core read and another wrote in the same multicore call (the cores do not synchronise). */
export class CrossCoreRaceError extends GpsimdError {}
/** A kernel changed a tensor descriptor of its launch, or returned a tensor its launch did not create. */
export class KernelTamperError extends GpsimdError {}

// ---- what NKI kernels do wrong (the NKI front end, nki/) ----
/** An uncaught Python exception in an NKI kernel file (code E_PY_<ExceptionType>; details.pyType). */
export class PythonError extends GpsimdError {}
/** Python gpsimd cannot parse (E_NKI_SYNTAX) or a construct it does not execute (E_NKI_UNSUPPORTED). */
export class NkiSyntaxError extends GpsimdError {}
/** A tile shape the engines refuse: partition dimension over 128 (E_NKI_PARTITION), operand shapes (E_NKI_SHAPE), a PSUM tile over a bank (E_NKI_PSUM_BANK), matmul rules (E_NKI_MATMUL). */
export class TileShapeError extends GpsimdError {}
/** SBUF or PSUM elements read before any instruction wrote them (E_NKI_UNINIT). */
export class UninitializedTileError extends GpsimdError {}
/** An access to an HBM tensor outside its bounds, including a slice numpy would shorten (E_NKI_HBM_RANGE). */
export class HbmAccessError extends GpsimdError {}
/** A dtype an NKI instruction does not take (E_NKI_DTYPE). */
export class NkiDTypeError extends GpsimdError {}
/** Iterations of an nl.affine_range loop that touch the same elements (one writes), which the language declares independent (E_NKI_RACE). */
export class NkiRaceError extends GpsimdError {}
/** What NKI's compiler rejects though Python runs it: control flow on tile values, data-dependent shapes... (E_NKI_RULE). */
export class NkiRuleError extends GpsimdError {}

// ---- what callers do wrong ----
/** Wrong number, kind or dtype of operator arguments. */
export class ArgumentError extends GpsimdError {}
/** A shape function threw, read tensor data, or returned something other than a tensor. */
export class ShapeFunctionError extends GpsimdError {}
/** A tensor outside the device limits (8 dimensions of at most 65535, or 4 of at most 4294967295) or a bad shape. */
export class TensorShapeError extends GpsimdError {}
/** A value its dtype cannot hold: NaN or ±Infinity for an integer dtype. */
export class TensorValueError extends GpsimdError {}
/** A disposed tensor was used. */
export class DisposedTensorError extends GpsimdError {}
/** Registration problems: a library registered twice, more than 10 functions, an unknown kernel. */
export class RegistryError extends GpsimdError {}
/** The kernel sources did not compile. */
export class BuildError extends GpsimdError {}
/** A library file that cannot be loaded. */
export class LibraryFormatError extends GpsimdError {}
/** Device memory (HBM) cannot satisfy an allocation. */
export class DeviceMemoryError extends GpsimdError {}
/** A bad option value. */
export class OptionError extends GpsimdError {}
/** A dtype name that is not one of gpsimd's (code E_DTYPE_NAME); details.names lists the accepted ones. */
export class DTypeNameError extends GpsimdError {}
/** A .npy file gpsimd cannot read: not .npy (E_NPY_FORMAT), big-endian (E_NPY_BYTE_ORDER), fortran_order (E_NPY_FORTRAN), or a dtype gpsimd lacks (E_NPY_DTYPE). */
export class NpyFormatError extends GpsimdError {}

const classes: Record<string, new (code: string, message: string, context?: ErrorContext) => GpsimdError> = {
  GpsimdError, AccessorIndexError, AccessorRankError, ReadOnlyTensorError, TensorRangeError, TcmRangeError, TcmFreeError,
  TcmLeakError, TcmGuardError, StreamAccessorError, CoherenceError, UninitializedTcmError, MulticoreRuleError,
  KernelHeapError, DTypeMismatchError, KernelShapeError, KernelLimitError, SanitizerError, KernelAbortError, KernelTrapError,
  KernelTimeoutError, WorkerCrashError, CrossCoreWriteError, UnwrittenOutputError, CrossCoreRaceError, KernelTamperError, ArgumentError, ShapeFunctionError,
  TensorShapeError, TensorValueError, DisposedTensorError, RegistryError, BuildError, LibraryFormatError, DeviceMemoryError, OptionError,
  DTypeNameError, NpyFormatError, PythonError, NkiSyntaxError, TileShapeError, UninitializedTileError, HbmAccessError, NkiDTypeError,
  NkiRaceError, NkiRuleError,
};

/** Rebuilds a typed error from plain data (from another thread). */
export function errorFromData(data: ErrorData): GpsimdError {
  const cls = classes[data.name] ?? GpsimdError;
  return new cls(data.code, data.message, { op: data.op, core: data.core, details: data.details });
}

/** Plain data for any thrown value. */
export function errorToData(error: unknown): ErrorData {
  if (error instanceof GpsimdError) return error.toJSON();
  const e = error instanceof Error ? error : new Error(String(error));
  return { name: "GpsimdError", code: "E_INTERNAL", message: e.stack ?? e.message };
}
