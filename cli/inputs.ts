// Random arguments for an operator from its kernel's signature: a tensor per
// tensor parameter (sizes and dtype given, values drawn from a seeded
// generator in one of a few kinds), the scalars as given.
import { tensor, parseDType, dtypeInfo, Rng, kByte, kChar, kLong, type DType, type Tensor } from "../host/index.js";
import type { KernelSignature } from "../build/signatures.js";
import { randomBoxes } from "../ops/giou/boxes.js";
import { UsageError, type ValueKind } from "./options.js";


/** Values of one tensor. */
export interface ValueSpec { kind: ValueKind; seed: number; }

const SPECIAL = [0, -0, 1, -1, 1e-30, -1e-30, 1e30, -1e30, 0.5, -2];

/**
 * Values drawn before, by kind, seed and count, while keepDrawnValues is on: `gpsimd watch` reruns a command with the
 * same inputs after every save, and drawing W1's 2 M box coordinates took longer than a rebuild's compile at -O1.
 * tensor() copies the values into device memory, so a kept array is never written.
 */
const drawn = new Map<string, Float32Array>();
let keepDrawn = false;
/** Bytes kept at most; past that the oldest arrays go. */
const DRAWN_BYTES = 64 << 20;

/** Keep the float values drawn (on) or draw them each time (off, the default: check draws new cases all along). */
export function keepDrawnValues(on: boolean): void {
  keepDrawn = on;
  if (!on) drawn.clear();
}

function floatValues(n: number, spec: ValueSpec): Float32Array {
  if (!keepDrawn) return drawFloatValues(n, spec);
  const key = `${spec.kind}:${spec.seed}:${n}`;
  let values = drawn.get(key);
  if (!values) {
    values = drawFloatValues(n, spec);
    drawn.set(key, values);
    let bytes = [...drawn.values()].reduce((sum, v) => sum + v.byteLength, 0);
    for (const [oldest, v] of drawn) {
      if (bytes <= DRAWN_BYTES || oldest === key) break;
      drawn.delete(oldest);
      bytes -= v.byteLength;
    }
  }
  return values;
}

function drawFloatValues(n: number, spec: ValueSpec): Float32Array {
  const rng = new Rng(spec.seed);
  const out = new Float32Array(n);
  if (spec.kind === "normal") rng.fillNormal(out);
  else if (spec.kind === "uniform") rng.fillUniform(out, -1, 1);
  else if (spec.kind === "integers") for (let i = 0; i < n; i++) out[i] = rng.int(-8, 8);
  else if (spec.kind === "boxes") out.set(randomBoxes(rng, Math.floor(n / 4), 1));
  else for (let i = 0; i < n; i++) out[i] = rng.int(0, 2) === 0 ? SPECIAL[rng.int(0, SPECIAL.length - 1)] : rng.normal();
  return out;
}

/** A tensor of the given sizes and dtype with values drawn as spec says. */
export function randomTensor(sizes: number[], dtype: DType, spec: ValueSpec): Tensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  const info = dtypeInfo(dtype);
  if (info.isFloating) return tensor(floatValues(n, spec), sizes, dtype);
  const rng = new Rng(spec.seed);
  const [lo, hi] = dtype === kByte ? [0, 255] : spec.kind === "integers" ? [-8, 8] : dtype === kChar ? [-128, 127] : [-1000, 1000];
  const values = Array.from({ length: n }, () => rng.int(lo, hi));
  return tensor(dtype === kLong ? BigInt64Array.from(values, BigInt) : Int32Array.from(values), sizes, dtype);
}

/** The i-th of a repeated option, or the last one given, or the fallback. */
export function nth<T>(list: T[], i: number, fallback: T): T {
  return list.length === 0 ? fallback : list[Math.min(i, list.length - 1)];
}

/** A scalar argument from text, as the parameter's kind wants it. */
export function scalarValue(text: string, kind: string, name: string): number | bigint | boolean {
  if (kind === "bool") return text === "true" || text === "1";
  if (kind === "i64") {
    let v: bigint;
    try { v = BigInt(text); } catch { throw new UsageError(`--arg ${text} for ${name}: expected an integer`); }
    if (BigInt.asIntN(64, v) !== v) throw new UsageError(`--arg ${text} for ${name}: expected an integer in the int64_t range`);
    // A number, as ops.<lib>.<op> calls pass it; only values past 2^53 stay bigints (the kernel gets them exactly).
    return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  }
  const n = Number(text);
  if (!Number.isFinite(n)) throw new UsageError(`--arg ${text} for ${name}: expected a number`);
  return n;
}

/** Arguments for a kernel: tensors of the given shapes/dtypes (values from seed + position), scalars from --arg. */
export function kernelArguments(kernel: KernelSignature, shapes: number[][], dtypes: string[], scalars: string[], spec: ValueSpec): unknown[] {
  let tensorIndex = 0;
  let scalarIndex = 0;
  return kernel.params.map((p, i) => {
    if (p.kind === "tensor") {
      const sizes = nth(shapes, tensorIndex, undefined as unknown as number[]);
      if (!sizes) throw new UsageError(`${kernel.name} takes tensor ${p.name}: give its sizes with --shape`);
      const dtype = parseDTypeOption(nth(dtypes, tensorIndex, "float32"));
      tensorIndex++;
      return randomTensor(sizes, dtype, { kind: spec.kind, seed: spec.seed * 1000 + i });
    }
    const text = scalars[scalarIndex++];
    if (text === undefined) throw new UsageError(`${kernel.name} takes ${p.kind} ${p.name}: give its value with --arg (in parameter order)`);
    return scalarValue(text, p.kind, p.name);
  });
}

/** A dtype name from the command line. */
export function parseDTypeOption(name: string): DType {
  try {
    return parseDType(name);
  } catch (e) {
    throw new UsageError(`--dtype: ${(e as Error).message}`);
  }
}

/** "float32[32, 4096]" for each tensor, the value for each scalar. */
export function describeArguments(args: unknown[]): string {
  return args.map((a) => (a && typeof a === "object" && "describe" in a ? (a as Tensor).describe() : String(a))).join(", ");
}
