// Tensor factories, as in torch: each takes its dtype explicitly. Called from
// a shape function they make meta tensors (shape and dtype, no storage).
import { kFloat, kBFloat16, kHalf, kLong, kInt, kShort, kChar, kByte, type DType, parseDType, dtypeInfo, encodeInto, encodeScalar, f32ToBf16Bits, f32ToF16Bits } from "./dtype.js";
import { Tensor, checkSizes } from "./tensor.js";
import { inShapeFunction } from "./shape-context.js";
import { Rng } from "./rng.js";
import { TensorShapeError } from "../checks/errors.js";

/** A dtype (kFloat, t.dtype, ...) or one of its names ("float32", "bf16", ...); not a ScalarType number. */
export type DTypeLike = DType | string;

function make(sizes: readonly number[], dtype: DTypeLike): Tensor {
  return new Tensor(checkSizes(sizes), parseDType(dtype), inShapeFunction());
}

/** Storage bits of value in dtype t (what fills a typed array of that dtype). */
function storageValue(t: DType, value: number): number | bigint {
  if (t === kBFloat16) return f32ToBf16Bits(value);
  if (t === kHalf) return f32ToF16Bits(value);
  if (t === kLong) return BigInt(Math.trunc(value));
  return value;
}

function fill(t: Tensor, value: number): Tensor {
  if (t.is_meta) return t;
  const view = t.storageView();
  const raw = storageValue(t.dtype, value);
  if (typeof raw === "bigint") (view as BigInt64Array).fill(raw);
  else if (t.dtype === kFloat || t.dtype === kBFloat16 || t.dtype === kHalf) (view as Float32Array | Uint16Array).fill(raw);
  else {
    // Encode once (checking the value fits the dtype) into a scratch element: the tensor may have none.
    const one = new (view.constructor as new (n: number) => typeof view)(1);
    encodeInto(t.dtype, one, [raw]);
    view.fill(one[0] as never);
  }
  return t;
}

/** A tensor with undefined contents (zero-filled here). */
export function empty(sizes: readonly number[], dtype: DTypeLike): Tensor { return fill(make(sizes, dtype), 0); }
/** A tensor of zeros. */
export function zeros(sizes: readonly number[], dtype: DTypeLike): Tensor { return fill(make(sizes, dtype), 0); }
/** A tensor of ones. */
export function ones(sizes: readonly number[], dtype: DTypeLike): Tensor { return fill(make(sizes, dtype), 1); }
/** A tensor filled with value (converted to the dtype). */
export function full(sizes: readonly number[], value: number, dtype: DTypeLike): Tensor { return fill(make(sizes, dtype), value); }

/** An n x m matrix (m defaults to n) with ones on the diagonal. */
export function eye(n: number, m: number | DTypeLike, dtype?: DTypeLike): Tensor {
  const cols = typeof m === "number" ? m : n;
  const t = zeros([n, cols], typeof m === "number" ? dtype ?? kFloat : m);
  if (t.is_meta) return t;
  const view = t.storageView();
  const one = storageValue(t.dtype, 1);
  for (let i = 0; i < Math.min(n, cols); i++) {
    if (typeof one === "bigint") (view as BigInt64Array)[i * cols + i] = one;
    else (view as Float32Array)[i * cols + i] = one;
  }
  return t;
}

type TypedInput = Float32Array | Float64Array | Int32Array | Int16Array | Int8Array | Uint8Array | BigInt64Array | Uint16Array;
/** Nested arrays of numbers (or bigints for int64). */
export type NestedArray = number | bigint | NestedArray[];

function inferDType(data: TypedInput | NestedArray): DType {
  if (data instanceof Int32Array) return kInt;
  if (data instanceof Int16Array) return kShort;
  if (data instanceof Int8Array) return kChar;
  if (data instanceof Uint8Array) return kByte;
  if (data instanceof BigInt64Array) return kLong;
  if (data instanceof Uint16Array) throw new TensorShapeError("E_DTYPE", "tensor(): a Uint16Array is ambiguous (bfloat16 or float16 bits?); pass the dtype");
  return kFloat;
}

