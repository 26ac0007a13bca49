// The tile engine: every NKI instruction on tiles (element-wise arithmetic, activations, tensor_scalar,
// select, reductions, nc_matmul, transpose, iota, memset, copies) is one call into a WebAssembly module
// (assembly/nki/) that reads and writes the operands where they lie in device memory. Only numbers cross
// into WebAssembly: this file validates the operands, collapses their dimensions and writes their
// descriptors into the engine's scratch region.
//
// The instance, the scratch region's descriptors and the init-map check are engine-core.ts's.
// Threads: the module (engineModule()) is compiled once per process from bytes cached per user
// (engine-build.ts); each thread instantiates it over the shared memory with a scratch region of its own
// (ENGINE_SCRATCH_BYTES, allocated on the main thread and handed over with the module).
//
// Refinements of the API as first specified:
// - tileEngineFromModule(mod, scratchAddr, memory?) takes the worker's WebAssembly.Memory (default: this
//   thread's hbm().memory); it also becomes what tileEngine() returns on that thread.
// - Input operands may have size-1 dimensions where the output has more (broadcast, as stride 0).
// - reduce() accepts an output of a's shape with the reduced axes of size 1, or with them removed.
// - matmul(accumulate=true) with a tracked output counts the output as input 2 for UninitRead.
// - transpose() reports an uninitialised read by its index in a's shape; the order of the check is the output's.
// - unary()'s params.scale may be an operand too; params.alpha is prelu's slope (UnaryParams says how UninitRead numbers them).
// - abs_max/abs_min (binary and reduce) follow nki.language: the value of larger/smaller magnitude, with its sign.
// - EngineDType is a plain enum (not const), so code that esbuild or vitest compiles file by file sees its values.
// - copy(out, a) is unary("copy", out, a), the DMA and cast every copy instruction needs.
// - Added: unary ops gelu_apprx_sigmoid, gelu_apprx_sigmoid_dx, prelu; binary abs_min; reduce abs_min;
//   scan() (nisa.tensor_tensor_scan), gather() (nc_n_gather, gather_flattened), max8(), findIndex8(), matchReplace8(); createEngine(scratchAddr?) and ENGINE_SCRATCH_BYTES for hosts of threads.
//
// Semantics (see assembly/nki/*.ts for the formulas): inputs are read exactly, computed in f64 (or in
// i64 when every input is an integer and the operation has an integer form, wrapping to the output's
// width), and rounded once to float32 (then to 16 bits for bf16/f16) when stored; + - * / sqrt and
// comparisons therefore give numpy float32's bits. Immediates are float32 (exact integers in integer
// mode). tensor_scalar's intermediate and an activation's scale and bias steps are rounded to float32,
// as on the engines. Floats stored into integer outputs are truncated toward zero, saturated to int64
// (NaN gives 0) and wrapped to the width. Transcendentals are double-precision libm (AssemblyScript's
// Math; sin/cos/tan the host's Math) rounded to float32: within 1 ulp of a correctly rounded result.
import { isMainThread } from "node:worker_threads";
import { hbm } from "../../host/device/hbm.js";
import { engineBytes } from "./engine-build.js";
import {
  ENGINE_SCRATCH_BYTES, ENGINE_RANK, FLAG_ALPHA, FLAG_BIAS, FLAG_INT, FLAG_SCALE, K_BINARY, K_SELECT, K_TENSOR_SCALAR, K_UNARY,
  PARAMS, P_BASE, P_COEF, RESULT, slotOffset,
} from "./engine-layout.js";
import { EngineCore } from "./engine-core.js";
import {
  BINARY_CODES, FLOAT_ONLY_BINARY, INTEGER_UNARY, REDUCE_CODES, UNARY_CODES, type BinaryOp, type ReduceOp, type UnaryOp,
} from "./engine-ops.js";
import {
  EngineDType, broadcastStrides, checkOperand, collapse, collapseKeepingLast, isIntegerDType, normaliseAxes, operandError, unravel,
  type Operand, type UninitRead,
} from "./engine-operands.js";

