// Operands in device memory for the tile engine's tests: allocation, element access by logical index
// through any strides, and plain TypeScript encodings of each dtype (host/device/dtype.ts's exact
// bf16/f16 converters) to compute expected results with.
import { expect } from "vitest";
import { hbm } from "../../host/device/hbm.js";
import { bf16BitsToF32, f16BitsToF32, f32ToBf16Bits, f32ToF16Bits } from "../../host/device/dtype.js";
import { EngineDType as D, type Operand } from "../../nki/machine/engine.js";

export const BYTES = [4, 2, 2, 4, 1, 8, 2, 1, 4, 2, 8];
export const isFloat = (d: D) => d === D.F32 || d === D.BF16 || d === D.F16 || d === D.F64;

const mem = hbm();

/** Row-major strides of shape. */
export function contiguous(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length).fill(1);
  for (let d = shape.length - 2; d >= 0; d--) s[d] = s[d + 1]! * shape[d + 1]!;
  return s;
}

export interface Layout { strides?: number[]; reversed?: boolean; gap?: number; init?: boolean }

/**
 * A new operand of shape: contiguous, or with every stride multiplied by `gap` (non-unit strides), or
 * walking memory backwards (negative strides), or with explicit strides (0 broadcasts). With init, an
 * init map of one byte per element, all unwritten.
 */
export function operand(dtype: D, shape: readonly number[], layout: Layout = {}): Operand {
  const base = layout.strides ?? contiguous(shape).map((s) => s * (layout.gap ?? 1));
  const span = shape.reduce((acc, n, d) => acc + (n - 1) * Math.abs(base[d]!), 0) + 1;
  const addr = mem.alloc(span * BYTES[dtype]!, "engine test operand");
  const init = layout.init ? mem.alloc(span, "engine test init map") : 0;
  if (init) mem.bytes().fill(0, init, init + span);
  const strides = layout.reversed ? base.map((s) => -s) : base;
  const offset = layout.reversed ? span - 1 : 0;
  return { addr: addr + offset * BYTES[dtype]!, dtype, shape: [...shape], strides, init: init ? init + offset : 0 };
}

function elementOffset(o: Operand, index: readonly number[]): number {
  return index.reduce((acc, i, d) => acc + i * o.strides[d]!, 0);
}

/** The stored bits or integer of one element. */
export function getRaw(o: Operand, index: readonly number[]): number {
  const p = o.addr + elementOffset(o, index) * BYTES[o.dtype]!;
  const v = mem.view();
  switch (o.dtype) {
    case D.F32: return v.getUint32(p, true);
    case D.BF16: case D.F16: case D.U16: return v.getUint16(p, true);
    case D.I32: return v.getInt32(p, true);
    case D.I8: return v.getInt8(p);
    case D.I64: return Number(v.getBigInt64(p, true));
    case D.I16: return v.getInt16(p, true);
    case D.U8: return v.getUint8(p);
    case D.U32: return v.getUint32(p, true);
    default: return v.getFloat64(p, true);
  }
}

/** One element's value. */
export function get(o: Operand, index: readonly number[]): number {
  const raw = getRaw(o, index);
  switch (o.dtype) {
    case D.F32: return new Float32Array(new Uint32Array([raw]).buffer)[0]!;
    case D.BF16: return bf16BitsToF32(raw);
    case D.F16: return f16BitsToF32(raw);
    case D.F64: { const p = o.addr + elementOffset(o, index) * 8; return mem.view().getFloat64(p, true); }
    default: return raw;
  }
}

