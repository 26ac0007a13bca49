// Every error class gpsimd can raise gives a verdict that the shipped schema (schema/verdict.schema.json)
// accepts, with its fields (class, code, operator or kernel, core or instance, location, ranges, place)
// taken from the error's details as the raising code spells them. Instances the host API raises for real
// are made for real; the others carry the details their raising code fills (the file named beside each).
import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import * as errors from "../../host/checks/errors.js";
import { GpsimdError } from "../../host/checks/errors.js";
import { toVerdict, verdictOf, problemOf, zeros, tensor, loadNpy } from "../../host/index.js";
import { REPO } from "../helpers.js";
import { validate } from "./json-schema.js";

const SCHEMA = JSON.parse(readFileSync(path.join(REPO, "schema", "verdict.schema.json"), "utf8")) as Record<string, unknown>;

/** The error fn throws (it must throw a gpsimd error). */
function thrown(fn: () => unknown): GpsimdError {
  try { fn(); } catch (e) { if (e instanceof GpsimdError) return e; throw e; }
  throw new Error("expected a gpsimd error");
}

const OP = "my_ops::giou";
const AT = { function: "giou", file: "giou.cpp", line: 26, column: 29 };
const NKI_AT = { file: "kernel.py", line: 12, column: 4, function: "tensor_add_kernel", kernel: "tensor_add_kernel", instance: [1, 0] };
const T = "argument 0 't_in' (float32[4])";