export { EngineDType, ENGINE_SCRATCH_BYTES, type Operand, type UninitRead, type UnaryOp, type BinaryOp, type ReduceOp };

/**
 * The parameters of an activation: out = f(a * scale + bias), each step rounded to float32; alpha is
 * prelu's slope (prelu needs it, other operations ignore it). Each is a number or an operand that
 * broadcasts to the output (a per-partition [P, 1] tile). For UninitRead they are inputs 1 (bias),
 * 2 (alpha) and 3 (scale), after a (0).
 */
export interface UnaryParams { scale?: Operand | number; bias?: Operand | number; alpha?: Operand | number }


/** A gather index outside its partition's elements (nothing was written). */
export interface IndexOutOfRange {
  outOfRange: true;
  /** The indices operand (input 1). */
  operand: 1;
  /** Where in indices. */
  index: number[];
  /** The index read there, and the number of elements a partition of data has. */
  value: number;
  size: number;
}

/** An input as the engine takes it: an operand over the instruction's walk, or a scalar immediate. */
type Input = { operand: Operand; strides: readonly number[] } | { scalar: number };

function code(table: ReadonlyMap<string, number>, name: string, what: string): number {
  const c = table.get(name);
  if (c === undefined) return operandError(`${what} ${JSON.stringify(name)} is not an engine operation`, { op: name });
  return c;
}

function checkScalar(v: number, what: string): number {
  if (typeof v !== "number") operandError(`${what} must be a number or an operand`);
  return v;
}

/** Whether an input holds integers (an operand of an integer dtype, or a number that is an exact integer in i64 and f64). */
function integral(x: Operand | number): boolean {
  return typeof x === "number" ? Number.isSafeInteger(x) : isIntegerDType(x.dtype);
}

export class TileEngine extends EngineCore {

  /** out = f(a), or f(a * scale + bias) (activation) when params are given. */
  unary(op: UnaryOp, out: Operand, a: Operand, params?: UnaryParams): UninitRead | null {
    const c = code(UNARY_CODES, op, "unary operation");
    // inputs in their slots: a, bias, alpha, scale (the ones not given hold an unused 0)
    const inputs: (Operand | number)[] = [a, params?.bias ?? 0, params?.alpha ?? 0, params?.scale ?? 1];
    let flags = 0;
    if (params?.bias !== undefined) flags |= FLAG_BIAS;
    if (params?.scale !== undefined) flags |= FLAG_SCALE;
    if (op === "prelu") {
      if (params?.alpha === undefined) operandError("prelu needs its alpha");
      flags |= FLAG_ALPHA;
    }
    if (flags === 0 && INTEGER_UNARY.has(op) && integral(a)) flags |= FLAG_INT;
    return this.elementwise(K_UNARY, c, -1, flags, out, flags & (FLAG_SCALE | FLAG_BIAS | FLAG_ALPHA) ? inputs : [a]);
  }

  /** out = a op b; a number is a scalar immediate. */
  binary(op: BinaryOp, out: Operand, a: Operand | number, b: Operand | number): UninitRead | null {
    const c = code(BINARY_CODES, op, "binary operation");
    const int = !FLOAT_ONLY_BINARY.has(op) && integral(a) && integral(b);
    return this.elementwise(K_BINARY, c, -1, int ? FLAG_INT : 0, out, [a, b]);
  }

  /** out = (a op0 s0) op1 s1 (the intermediate rounded to float32); s0/s1 are numbers or per-partition [P, 1] operands. */
  tensorScalar(out: Operand, a: Operand, op0: BinaryOp, s0: number | Operand, op1?: BinaryOp, s1?: number | Operand): UninitRead | null {
    const c0 = code(BINARY_CODES, op0, "tensor_scalar operation");
    const c1 = op1 === undefined ? -1 : code(BINARY_CODES, op1, "tensor_scalar operation");
    if (op1 !== undefined && s1 === undefined) operandError("tensor_scalar: op1 is given without its operand");
    const inputs: (Operand | number)[] = op1 === undefined ? [a, s0] : [a, s0, s1!];
    const int = inputs.every(integral) && !FLOAT_ONLY_BINARY.has(op0) && (op1 === undefined || !FLOAT_ONLY_BINARY.has(op1));
    return this.elementwise(K_TENSOR_SCALAR, c0, c1, int ? FLAG_INT : 0, out, inputs);
  }