/** The stored form of value in dtype: float32 rounding (then 16 bits), or truncation and wrapping for integers. */
export function encode(dtype: D, value: number): number {
  switch (dtype) {
    case D.F32: return new Uint32Array(new Float32Array([value]).buffer)[0]!;
    case D.BF16: return f32ToBf16Bits(value);
    case D.F16: return f32ToF16Bits(value);
    case D.F64: return value;
    default: {
      // toward zero, saturated to int64 (NaN gives 0), then wrapped to the width
      const t = Number.isNaN(value) ? 0n : value >= 2 ** 63 ? 2n ** 63n - 1n : value < -(2 ** 63) ? -(2n ** 63n) : BigInt(Math.trunc(value));
      const bits = [0, 0, 0, 32, 8, 64, 16, 8, 32, 16][dtype]!;
      const signed = dtype === D.I32 || dtype === D.I8 || dtype === D.I16 || dtype === D.I64;
      const w = BigInt.asUintN(bits, t);
      return Number(signed ? BigInt.asIntN(bits, w) : w);
    }
  }
}

/** Writes one element (value encoded as encode() does). */
export function set(o: Operand, index: readonly number[], value: number): void {
  const p = o.addr + elementOffset(o, index) * BYTES[o.dtype]!;
  const v = mem.view();
  const raw = encode(o.dtype, value);
  switch (o.dtype) {
    case D.F32: case D.U32: v.setUint32(p, raw, true); break;
    case D.BF16: case D.F16: case D.U16: v.setUint16(p, raw, true); break;
    case D.I32: v.setInt32(p, raw, true); break;
    case D.I8: v.setInt8(p, raw); break;
    case D.I64: v.setBigInt64(p, BigInt(raw), true); break;
    case D.I16: v.setInt16(p, raw, true); break;
    case D.U8: v.setUint8(p, raw); break;
    default: v.setFloat64(p, value, true);
  }
}

/** Every logical index of shape, row-major. */
export function* indices(shape: readonly number[]): Generator<number[]> {
  const n = shape.reduce((a, b) => a * b, 1);
  for (let i = 0; i < n; i++) {
    const idx = new Array<number>(shape.length);
    let r = i;
    for (let d = shape.length - 1; d >= 0; d--) { idx[d] = r % shape[d]!; r = Math.floor(r / shape[d]!); }
    yield idx;
  }
}

/** Fills o with f(index) (encoded in its dtype). */
export function fillWith(o: Operand, f: (index: number[], flat: number) => number): void {
  let flat = 0;
  for (const i of indices(o.shape)) set(o, i, f(i, flat++));
}

/** The init byte of one element. */
export function initByte(o: Operand, index: readonly number[]): number {
  return mem.bytes()[o.init! + elementOffset(o, index)]!;
}

/** Marks every element of o written in its init map. */
export function markAllWritten(o: Operand): void {
  const bytes = mem.bytes();
  for (const i of indices(o.shape)) bytes[o.init! + elementOffset(o, i)] = 1;
}

/** Deterministic pseudo-random numbers in [-scale, scale). */
export function rng(seed: number): (scale?: number) => number {
  let s = seed >>> 0;
  return (scale = 1) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return ((s / 2 ** 32) * 2 - 1) * scale;
  };
}

/** Units in the last place of float32 between two values (NaN equals NaN). */
export function ulpsF32(x: number, y: number): number {
  if (Number.isNaN(x) && Number.isNaN(y)) return 0;
  if (x === y) return 0;
  const bx = new Int32Array(new Float32Array([x]).buffer)[0]!, by = new Int32Array(new Float32Array([y]).buffer)[0]!;
  const ox = bx < 0 ? -2147483648 - bx : bx, oy = by < 0 ? -2147483648 - by : by;
  return Math.abs(ox - oy);
}

/** Expects every element of out to be stored as encode(out.dtype, f(index)), NaN matching any NaN. */
export function expectElements(out: Operand, f: (index: number[]) => number): void {
  const bad: string[] = [];
  for (const i of indices(out.shape)) {
    const want = f(i);
    const got = getRaw(out, i);
    const ok = isFloat(out.dtype) && Number.isNaN(want) ? Number.isNaN(get(out, i)) : got === encode(out.dtype, want);
    if (!ok && bad.length < 5) bad.push(`[${i.join(", ")}]: got ${get(out, i)} (raw ${got}), want ${want}`);
  }
  expect(bad).toEqual([]);
}
