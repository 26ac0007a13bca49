// Operands as the engine sees them: validated, broadcast to the instruction's shape, and with their
// dimensions collapsed (size-1 dimensions dropped, dimensions that are contiguous for every operand
// merged) so that at most six remain and the innermost row is as long as it can be.
import { ArgumentError } from "../../host/checks/errors.js";
import { ENGINE_RANK } from "./engine-layout.js";

/** Element types: 0..7 are gpsimd's ScalarType (host/device/dtype.ts); 8..10 exist only inside the engine. */
export enum EngineDType { F32 = 0, BF16 = 1, F16 = 2, I32 = 3, I8 = 4, I64 = 5, I16 = 6, U8 = 7, U32 = 8, U16 = 9, F64 = 10 }

/** Bytes of one element, by EngineDType. */
export const ELEMENT_BYTES: readonly number[] = [4, 2, 2, 4, 1, 8, 2, 1, 4, 2, 8];

export function isIntegerDType(d: EngineDType): boolean {
  return d >= EngineDType.I32 && d <= EngineDType.U16;
}

/** A tile or tensor region in device memory. */
export interface Operand {
  /** Byte address in device memory of logical element [0, ..., 0]. */
  addr: number;
  dtype: EngineDType;
  /** Rank 1..6 (more if they collapse to 6); zero sizes make the instruction a no-op. */
  shape: readonly number[];
  /** In elements; 0 broadcasts, negative walks backwards. */
  strides: readonly number[];
  /** Byte address of the init map (one byte per element at init + element offset), or 0/undefined when untracked (HBM). */
  init?: number;
}

/** The first element an instruction would read before anything wrote it. */
export interface UninitRead {
  /** Which input (0-based, in the order the method takes them; scalars count). */
  operand: number;
  /** Its logical index in that operand's shape. */
  index: number[];
}

function fail(message: string, details: Record<string, unknown> = {}): never {
  throw new ArgumentError("E_NKI_ENGINE_OPERAND", message, { details });
}

const isInt = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n);

/** Checks an operand's description; returns its element count. */
export function checkOperand(o: Operand, what: string): number {
  if (!o || typeof o !== "object") fail(`${what} is not an operand`);
  if (!isInt(o.addr) || o.addr < 0 || o.addr >= 2 ** 32) fail(`${what} has address ${o.addr}, not a device memory address`, { addr: o.addr });
  if (!isInt(o.dtype) || o.dtype < 0 || o.dtype >= ELEMENT_BYTES.length) fail(`${what} has dtype code ${o.dtype}; codes are 0..${ELEMENT_BYTES.length - 1}`, { dtype: o.dtype });
  if (!Array.isArray(o.shape) || o.shape.length < 1) fail(`${what} has shape ${JSON.stringify(o.shape)}; rank 1 or more is needed`);
  if (!Array.isArray(o.strides) || o.strides.length !== o.shape.length) fail(`${what} has ${o.strides?.length} strides for rank ${o.shape.length}`);
  let count = 1;
  for (let d = 0; d < o.shape.length; d++) {
    if (!isInt(o.shape[d]) || o.shape[d]! < 0) fail(`${what} has size ${o.shape[d]} in dimension ${d}`, { shape: o.shape });
    if (!isInt(o.strides[d])) fail(`${what} has stride ${o.strides[d]} in dimension ${d}`, { strides: o.strides });
    count *= o.shape[d]!;
  }
  if (o.init !== undefined && (!isInt(o.init) || o.init < 0)) fail(`${what} has init map address ${o.init}`);
  return count;
}

/** The operand's strides over `shape`: equal sizes keep their stride, size 1 broadcasts (stride 0). */
export function broadcastStrides(o: Operand, shape: readonly number[], what: string): number[] {
  if (o.shape.length !== shape.length) fail(`${what} has rank ${o.shape.length} where the output has rank ${shape.length}`, { shape: o.shape, out: shape });
  return shape.map((size, d) => {
    if (o.shape[d] === size) return o.strides[d]!;
    if (o.shape[d] === 1) return 0;
    return fail(`${what} has shape [${o.shape.join(", ")}], which does not broadcast to [${shape.join(", ")}]`, { shape: o.shape, out: shape });
  });
}

/** A walk the engine can take: six sizes and, per operand, six strides. */
export interface Walk { shape: number[]; strides: number[][] }

/** Drops size-1 dimensions, merges dimensions contiguous in every operand, pads in front to six. */
export function collapse(shape: readonly number[], strides: readonly (readonly number[])[]): Walk {
  const dims: { size: number; strides: number[] }[] = [];
  for (let d = 0; d < shape.length; d++) {
    if (shape[d] === 1) continue;
    const here = strides.map((s) => s[d]!);
    const last = dims[dims.length - 1];
    if (last && last.strides.every((s, k) => s === here[k]! * shape[d]!)) {
      last.size *= shape[d]!;
      last.strides = here;
    } else {
      dims.push({ size: shape[d]!, strides: here });
    }
  }
  if (dims.length > ENGINE_RANK) fail(`an operand walk of [${shape.join(", ")}] keeps ${dims.length} dimensions after merging; the engine takes ${ENGINE_RANK}`, { shape });
  const pad = ENGINE_RANK - dims.length;
  return {
    shape: [...Array<number>(pad).fill(1), ...dims.map((x) => x.size)],
    strides: strides.map((_, k) => [...Array<number>(pad).fill(0), ...dims.map((x) => x.strides[k]!)]),
  };
}

/** As collapse, but the innermost dimension stays on its own (an instruction that runs along it). */
export function collapseKeepingLast(shape: readonly number[], strides: readonly (readonly number[])[]): Walk {
  const last = shape.length - 1;
  const outer = collapse([...shape.slice(0, last), 1], strides.map((s) => [...s.slice(0, last), 0]));
  if (outer.shape[0] !== 1) fail(`an operand walk of [${shape.join(", ")}] keeps more than ${ENGINE_RANK - 1} dimensions besides the last`, { shape });
  return {
    shape: [...outer.shape.slice(1), shape[last]!],
    strides: outer.strides.map((s, k) => [...s.slice(1), strides[k]![last]!]),
  };
}

/** The row-major index of `linear` in `shape`. */
export function unravel(linear: number, shape: readonly number[]): number[] {
  const index = new Array<number>(shape.length).fill(0);
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = linear % shape[d]!;
    linear = Math.floor(linear / shape[d]!);
  }
  return index;
}

/** Axes normalised to 0..rank-1 (negative ones count from the end), checked and sorted. */
export function normaliseAxes(axes: readonly number[], rank: number): number[] {
  const out = new Set<number>();
  for (const a of axes) {
    if (!isInt(a) || a < -rank || a >= rank) fail(`axis ${a} is out of range for rank ${rank}`, { axes });
    const n = a < 0 ? a + rank : a;
    if (out.has(n)) fail(`axis ${a} is given twice`, { axes });
    out.add(n);
  }
  return [...out].sort((x, y) => x - y);
}

export { fail as operandError };