/** One instance per class, with details as its raising code (named) fills them. */
const INSTANCES: Record<string, () => GpsimdError> = {
  // host/checks/violations.ts
  AccessorIndexError: () => new errors.AccessorIndexError("E_ACCESSOR_INDEX", `${OP} (core 3): accessor index 4 ...`, { op: OP, core: 3, details: { slot: 0, tensor: T, index: 4, size: 4, dim: 0, ...AT } }),
  AccessorRankError: () => new errors.AccessorRankError("E_ACCESSOR_RANK", `${OP} (core 0): accessor for 2 dimensions ...`, { op: OP, core: 0, details: { slot: 0, tensor: T, rank: 2, ndim: 1, ...AT } }),
  ReadOnlyTensorError: () => new errors.ReadOnlyTensorError("E_READ_ONLY", `${OP} (core 0): write through ...`, { op: OP, core: 0, details: { slot: 0, tensor: T, kind: "element-wise", index: 2, ...AT } }),
  TensorRangeError: () => new errors.TensorRangeError("E_TENSOR_RANGE", `${OP} (core 1): TCM copy of 8 elements at offset 0 ...`, { op: OP, core: 1, details: { slot: 0, tensor: T, offset: 0, count: 8, numel: 4, ...AT } }),
  TcmRangeError: () => new errors.TcmRangeError("E_TCM_RANGE", `${OP} (core 0): TCM copy ...`, { op: OP, core: 0, details: { slot: 0, tensor: T, address: 384, bytes: 32, room: 16, ...AT } }),
  TcmFreeError: () => new errors.TcmFreeError("E_TCM_FREE_FOREIGN", `${OP} (core 0): tcm_free(TCM+0x190) ...`, { op: OP, core: 0, details: { slot: -1, address: 400, ...AT } }),
  TcmLeakError: () => new errors.TcmLeakError("E_TCM_LEAK", `${OP} (core 0): 1 TCM block ...`, { op: OP, core: 0, details: { slot: -1, blocks: 1, bytes: 128, first: 384, ...AT } }),
  TcmGuardError: () => new errors.TcmGuardError("E_TCM_GUARD", `${OP} (core 0): bytes past the end ...`, { op: OP, core: 0, details: { slot: -1, address: 384, bytes: 16, past: 0, firstWritten: 16, firstChanged: 16, ...AT } }),
  StreamAccessorError: () => new errors.StreamAccessorError("E_STREAM_END", `${OP} (core 0): read stream ...`, { op: OP, core: 0, details: { slot: 0, tensor: T, position: 4, numel: 4, ...AT } }),
  CoherenceError: () => new errors.CoherenceError("E_INCOHERENT", `${OP} (core 0): write stream opened ...`, { op: OP, core: 0, details: { slot: 0, tensor: T, requested: "write stream", active: "element-wise", policy: "COHERENT", ...AT } }),
  UninitializedTcmError: () => new errors.UninitializedTcmError("E_UNINITIALIZED_TCM", `${OP} (core 0): tcm_to_tensor copied TCM ...`, { op: OP, core: 0, details: { slot: 1, tensor: T, offset: 3, address: 396, count: 4, ...AT } }),
  MulticoreRuleError: () => new errors.MulticoreRuleError("E_MULTICORE_ACCESSOR", `${OP} (core 2): element-wise accessor ...`, { op: OP, core: 2, details: { slot: 0, tensor: T, kind: "element-wise", ...AT } }),
  KernelHeapError: () => new errors.KernelHeapError("E_HEAP_EXHAUSTED", `${OP} (core 0): the kernel heap is full ...`, { op: OP, core: 0, details: { slot: -1, asked: 4096, free: 1024, size: 65536, ...AT } }),
  DTypeMismatchError: () => new errors.DTypeMismatchError("E_DTYPE_MISMATCH", `${OP} (core 0): accessor element type ...`, { op: OP, core: 0, details: { slot: 0, tensor: T, elementBytes: 4, dtype: "int32", ...AT } }),
  KernelShapeError: () => new errors.KernelShapeError("E_TENSOR_OP", `${OP} (core 0): add: ...`, { op: OP, core: 0, details: { slot: 2, tensor: T, operation: "add", what: "shapes", ...AT } }),
  KernelLimitError: () => new errors.KernelLimitError("E_TOO_MANY", `${OP} (core 0): more than 64 stream accessors ...`, { op: OP, core: 0, details: { slot: -1, what: "stream accessors", limit: 64, ...AT } }),
  // host/checks/sanitizer.ts
  SanitizerError: () => new errors.SanitizerError("E_SANITIZE_STORE", `${OP} (core 0): 4-byte store at 0x10 ...`, { op: OP, core: 0, details: { access: "store", address: 16, bytes: 4, what: "below the stack", ...AT, allowed: [{ start: 1024, end: 4096, writable: true, what: "stack" }] } }),
  // host/cores/kernel-instance.ts, outcome.ts, pool.ts, descriptors.ts; host/library/library.ts
  KernelAbortError: () => new errors.KernelAbortError("E_ABORT", `${OP} (core 0): abort: assertion failed ...`, { op: OP, core: 0, details: { message: "assertion failed", ...AT } }),
  KernelTrapError: () => new errors.KernelTrapError("E_TRAP", `${OP} (core 0): integer divide by zero ...`, { op: OP, core: 0, details: { message: "divide by zero", ...AT } }),
  KernelTimeoutError: () => new errors.KernelTimeoutError("E_TIMEOUT", `${OP}: still running after 100 ms ...`, { op: OP, core: 0, details: { running: [0], notStarted: [], timeout_ms: 100 } }),
  WorkerCrashError: () => new errors.WorkerCrashError("E_WORKER_DIED", `${OP}: core thread 0 died ...`, { op: OP, details: { thread: 0 } }),
  CrossCoreWriteError: () => new errors.CrossCoreWriteError("E_CROSS_CORE_OVERLAP", `${OP}: cores 0 and 1 both wrote output elements [3, 7) of float32[2, 8]; ...`, { op: OP, details: { overlaps: [{ cores: [0, 1], start: 3, end: 7 }] } }),
  CrossCoreRaceError: () => new errors.CrossCoreRaceError("E_CROSS_CORE_RACE", `${OP}: core 0 read output elements [16, 17) of float32[2, 8], which core 1 wrote in the same call; ...`, { op: OP, core: 0, details: { tensor: "output (float32[2, 8])", reader: 0, writer: 1, start: 16, end: 17, races: [{ reader: 0, writer: 1, start: 16, end: 17 }], places: [{ core: 0, access: "read", ...AT }, { core: 1, access: "write", ...AT }], ...AT } }),
  UnwrittenOutputError: () => new errors.UnwrittenOutputError("E_UNWRITTEN_OUTPUT", `${OP}: 16 output elements were written by no core ...`, { op: OP, details: { gaps: [[0, 16]], unwritten: 16 } }),
  KernelTamperError: () => new errors.KernelTamperError("E_TAMPER", `${OP} (core 0): the kernel changed ...`, { op: OP, core: 0, details: { tensor: "t_in", field: 8, before: 4, after: 5 } }),
  // nki/ (nki/machine/site.ts errorDetails: file, line, column, function, kernel, instance, then the error's own)
  PythonError: () => new errors.PythonError("E_PY_ZeroDivisionError", "ZeroDivisionError: division by zero at f (kernel.py:12:4)", { details: { ...NKI_AT, pyType: "ZeroDivisionError" } }),
  NkiSyntaxError: () => new errors.NkiSyntaxError("E_NKI_UNSUPPORTED", "index expressions support +, - and * ...", { details: { ...NKI_AT, operator: "/" } }),
  TileShapeError: () => new errors.TileShapeError("E_NKI_TILE_RANGE", "nl.load: indices 0..128 of dimension 0 of a_tile outside the allowed range 0..127", { details: { ...NKI_AT, instruction: "nl.load", tensor: "a_tile", tile: "a_tile", buffer: "sbuf", dim: 0, asked: [0, 128], allowed: [0, 127], shape: [128, 512] } }),
  UninitializedTileError: () => new errors.UninitializedTileError("E_NKI_UNINIT", "nl.store: acc read before any instruction wrote it", { details: { ...NKI_AT, instruction: "nl.store", tile: "acc", buffer: "psum", index: [0, 0], shape: [128, 512] } }),
  HbmAccessError: () => new errors.HbmAccessError("E_NKI_HBM_RANGE", "nl.load: indices 128..255 of dimension 0 of a_input outside the allowed range 0..199", { details: { ...NKI_AT, instruction: "nl.load", tensor: "a_input", buffer: "hbm", dim: 0, asked: [128, 255], allowed: [0, 199], shape: [200, 512] } }),
  NkiDTypeError: () => new errors.NkiDTypeError("E_NKI_DTYPE", "nl.matmul: float64 ...", { details: { ...NKI_AT, instruction: "nl.matmul", dtype: "float64" } }),
  NkiRaceError: () => new errors.NkiRaceError("E_NKI_RACE", "iterations i=0 and i=1 both write ...", { details: { ...NKI_AT, buffer: "hbm", tensor: "out", range: { lo: 0, hi: 127, flat: true }, loop: { kind: "affine_range", file: "kernel.py", line: 10, variable: "i" } } }),
  NkiRuleError: () => new errors.NkiRuleError("E_NKI_RULE", "control flow on a tile value ...", { details: { ...NKI_AT, rule: "tile-branch", source: "nki docs" } }),
  // host/library/*, host/device/*
  ArgumentError: () => new errors.ArgumentError("E_ARG_COUNT", `${OP} expects 2 arguments ...`, { op: OP, details: { expected: 2, got: 1 } }),
  ShapeFunctionError: () => new errors.ShapeFunctionError("E_SHAPE_FN_CHECK", "TORCH_CHECK failed (shape.cpp:7)", { details: { message: "TORCH_CHECK failed", file: "shape.cpp", line: 7 } }),
  TensorShapeError: () => thrown(() => zeros([-1], "float32")),
  TensorValueError: () => thrown(() => tensor([Number.NaN], [1], "int32")),
  DisposedTensorError: () => thrown(() => { const t = zeros([2], "float32"); t.dispose(); return t.data(); }),
  RegistryError: () => new errors.RegistryError("E_DUPLICATE_LIBRARY", "library my_ops is already registered ...", { details: { lib: "my_ops" } }),
  BuildError: () => new errors.BuildError("E_BUILD", "custom_op.load(giou): the build failed:\ngiou.cpp:3:1: error: ...", { details: { messages: ["giou.cpp:3:1: error: unknown type name"] } }),
  LibraryFormatError: () => new errors.LibraryFormatError("E_LIBRARY_FORMAT", "libx.wasm is not a gpsimd library", { details: { file: "libx.wasm" } }),
  DeviceMemoryError: () => new errors.DeviceMemoryError("E_HBM_FULL", "HBM cannot hold 64 GiB more", { details: { bytes: 68719476736 } }),
  OptionError: () => new errors.OptionError("E_OPTION", "option cores: 0 is not valid; expected an integer from 1 to 64", { details: { option: "cores", value: 0 } }),
  DTypeNameError: () => thrown(() => zeros([2], "float99" as never)),
  NpyFormatError: () => thrown(() => loadNpy(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))),
  GpsimdError: () => new GpsimdError("E_NKI_RETURN", "k returned a string; a kernel returns an HBM tensor ...", { details: { kernel: "k" } }),
};