  /** out = cond != 0 ? a : b. */
  select(out: Operand, cond: Operand, a: Operand | number, b: Operand | number): UninitRead | null {
    return this.elementwise(K_SELECT, 0, -1, integral(a) && integral(b) ? FLAG_INT : 0, out, [cond, a, b]);
  }

  /** memset: every element of out becomes value (converted to out's dtype). */
  fill(out: Operand, value: number): void {
    this.elementwise(K_UNARY, 0, -1, integral(value) ? FLAG_INT : 0, out, [checkScalar(value, "fill value")]);
  }

  /** out = a (converted to out's dtype): copies, casts, DMA between tiles and tensors. */
  copy(out: Operand, a: Operand): UninitRead | null {
    return this.unary("copy", out, a);
  }

  /** 2-D transpose: out[j, i] = a[i, j]. */
  transpose(out: Operand, a: Operand): UninitRead | null {
    checkOperand(a, "transpose input");
    if (a.shape.length !== 2 || out.shape.length !== 2) operandError(`transpose takes 2-D operands (got [${a.shape.join(", ")}] -> [${out.shape.join(", ")}])`);
    if (out.shape[0] !== a.shape[1] || out.shape[1] !== a.shape[0]) operandError(`transpose of [${a.shape.join(", ")}] needs an output of [${a.shape[1]}, ${a.shape[0]}], not [${out.shape.join(", ")}]`);
    const view: Operand = { ...a, shape: [a.shape[1]!, a.shape[0]!], strides: [a.strides[1]!, a.strides[0]!] };
    const bad = this.unary("copy", out, view);
    return bad && { operand: 0, index: [bad.index[1]!, bad.index[0]!] };
  }

  /** Reduces a over axes into out (a's shape with those axes of size 1, or without them). */
  reduce(op: ReduceOp, out: Operand, a: Operand, axes: readonly number[]): UninitRead | null {
    const c = code(REDUCE_CODES, op, "reduction");
    checkOperand(out, "reduce output");
    if (checkOperand(a, "reduce input") === 0) return null;
    const rank = a.shape.length;
    const reduced = normaliseAxes(axes, rank);
    const kept = a.shape.map((_, d) => d).filter((d) => !reduced.includes(d));
    const keptSizes = kept.map((d) => a.shape[d]!);
    let outStrides: number[];
    if (out.shape.length === rank) {
      const expected = a.shape.map((n, d) => (reduced.includes(d) ? 1 : n));
      if (expected.some((n, d) => out.shape[d] !== n)) operandError(`reduce output has shape [${out.shape.join(", ")}]; reducing [${a.shape.join(", ")}] over axes [${reduced.join(", ")}] gives [${expected.join(", ")}]`);
      outStrides = kept.map((d) => out.strides[d]!);
    } else if (out.shape.length === kept.length && keptSizes.every((n, i) => out.shape[i] === n)) {
      outStrides = [...out.strides];
    } else {
      return operandError(`reduce output has shape [${out.shape.join(", ")}]; reducing [${a.shape.join(", ")}] over axes [${reduced.join(", ")}] gives [${keptSizes.join(", ")}] (or with size-1 axes kept)`);
    }
    const bad = this.firstUninit([{ operand: a, strides: a.strides }], a.shape, [a.shape]);
    if (bad) return bad;
    const outer = collapse(keptSizes, [outStrides, kept.map((d) => a.strides[d]!)]);
    const inner = collapse(reduced.map((d) => a.shape[d]!), [reduced.map((d) => a.strides[d]!)]);
    this.views();
    this.writeSlot(0, out, outer.shape, outer.strides[0]!);
    this.writeSlot(1, a, inner.shape, inner.strides[0]!);
    this.writeSlot(2, a, outer.shape, outer.strides[1]!);
    this.exports.reduce(this.scratch, c, isIntegerDType(a.dtype) && op !== "mean" ? FLAG_INT : 0);
    return null;
  }