function shapeOf(data: NestedArray): number[] {
  const shape: number[] = [];
  let x: NestedArray = data;
  while (Array.isArray(x)) { shape.push(x.length); x = x[0] ?? 0; }
  return shape;
}

function flatten(data: NestedArray, shape: number[], dim: number, out: (number | bigint)[]): void {
  if (dim === shape.length) {
    if (Array.isArray(data)) throw new TensorShapeError("E_RAGGED", `tensor(): nested arrays are deeper than the shape [${shape.join(", ")}] taken from the first elements`);
    out.push(data);
    return;
  }
  if (!Array.isArray(data) || data.length !== shape[dim]) {
    throw new TensorShapeError("E_RAGGED", `tensor(): ragged nested array: expected ${shape[dim]} elements in dimension ${dim}, got ${Array.isArray(data) ? data.length : "a scalar"}`);
  }
  for (const item of data) flatten(item, shape, dim + 1, out);
}

/** A tensor from a typed array (shape defaults to 1-d) or nested arrays (shape from the nesting). */
export function tensor(data: TypedInput | NestedArray, shape?: readonly number[], dtype?: DTypeLike): Tensor {
  if (shape !== undefined && !Array.isArray(shape)) {
    throw new TensorShapeError("E_SHAPE", `tensor(data, shape?, dtype?): shape must be an array of sizes, got ${typeof shape} ${String(shape)}; to give only the dtype write tensor(data, undefined, dtype)`);
  }
  const t = dtype === undefined ? inferDType(data) : parseDType(dtype);
  let flat: ArrayLike<number> | ArrayLike<bigint>;
  let sizes: number[];
  if (ArrayBuffer.isView(data)) {
    flat = data as ArrayLike<number>;
    sizes = shape ? [...shape] : [flat.length];
  } else {
    sizes = shapeOf(data);
    const out: (number | bigint)[] = [];
    flatten(data, sizes, 0, out);
    flat = out as ArrayLike<number>;
    if (shape) sizes = [...shape];
  }
  const count = sizes.reduce((a, b) => a * b, 1);
  if (count !== flat.length) throw new TensorShapeError("E_SHAPE", `tensor(): ${flat.length} values do not fill shape [${sizes.join(", ")}] (${count} elements)`);
  const result = new Tensor(checkSizes(sizes), t);
  if (t === kLong) encodeInto(t, result.storageView(), Array.from(flat as ArrayLike<number | bigint>, (v) => encodeScalar(t, v) as bigint));
  else if ((t === kBFloat16 || t === kHalf) && data instanceof Uint16Array) (result.storageView() as Uint16Array).set(data);
  // A typed array goes in as it is: through JS numbers a float32 signalling NaN would come out quieted.
  else if (ArrayBuffer.isView(data) && !(data instanceof BigInt64Array || data instanceof BigUint64Array)) encodeInto(t, result.storageView(), data as ArrayLike<number>);
  else encodeInto(t, result.storageView(), Array.from(flat as ArrayLike<number | bigint>, Number));
  return result;
}

/** Options of the random factories. */
export interface RandomOptions { dtype?: DTypeLike; seed?: number | bigint; }

/** Uniform values in [0, 1), from a seeded generator (seed 0 unless given). */
export function rand(sizes: readonly number[], options: RandomOptions = {}): Tensor {
  return random(sizes, options, (rng, out) => rng.fillUniform(out));
}
/** Standard normal values, from a seeded generator (seed 0 unless given). */
export function randn(sizes: readonly number[], options: RandomOptions = {}): Tensor {
  return random(sizes, options, (rng, out) => rng.fillNormal(out));
}

function random(sizes: readonly number[], options: RandomOptions, draw: (rng: Rng, out: Float32Array) => void): Tensor {
  const dtype = parseDType(options.dtype ?? kFloat);
  if (!dtypeInfo(dtype).isFloating) throw new TensorShapeError("E_DTYPE", `rand/randn make floating-point tensors; got ${dtypeInfo(dtype).name}`);
  const t = make(sizes, dtype);
  if (t.is_meta) return t;
  const values = new Float32Array(t.numel());
  draw(new Rng(options.seed ?? 0), values);
  if (dtype === kFloat) (t.storageView() as Float32Array).set(values);
  else encodeInto(dtype, t.storageView(), values);
  return t;
}
