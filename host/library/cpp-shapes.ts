// C++ shape sources on the host: the shape module (build/cpp/shape-module.ts)
// runs its NEURON_LIBRARY bodies at load, and each m.def(...) becomes a
// shape function like a TypeScript one. Calls pass meta tensors as handles
// into a table and numbers as numbers; the tensor imports of the headers are
// answered from the meta tensors (sizes, dtype, factories), and every import
// that would read or write data fails as reading a meta tensor does.
import { Tensor } from "../device/tensor.js";
import { empty, zeros, ones, full, eye } from "../device/factories.js";
import { dtypeFromScalarType } from "../device/dtype.js";
import { ShapeFunctionError, RegistryError } from "../checks/errors.js";
import { get_cpu_count } from "../device/shape-context.js";
import { NEURON_LIBRARY, type LibraryDefinitions, type ShapeFunction } from "./registry.js";
import { createSourceLocator, currentStack, describePlace, type SourceLocator } from "../checks/source-locator.js";
import { STOP_IMPORT, SET_STOP_WORD_EXPORT } from "../../build/stop-poll-names.js";
import { SHAPE_SOURCE_MAP_SECTION } from "../../build/cpp/shape-section-names.js";

/** Export that runs the body of NEURON_LIBRARY(<lib>, m) (include/torchneuron/register.h). */
const LIBRARY_EXPORT = "neuron_library:";
/** Import module of the registration contract (register.h). */
const SHAPE_MODULE = "gpsimd-shape";
/** Import module of the device runtime's C ABI that the headers call (assembly/cpp-abi.ts): tensors are handles. */
const TENSOR_MODULE = "gpsimd-abi";
/** Bytes per argument slot (register.h: union Slot). */
const SLOT_BYTES = 8;

/** The meta tensors of the shape call running now; handle = index (0 is no tensor). */
class Handles {
  private table: (Tensor | null)[] = [null];
  add(t: Tensor): number { this.table.push(t); return this.table.length - 1; }
  get(h: number, what: string): Tensor {
    const t = this.table[h];
    if (!t) throw new Error(`${what}: ${h} is not a tensor of this shape-function call`);
    return t;
  }
  reset(): void { this.table = [null]; }
}

/** The shape-side answers to the device runtime's imports that need only sizes and dtypes, by import name. */
function metaTensorImports(handles: Handles, memory: () => WebAssembly.Memory): Record<string, (...args: never[]) => unknown> {
  const sizes = (ptr: number, n: number) => [...new BigInt64Array(memory().buffer, ptr, n)].map(Number);
  return {
    gpsimd_dim: (h: number) => handles.get(h, "dim()").dim(),
    gpsimd_size: (h: number, d: number) => BigInt(handles.get(h, "size()").size(d)),
    gpsimd_stride: (h: number, d: number) => BigInt(handles.get(h, "stride()").strides()[d < 0 ? d + handles.get(h, "stride()").dim() : d] ?? 0),
    gpsimd_numel: (h: number) => BigInt(handles.get(h, "numel()").numel()),
    gpsimd_scalar_type: (h: number) => handles.get(h, "scalar_type()").dtype.scalarType,
    gpsimd_empty: (p: number, n: number, dtype: number) => handles.add(empty(sizes(p, n), dtypeFromScalarType(dtype))),
    gpsimd_zeros: (p: number, n: number, dtype: number) => handles.add(zeros(sizes(p, n), dtypeFromScalarType(dtype))),
    gpsimd_ones: (p: number, n: number, dtype: number) => handles.add(ones(sizes(p, n), dtypeFromScalarType(dtype))),
    gpsimd_full: (p: number, n: number, value: number, dtype: number) => handles.add(full(sizes(p, n), value, dtypeFromScalarType(dtype))),
    gpsimd_full_i: (p: number, n: number, value: bigint, dtype: number) => handles.add(full(sizes(p, n), Number(value), dtypeFromScalarType(dtype))),
    gpsimd_eye: (n: bigint, m: bigint, dtype: number) => handles.add(eye(Number(n), Number(m), dtypeFromScalarType(dtype))),
    // fill_ on a meta tensor has nothing to fill, as in TypeScript shape functions.
    gpsimd_fill: (h: number) => (handles.get(h, "fill_()"), h),
    gpsimd_fill_i: (h: number) => (handles.get(h, "fill_()"), h),
    // assert() in a C++ shape function: a failed check of the shape function, not a data access.
    gpsimd_assert_fail: (expr: number, exprLen: number, file: number, fileLen: number, line: number) => {
      throw new Error(`assertion failed: ${readString(memory(), expr, exprLen)} (${readString(memory(), file, fileLen)}:${line})`);
    },
    // TORCH_CHECK (include/gpsimd/torch-check.h), AT_DISPATCH_* of a dtype it does not cover: the check's message and line.
    gpsimd_abort: (message: number, file: number, line: number) => {
      const text = readCString(memory(), message);
      const where = file ? readCString(memory(), file) : "";
      throw new ShapeFunctionError("E_SHAPE_FN_CHECK", `${text}${where ? ` (${where}:${line})` : ""}`, { details: { message: text, file: where || undefined, line: where ? line : undefined } });
    },
  };
}