  /** out[M, N] = stationary[K, M]^T @ moving[K, N] in float32 (assembly/nki/matmul.ts); accumulate adds into out. */
  matmul(out: Operand, stationary: Operand, moving: Operand, accumulate: boolean): UninitRead | null {
    checkOperand(out, "matmul output");
    checkOperand(stationary, "matmul stationary");
    checkOperand(moving, "matmul moving");
    if (out.shape.length !== 2 || stationary.shape.length !== 2 || moving.shape.length !== 2) operandError("matmul takes 2-D operands");
    const [K, M] = stationary.shape as [number, number];
    const N = moving.shape[1]!;
    if (moving.shape[0] !== K) operandError(`matmul contracts the partition dimension: stationary [${stationary.shape.join(", ")}] and moving [${moving.shape.join(", ")}] differ in K`);
    if (out.shape[0] !== M || out.shape[1] !== N) operandError(`matmul of stationary [${K}, ${M}] and moving [${K}, ${N}] gives [${M}, ${N}], not [${out.shape.join(", ")}]`);
    if (M === 0 || N === 0) return null;
    const reads = [{ operand: stationary, strides: stationary.strides }, { operand: moving, strides: moving.strides }];
    if (accumulate) reads.push({ operand: out, strides: out.strides });
    const bad = this.firstUninit(reads, null, reads.map((r) => r.operand.shape));
    if (bad) return bad;
    if (K === 0 && !accumulate) { this.fill(out, 0); return null; }
    this.views();
    const pad = (x: number, y: number) => [1, 1, 1, 1, x, y];
    this.writeSlot(0, out, pad(M, N), [0, 0, 0, 0, out.strides[0]!, out.strides[1]!]);
    this.writeSlot(1, stationary, pad(K, M), [0, 0, 0, 0, stationary.strides[0]!, stationary.strides[1]!]);
    this.writeSlot(2, moving, pad(K, N), [0, 0, 0, 0, moving.strides[0]!, moving.strides[1]!]);
    this.exports.matmul(this.scratch, accumulate ? 1 : 0);
    return null;
  }

  /** iota: out[i0, ...] = base + sum(coefficients[k] * i_k), converted to out's dtype. */
  affine(out: Operand, base: number, coefficients: readonly number[]): void {
    if (checkOperand(out, "iota output") === 0) return;
    const rank = out.shape.length;
    if (rank > ENGINE_RANK) operandError(`iota takes at most ${ENGINE_RANK} dimensions`);
    if (coefficients.length !== rank || coefficients.some((c) => typeof c !== "number")) operandError(`iota over rank ${rank} needs ${rank} coefficients (got ${coefficients.length})`);
    const pad = ENGINE_RANK - rank;
    this.views();
    this.writeSlot(0, out, [...Array<number>(pad).fill(1), ...out.shape], [...Array<number>(pad).fill(0), ...out.strides]);
    this.f64[(this.scratch + PARAMS) / 8 + P_BASE] = checkScalar(base, "iota base");
    for (let d = 0; d < ENGINE_RANK; d++) this.f64[(this.scratch + PARAMS) / 8 + P_COEF + d] = d < pad ? 0 : coefficients[d - pad]!;
    this.exports.affine(this.scratch);
  }