/** Every class errors.ts exports. */
const CLASSES = Object.entries(errors).filter(([, v]) => typeof v === "function" && (v === GpsimdError || v.prototype instanceof GpsimdError)).map(([k]) => k);

describe("the verdict of every error class validates against schema/verdict.schema.json", () => {
  it("covers every class errors.ts exports", () => {
    expect(CLASSES.length).toBeGreaterThan(40);
    expect(CLASSES.filter((c) => !(c in INSTANCES))).toEqual([]);
  });

  it.each(CLASSES)("%s", (name) => {
    const e = INSTANCES[name]();
    expect(e.name).toBe(name);
    const v = verdictOf(e, "run");
    expect(validate(SCHEMA, JSON.parse(JSON.stringify(v)))).toEqual([]);
    expect(v.verdict).toBe("error");
    expect(v.errors[0]).toMatchObject({ class: name, code: e.code, message: e.message });
  });
});

describe("one mapping of detail spellings onto the schema's fields", () => {
  it("an element-wise index names the asked and allowed ranges, the tensor, core and place", () => {
    expect(problemOf(INSTANCES.AccessorIndexError())).toMatchObject({ op: OP, core: 3, tensor: T, index: [4, 4], allowed: [0, 3], location: { space: "tensor", dim: 0 }, file: "giou.cpp", line: 26, column: 29, function: "giou" });
  });
  it("a TCM copy past its block is a byte range at its TCM address, allowed up to the block's end", () => {
    expect(problemOf(INSTANCES.TcmRangeError())).toMatchObject({ index: [384, 415], allowed: [384, 399], location: { space: "tcm", address: 384 } });
  });
  it("a tensor copy's offset and count become the element range [offset, offset + count - 1]", () => {
    expect(problemOf(INSTANCES.TensorRangeError())).toMatchObject({ index: [0, 7], allowed: [0, 3] });
  });
  it("NKI asked/allowed pairs keep their buffer, tile, kernel and SPMD instance", () => {
    expect(problemOf(INSTANCES.TileShapeError())).toMatchObject({ kernel: "tensor_add_kernel", instance: [1, 0], tensor: "a_tile", index: [0, 128], allowed: [0, 127], location: { space: "sbuf", name: "a_tile", dim: 0 }, file: "kernel.py", line: 12 });
    expect(problemOf(INSTANCES.HbmAccessError())).toMatchObject({ location: { space: "hbm", name: "a_input" }, index: [128, 255], allowed: [0, 199] });
  });
  it("a race's shared range and a cross-core overlap's elements are index ranges", () => {
    expect(problemOf(INSTANCES.NkiRaceError())).toMatchObject({ index: [0, 127], location: { space: "hbm", name: "out" } });
    expect(problemOf(INSTANCES.CrossCoreWriteError())).toMatchObject({ index: [3, 6], location: { space: "tensor" } });
    expect(problemOf(INSTANCES.CrossCoreRaceError())).toMatchObject({ index: [16, 16], location: { space: "tensor" }, core: 0, tensor: "output (float32[2, 8])", file: "giou.cpp", line: 26 });
    expect(problemOf(INSTANCES.UnwrittenOutputError())).toMatchObject({ index: [0, 15] });
  });
  it("a verdict without errors is ok, with warnings only is warnings", () => {
    expect(verdictOf(null).verdict).toBe("ok");
    const warned = toVerdict("run", [], { warnings: [{ class: "Warning", code: "E_TCM_LEAK", message: "m", details: {} }] });
    expect(warned.verdict).toBe("warnings");
    expect(validate(SCHEMA, warned)).toEqual([]);
  });
  it("the validator rejects what the schema forbids (so the tests above can fail)", () => {
    const bad = { ...verdictOf(INSTANCES.TcmRangeError()), extra: 1 } as Record<string, unknown>;
    expect(validate(SCHEMA, bad)).toEqual(["$: unexpected property extra"]);
    const badIndex = verdictOf(INSTANCES.TcmRangeError());
    (badIndex.errors[0] as unknown as Record<string, unknown>).index = [1];
    expect(validate(SCHEMA, JSON.parse(JSON.stringify(badIndex)))).toEqual(["$.errors[0].index: fewer than 2 items"]);
  });
});