/** The C++ API a device-runtime import stands for (include/torch/torch.h), as the shape function's author wrote it. */
function cppApiName(name: string): string {
  const suffix = /_(f32|f64|i64|i32|i16|u16|i8|u8)$/.exec(name);
  const type = suffix ? ({ f32: "float", f64: "double", i64: "int64_t", i32: "int32_t", i16: "int16_t", u16: "a 16-bit type", i8: "int8_t", u8: "uint8_t" } as Record<string, string>)[suffix[1]] : "T";
  const base = suffix ? name.slice(0, -suffix[0].length) : name;
  const names: Record<string, string> = {
    gpsimd_acc_open: `accessor<${type}, N>() or item<${type}>()`, gpsimd_acc_get: "an accessor element", gpsimd_acc_set: "an accessor element",
    gpsimd_to_tcm: `tcm_accessor().tensor_to_tcm<${type}>`, gpsimd_from_tcm: `tcm_accessor().tcm_to_tensor<${type}>`,
    gpsimd_read_open: `read_stream_accessor<${type}>()`, gpsimd_write_open: `write_stream_accessor<${type}>()`,
    gpsimd_tcm_malloc: "torch::neuron::tcm_malloc", gpsimd_tcm_free: "torch::neuron::tcm_free", gpsimd_dst: "get_dst_tensor()",
    gpsimd_cpu_id: "get_cpu_id()", gpsimd_cpu_count: "get_cpu_count()",
  };
  return names[base] ?? name;
}

/** An import the shape side does not answer: the kernel-only part of the API. */
function kernelOnly(module: string, name: string): () => never {
  return () => {
    if (module === TENSOR_MODULE) {
      throw new ShapeFunctionError("E_SHAPE_FN_DATA", `a shape function may only look at sizes and dtypes; this tensor has no data (the shape function called ${cppApiName(name)}, which only kernels can)`);
    }
    throw new Error(`the shape function called ${module}.${name}, which shape functions cannot use`);
  };
}

function readString(memory: WebAssembly.Memory, ptr: number, len: number): string {
  return new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len));
}

/** A zero-terminated string of the shape module's memory. */
function readCString(memory: WebAssembly.Memory, ptr: number): string {
  const bytes = new Uint8Array(memory.buffer);
  let end = ptr;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(ptr, end));
}

const PARAM_KINDS: Record<string, string> = { t: "torch::Tensor", d: "double", l: "int64_t", s: "torch::Scalar" };

/** Writes the call's arguments into the slots at argv: tensors as handles, numbers as double or int64_t. */
function writeArguments(view: DataView, argv: number, params: string, args: unknown[], handles: Handles, op: string): void {
  if (args.length !== params.length) {
    throw new Error(`the C++ shape function of ${op} takes ${params.length} parameter${params.length === 1 ? "" : "s"} (${[...params].map((k) => PARAM_KINDS[k]).join(", ")}); the call has ${args.length}`);
  }
  [...params].forEach((kind, i) => {
    const v = args[i];
    const at = argv + i * SLOT_BYTES;
    const wrong = () => new Error(`the C++ shape function of ${op}: parameter ${i} is ${PARAM_KINDS[kind]}, the argument is ${v instanceof Tensor ? "a tensor" : typeof v}`);
    if (kind === "t") {
      if (!(v instanceof Tensor)) throw wrong();
      view.setInt32(at, handles.add(v), true);
    } else if (kind === "l") {
      if (typeof v !== "number" && typeof v !== "bigint") throw wrong();
      view.setBigInt64(at, BigInt(v), true);
    } else {
      if (typeof v !== "number") throw wrong();
      view.setFloat64(at, v, true);
    }
  });
}

/** How many polls pass between two looks at the clock (a poll is a host call: the clock costs more). */
const POLLS_PER_CLOCK_LOOK = 4096;

/**
 * The deadline of the shape code running now (a shape function or a NEURON_LIBRARY body): the module's stop polls
 * (build/cpp/shape-polls.ts) call poll(), which stops the code past its deadline with a ShapeFunctionError at the
 * shape source's line. The stop word the polls read stays set while shape code runs, so every poll asks.
 */
class ShapeDeadline {
  private deadline = Infinity;
  private timeoutMs = 0;
  private polls = 0;
  private what = "";
  constructor(private readonly locator: SourceLocator | null, private readonly setWord: ((on: boolean) => void) | null) {}

  /** Runs shape code (`what` names it) under a deadline timeoutMs from now. */
  run<T>(what: string, timeoutMs: number, fn: () => T): T {
    const outer = { deadline: this.deadline, timeoutMs: this.timeoutMs, what: this.what };
    this.deadline = performance.now() + timeoutMs;
    this.timeoutMs = timeoutMs;
    this.what = what;
    this.setWord?.(true);
    try {
      return fn();
    } catch (e) {
      // A trap (unreachable, a bad memory access): the shape function's error at its line.
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      const place = this.locator?.locate(e.stack ?? "") ?? null;
      throw new ShapeFunctionError("E_SHAPE_FN_TRAP", `${what} trapped: ${e.message}${place ? describePlace(place) : ""}`, {
        details: { message: e.message, file: place?.file ?? undefined, line: place?.file ? place.line : undefined, column: place?.file ? place.column : undefined },
        cause: e,
      });
    } finally {
      ({ deadline: this.deadline, timeoutMs: this.timeoutMs, what: this.what } = outer);
      this.setWord?.(this.deadline !== Infinity);
    }
  }