  /**
   * tensor_tensor_scan along the last axis, in float32 (each operation rounded):
   * out[..., i] = op1(op0(data0[..., i], out[..., i-1]), data1[..., i]), with initial (a number or a [..., 1]
   * operand) before the first element. Reversed operands: rsub / rdivide. data1 may be a number
   * (tensor_scalar_cumulative is tensorScalar(t, src, op0, imm0) then scan(out, t, 1, reg, op1, "multiply")).
   */
  scan(out: Operand, data0: Operand, data1: Operand | number, initial: number | Operand, op0: BinaryOp, op1: BinaryOp): UninitRead | null {
    const c0 = code(BINARY_CODES, op0, "scan operation"), c1 = code(BINARY_CODES, op1, "scan operation");
    const inputs: (Operand | number)[] = [data0, data1, initial];
    if (checkOperand(out, "scan output") === 0) return null;
    const shape = out.shape;
    const reads = inputs.map((x, i) => (typeof x === "number" ? null : (checkOperand(x, `input ${i}`), { operand: x, strides: broadcastStrides(x, shape, `input ${i}`) })));
    if (reads[2] && reads[2].strides[shape.length - 1] !== 0 && shape[shape.length - 1] !== 1) operandError("the scan's initial value has one element per row");
    const bad = this.firstUninit(reads, shape, reads.map((r) => r?.operand.shape ?? []));
    if (bad) return bad;
    const walked = reads.filter((r) => r !== null);
    const walk = collapseKeepingLast(shape, [out.strides, ...walked.map((r) => r.strides)]);
    this.views();
    this.writeSlot(0, out, walk.shape, walk.strides[0]!);
    let w = 1;
    [data0, data1, initial].forEach((x, i) => {
      if (typeof x === "number") this.writeScalar(i + 1, Math.fround(checkScalar(x, `scan input ${i}`)));
      else this.writeSlot(i + 1, x, walk.shape, walk.strides[w++]!);
    });
    this.exports.scan(this.scratch, c0, c1);
    return null;
  }

  /**
   * Gathers within partitions (nc_n_gather, gather_flattened): out[p, ...j] = data[p, indices[p, ...j]],
   * the index counting data's free elements of partition p in row-major order. out has indices' shape;
   * data and indices are inputs 0 and 1 for UninitRead (a data element is named by its logical index).
   */
  gather(out: Operand, data: Operand, indices: Operand): UninitRead | IndexOutOfRange | null {
    checkOperand(data, "gather data");
    checkOperand(indices, "gather indices");
    if (checkOperand(out, "gather output") === 0) return null;
    if (!isIntegerDType(indices.dtype)) operandError(`gather indices must have an integer dtype (got code ${indices.dtype})`);
    if (out.shape.length !== indices.shape.length || out.shape.some((n, d) => n !== indices.shape[d])) operandError(`gather output [${out.shape.join(", ")}] must have the indices' shape [${indices.shape.join(", ")}]`);
    if (data.shape[0] !== out.shape[0]) operandError(`gather data has ${data.shape[0]} partitions where the indices have ${out.shape[0]}`);
    const free = data.shape.slice(1);
    if (free.length > ENGINE_RANK) operandError(`gather data has more than ${ENGINE_RANK} free dimensions`);
    const size = free.reduce((a, b) => a * b, 1);
    const pad = ENGINE_RANK - free.length;
    const walk = collapse(out.shape, [out.strides, indices.strides, out.shape.map((_, d) => (d === 0 ? data.strides[0]! : 0))]);
    this.views();
    this.writeSlot(0, out, walk.shape, walk.strides[0]!);
    this.writeSlot(1, data, [...Array<number>(pad).fill(1), ...free], [...Array<number>(pad).fill(0), ...data.strides.slice(1)]);
    this.writeSlot(2, indices, walk.shape, walk.strides[1]!);
    this.writeSlot(3, data, walk.shape, walk.strides[2]!);
    const bad = this.exports.gather(this.scratch);
    if (bad < 0) return null;
    const at = unravel(bad, out.shape);
    const kind = this.i32[(this.scratch + RESULT) >> 2]!;
    const value = this.f64[(this.scratch + RESULT + 8) / 8]!;
    if (kind === 1) return { operand: 1, index: at };
    if (kind === 2) return { outOfRange: true, operand: 1, index: at, value, size };
    return { operand: 0, index: [at[0]!, ...unravel(value, free)] };
  }

  /** max8: the 8 largest values of each partition of data (its free elements as float32), descending, into out [P, 8]. */
  max8(out: Operand, data: Operand): UninitRead | null {
    this.checkEight(out, data, "max8 output");
    const bad = this.firstUninit([{ operand: data, strides: data.strides }], null, [data.shape]);
    if (bad) return bad;
    this.writeSearched(data);
    this.writeEight(0, out);
    this.exports.max8(this.scratch);
    return null;
  }

  /**
   * nc_find_index8: for each of vals' 8 values per partition [P, 8], the index of its first occurrence among
   * data's free elements (float32 equality), duplicates taking successive occurrences; all ones when absent.
   * data and vals are inputs 0 and 1.
   */
  findIndex8(out: Operand, data: Operand, vals: Operand): UninitRead | null {
    this.checkEight(out, data, "find_index8 output");
    this.checkEight(vals, data, "find_index8 values");
    const bad = this.firstUninit([{ operand: data, strides: data.strides }, { operand: vals, strides: vals.strides }], null, [data.shape, vals.shape]);
    if (bad) return bad;
    this.writeSearched(data);
    this.writeEight(0, out);
    this.writeEight(2, vals);
    this.exports.match8(this.scratch, 0, 0, 0);
    return null;
  }

  /**
   * nc_match_replace8: out (data's shape) = data with the first occurrence of each of vals' 8 values per
   * partition replaced by imm; vals are taken in reverse order (7..0), duplicates pairing with successive
   * occurrences, as the instruction documents. indices, if given ([P, 8]), receives the positions.
   */
  matchReplace8(out: Operand, data: Operand, vals: Operand, imm: number, indices?: Operand): UninitRead | null {
    checkOperand(out, "match_replace8 output");
    this.checkEight(vals, data, "match_replace8 values");
    if (indices) this.checkEight(indices, data, "match_replace8 indices");
    if (out.shape.length !== data.shape.length || out.shape.some((n, d) => n !== data.shape[d])) operandError(`match_replace8 output [${out.shape.join(", ")}] must have data's shape [${data.shape.join(", ")}]`);
    const bad = this.firstUninit([{ operand: data, strides: data.strides }, { operand: vals, strides: vals.strides }], null, [data.shape, vals.shape]);
    if (bad) return bad;
    this.copy(out, data);
    this.writeSearched(out);
    if (indices) this.writeEight(0, indices);
    else this.i32.fill(0, (this.scratch + slotOffset(0)) >> 2, ((this.scratch + slotOffset(0)) >> 2) + 16);
    this.writeEight(2, vals);
    this.exports.match8(this.scratch, 1, 1, out.dtype === EngineDType.F64 ? imm : Math.fround(checkScalar(imm, "imm")));
    return null;
  }

  /** A [P, 8] operand beside a searched tile of P partitions. */
  private checkEight(o: Operand, data: Operand, what: string): void {
    checkOperand(o, what);
    checkOperand(data, "searched tile");
    if (o.shape.length !== 2 || o.shape[1] !== 8 || o.shape[0] !== data.shape[0]) operandError(`${what} must be [${data.shape[0]}, 8] (got [${o.shape.join(", ")}])`);
    const free = data.shape.slice(1).reduce((a, b) => a * b, 1);
    if (data.shape.length - 1 > ENGINE_RANK || free > MAX_SEARCHED) operandError(`a searched tile has at most ${MAX_SEARCHED} elements per partition in ${ENGINE_RANK} free dimensions (got [${data.shape.join(", ")}])`);
  }

  /** Slots 1 and 3: the searched tile's free dimensions, and its partitions. */
  private writeSearched(t: Operand): void {
    const free = t.shape.slice(1), pad = ENGINE_RANK - free.length;
    this.views();
    this.writeSlot(1, t, [...Array<number>(pad).fill(1), ...free], [...Array<number>(pad).fill(0), ...t.strides.slice(1)]);
    this.writeSlot(3, t, [1, 1, 1, 1, 1, t.shape[0]!], [0, 0, 0, 0, 0, t.strides[0]!]);
  }