  /** A stop poll of the shape module. */
  poll(): void {
    if (++this.polls % POLLS_PER_CLOCK_LOOK !== 0 || performance.now() <= this.deadline) return;
    const place = this.locator?.locate(currentStack()) ?? null;
    throw new ShapeFunctionError("E_SHAPE_FN_TIMEOUT", `${this.what} ran past timeout_ms (${this.timeoutMs} ms) and was stopped${place ? describePlace(place) : ""}`, {
      details: { timeout_ms: this.timeoutMs, file: place?.file ?? undefined, line: place?.file ? place.line : undefined, column: place?.file ? place.column : undefined },
    });
  }
}

/** The source locator of a shape module built with its source map (older ones have none: no lines). */
function shapeLocator(module: WebAssembly.Module, wasm: Uint8Array): SourceLocator | null {
  const [section] = WebAssembly.Module.customSections(module, SHAPE_SOURCE_MAP_SECTION);
  return section ? createSourceLocator(new TextDecoder().decode(section), new Uint32Array(0), wasm) : null;
}

/** Where the stop word of a shape module lives: address 0, the null page, which no shape code writes. */
const SHAPE_STOP_WORD = 0;

/**
 * Runs the NEURON_LIBRARY bodies of a C++ shape module (inside collectDefinitions, so they register
 * like TypeScript shape sources: same checks, same errors). Shape code runs under the watchdog's deadline:
 * timeoutMs() (the library's timeout_ms) from each call's start.
 */
export function evaluateCppShapes(wasm: Uint8Array<ArrayBuffer>, where: string, timeoutMs: () => number = () => 30_000): void {
  const module = new WebAssembly.Module(wasm);
  const deadline = new ShapeDeadline(shapeLocator(module, wasm), (on) => {
    const set = instance?.exports[SET_STOP_WORD_EXPORT] as ((address: number) => void) | undefined;
    if (!set) return;
    new Int32Array(memory().buffer, SHAPE_STOP_WORD, 1)[0] = on ? 1 : 0;
    set(SHAPE_STOP_WORD);
  });
  const handles = new Handles();
  let instance: WebAssembly.Instance | null = null;
  const memory = () => instance!.exports.memory as WebAssembly.Memory;
  let defining: LibraryDefinitions | null = null;
  const table = () => instance!.exports.__indirect_function_table as WebAssembly.Table;

  const def = (opPtr: number, opLen: number, kernelPtr: number, kernelLen: number, paramsPtr: number, paramsLen: number, thunk: number, fn: number, argv: number) => {
    const op = readString(memory(), opPtr, opLen);
    const kernel = readString(memory(), kernelPtr, kernelLen);
    const params = readString(memory(), paramsPtr, paramsLen);
    const call = table().get(thunk) as (fn: number, argv: number) => number;
    const name = `${defining!.lib}::${op}`;
    const shape: ShapeFunction = (...args: unknown[]) => {
      try {
        writeArguments(new DataView(memory().buffer), argv, params, args, handles, name);
        return handles.get(deadline.run(`the C++ shape function of ${name}`, timeoutMs(), () => call(fn, argv)), `the C++ shape function of ${name} returned a tensor that`);
      } finally {
        handles.reset();
      }
    };
    defining!.def(op, shape, kernel);
  };

  const tensorImports = metaTensorImports(handles, memory);
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== "function") throw new RegistryError("E_SHAPE_MODULE", `${where}: the C++ shape sources import ${imp.kind} ${imp.module}.${imp.name}; shape modules import functions only`);
    const given = imp.module === SHAPE_MODULE && imp.name === "def" ? def
      : imp.module === STOP_IMPORT.module && imp.name === STOP_IMPORT.name ? () => deadline.poll()
      : imp.name === "gpsimd_cpu_count" ? () => get_cpu_count() // torch::neuron::get_cpu_count(): the launch's cores
      : imp.module === TENSOR_MODULE ? tensorImports[imp.name] : undefined;
    (imports[imp.module] ??= {})[imp.name] = (given ?? kernelOnly(imp.module, imp.name)) as WebAssembly.ImportValue;
  }
  instance = new WebAssembly.Instance(module, imports);
  const bodies = WebAssembly.Module.exports(module).filter((e) => e.name.startsWith(LIBRARY_EXPORT));
  for (const body of bodies) {
    const lib = body.name.slice(LIBRARY_EXPORT.length);
    NEURON_LIBRARY(lib, (m) => {
      defining = m;
      deadline.run(`the NEURON_LIBRARY(${lib}, m) body`, timeoutMs(), () => (instance!.exports[body.name] as () => void)());
    });
  }
}