  private writeEight(k: number, o: Operand): void {
    this.views();
    this.writeSlot(k, o, [1, 1, 1, 1, o.shape[0]!, 8], [0, 0, 0, 0, o.strides[0]!, o.strides[1]!]);
  }

  /** Marks out's elements written (or unwritten) in its init map without computing. */
  markInit(out: Operand, written: boolean): void {
    if (checkOperand(out, "operand") === 0 || !out.init) return;
    const walk = collapse(out.shape, [out.strides]);
    this.views();
    this.writeSlot(0, out, walk.shape, walk.strides[0]!);
    this.exports.markInit(this.scratch, 0, written ? 1 : 0);
  }

  /** One element-wise instruction: check the inputs' init maps, then compute over the output's walk. */
  private elementwise(kind: number, code0: number, code1: number, flags: number, out: Operand, inputs: (Operand | number)[]): UninitRead | null {
    if (checkOperand(out, "output") === 0) {
      inputs.forEach((x, i) => typeof x !== "number" && checkOperand(x, `input ${i}`));
      return null;
    }
    const shape = out.shape;
    // Immediates are float32 on the engines (as numpy 2 takes a Python float with a float32 array), unless the output is f64.
    const immediate = (v: number) => ((flags & FLAG_INT) || out.dtype === EngineDType.F64 ? v : Math.fround(v));
    const ins: Input[] = inputs.map((x, i) => {
      if (typeof x === "number") return { scalar: immediate(checkScalar(x, `input ${i}`)) };
      checkOperand(x, `input ${i}`);
      return { operand: x, strides: broadcastStrides(x, shape, `input ${i}`) };
    });
    const reads = ins.map((x) => ("operand" in x ? x : null));
    const bad = this.firstUninit(reads, shape, reads.map((r) => r?.operand.shape ?? []));
    if (bad) return bad;
    const walked = ins.filter((x): x is Extract<Input, { operand: Operand }> => "operand" in x);
    const walk = collapse(shape, [out.strides, ...walked.map((x) => x.strides)]);
    this.views();
    this.writeSlot(0, out, walk.shape, walk.strides[0]!);
    let w = 1;
    ins.forEach((x, i) => {
      if ("operand" in x) this.writeSlot(i + 1, x.operand, walk.shape, walk.strides[w++]!);
      else this.writeScalar(i + 1, x.scalar);
    });
    this.exports.elementwise(this.scratch, kind, code0, code1, flags);
    return null;
  }
}

/** Elements per partition max8 and the matches can stage (the scratch's matmul region, as float32, and 8 results). */
const MAX_SEARCHED = (1 << 18) - 16;

let compiled: WebAssembly.Module | null = null;
let threadEngine: TileEngine | null = null;

/** The engine's compiled module (compiled once per process), to post to worker threads. */
export function engineModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(engineBytes());
  return compiled;
}

/** A new engine over hbm(); on the main thread the scratch region is allocated when not given. */
export function createEngine(scratchAddr?: number): TileEngine {
  if (scratchAddr === undefined) {
    if (!isMainThread) operandError("a worker thread's engine needs a scratch region allocated on the main thread (tileEngineFromModule)");
    scratchAddr = hbm().alloc(ENGINE_SCRATCH_BYTES, "NKI engine scratch");
  }
  return new TileEngine(engineModule(), scratchAddr, hbm().memory);
}

/** The calling thread's engine (created on first use on the main thread; set by tileEngineFromModule on a worker). */
export function tileEngine(): TileEngine {
  threadEngine ??= createEngine();
  return threadEngine;
}

/** On a worker: the engine from a posted module, over the scratch region the main thread allocated for this thread. */
export function tileEngineFromModule(mod: WebAssembly.Module, scratchAddr: number, memory: WebAssembly.Memory = hbm().memory): TileEngine {
  compiled ??= mod;
  threadEngine = new TileEngine(mod, scratchAddr, memory);
  return threadEngine;
}
