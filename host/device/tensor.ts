// Host tensors: contiguous, row-major blocks of device memory with a shape
// and a dtype. Freed by dispose() or, failing that, when garbage collected.
// Inside a shape function tensors are "meta": shape and dtype, no storage.
import { dtypeInfo, type DType, storageArray, decodeToArray, encodeInto, decodeScalar, type StorageArray, type DecodedArray } from "./dtype.js";
import { inspect } from "node:util";
import { hbm } from "./hbm.js";
import { tensorRepr } from "./tensor-repr.js";
import { TensorShapeError, DisposedTensorError, ShapeFunctionError } from "../checks/errors.js";

/**
 * The device's limits on tensors passed to or returned from an operator (Neuron SDK 2.18 and later): a tensor fits
 * if it keeps either rule, at most 8 dimensions of at most 65535 each, or at most 4 dimensions of at most 4294967295.
 */
export const DEVICE_SHAPE_LIMITS: readonly { readonly maxDims: number; readonly maxSize: number }[] = [
  { maxDims: 8, maxSize: 65535 },
  { maxDims: 4, maxSize: 4294967295 },
];

const LIMITS_TEXT = `tensors passed to or returned from an operator have at most ${DEVICE_SHAPE_LIMITS.map((l) => `${l.maxDims} dimensions of at most ${l.maxSize}`).join(", or at most ")} (Neuron SDK 2.18 and later)`;

/**
 * A tensor's device memory. `pins` counts the calls in flight that use it: dispose() while one runs
 * marks the tensor disposed at once (new calls reject it) but frees the memory only when the last
 * such call ends, so a running kernel never reads memory that a new allocation reuses.
 */
interface Storage {
  addr: number; disposed: boolean; pins: number; released: boolean;
  /** Registered with the finalizer. */
  registered: boolean;
  /** Its tensor's place in `unregistered` while it waits for registration; -1 otherwise. */
  pending: number;
}

const finalizer = new FinalizationRegistry<Storage>((s) => {
  if (!s.disposed) { s.disposed = true; release(s); }
});

/**
 * Tensors made since the last flush and not yet registered with the finalizer. A registration costs about 0.25 us
 * (a cell in the registry, and its removal at dispose()), and most tensors an operator call makes are disposed
 * within the turn that made them (an output used and disposed in a loop): those are never registered. The list
 * holds the rest until the turn ends (or it grows long), so none is collected before it is registered: a tensor
 * nobody disposes is still freed once it is garbage collected, as before.
 */
const UNREGISTERED_LIMIT = 1024;
/** Flushed when full, so that a long synchronous loop keeps only so many tensors alive for it; dispose() empties a place. */
const unregistered = new Array<Tensor | null>(UNREGISTERED_LIMIT).fill(null);
let unregisteredCount = 0;

function noteUnregistered(t: Tensor, s: Storage): void {
  if (unregisteredCount === 0) queueMicrotask(registerSurvivors);
  s.pending = unregisteredCount;
  unregistered[unregisteredCount++] = t;
  if (unregisteredCount === UNREGISTERED_LIMIT) registerSurvivors();
}

/** dispose(): the tensor leaves the list (it will never need the finalizer). */
function forgetUnregistered(s: Storage): void {
  unregistered[s.pending] = null;
  s.pending = -1;
}

function registerSurvivors(): void {
  for (let i = 0; i < unregisteredCount; i++) {
    const t = unregistered[i];
    if (t === null) continue;
    unregistered[i] = null;
    registerOf(t);
  }
  unregisteredCount = 0;
}

/** Tensor's private fields for this module's helpers (set in its static block). */
let registerOf: (t: Tensor) => void;
let shapeOf: (t: Tensor) => readonly number[];
let metaOf: (t: Tensor) => Tensor;

/** t's sizes without a copy, for the host's per-call paths (descriptors, checks); never hand the array to user code. */
export function tensorShape(t: Tensor): readonly number[] {
  return shapeOf(t);
}

/**
 * The meta tensor a shape function is given for t (its sizes and dtype, no data): made once per tensor, as
 * neither ever changes and a meta tensor has nothing else to change.
 */
export function metaTensorOf(t: Tensor): Tensor {
  return metaOf(t);
}

function release(s: Storage): void {
  if (s.released || s.pins > 0) return;
  s.released = true;
  hbm().release(s.addr);
}

/** Checks that sizes are non-negative integers; returns a copy. */
export function checkSizes(sizes: readonly number[], what = "tensor"): number[] {
  if (!Array.isArray(sizes)) throw new TensorShapeError("E_SHAPE", `${what}: sizes must be an array of integers, got ${String(sizes)}`);
  // A plain loop: every call makes tensors (its output, the shape function's meta tensors).
  const copy = new Array<number>(sizes.length);
  for (let i = 0; i < sizes.length; i++) {
    const s = sizes[i];
    if (!Number.isInteger(s) || s < 0) throw new TensorShapeError("E_SHAPE", `${what}: size ${s} of dimension ${i} in [${sizes.join(", ")}] is not a non-negative integer`, { details: { sizes, dim: i } });
    copy[i] = s;
  }
  return copy;
}

/** Checks a tensor passed to or returned from an operator against the device limits (DEVICE_SHAPE_LIMITS). */
export function checkDeviceLimits(t: Tensor, what: string, op?: string): void {
  const sizes = shapeOf(t);
  if (!fitsDeviceLimits(sizes)) checkShapeLimits(sizes, `${what} ${t.describe()}`, op); // the name is made only for the error
}

function fitsDeviceLimits(sizes: readonly number[]): boolean {
  // Plain loops: every call checks its tensors (some/every with closures showed in a tiny call's profile).
  for (const l of DEVICE_SHAPE_LIMITS) {
    if (sizes.length > l.maxDims) continue;
    let fits = true;
    for (let i = 0; i < sizes.length && fits; i++) fits = sizes[i] <= l.maxSize;
    if (fits) return true;
  }
  return false;
}

/** Checks sizes against the device limits (DEVICE_SHAPE_LIMITS); `what` names the tensor in the error. */
export function checkShapeLimits(sizes: readonly number[], what: string, op?: string): void {
  if (fitsDeviceLimits(sizes)) return;
  const maxDims = Math.max(...DEVICE_SHAPE_LIMITS.map((l) => l.maxDims));
  if (sizes.length > maxDims) {
    throw new TensorShapeError("E_TOO_MANY_DIMS", `${what} has ${sizes.length} dimensions; ${LIMITS_TEXT}`, { op, details: { sizes } });
  }
  // The largest size decides which rule the tensor would need.
  const dim = sizes.indexOf(Math.max(...sizes));
  const rule = DEVICE_SHAPE_LIMITS.find((l) => sizes[dim] <= l.maxSize);
  const hint = rule ? ` (a size of ${sizes[dim]} needs at most ${rule.maxDims} dimensions; this tensor has ${sizes.length})` : "";
  throw new TensorShapeError("E_DIM_TOO_LARGE", `${what}: dimension ${dim} has size ${sizes[dim]}; ${LIMITS_TEXT}${hint}`, { op, details: { sizes, dim } });
}

/** A tensor in device memory. */
export class Tensor {
  /** Element type: kFloat, kInt, ... (compare by identity; prints as its name, e.g. float32). */
  readonly dtype: DType;
  private readonly shape: readonly number[];
  private readonly count: number;
  private readonly storage: Storage | null;
  /** The tensor whose storage a view shares (kept alive by the view). */
  private readonly base: Tensor | null = null;
  /** What metaTensorOf gives for this tensor, once made. */
  private metaView: Tensor | null = null;

  static {
    registerOf = (t) => {
      const s = t.storage!;
      s.pending = -1;
      finalizer.register(t, s, s);
      s.registered = true;
    };
    shapeOf = (t) => t.shape;
    metaOf = (t) => (t.metaView ??= new Tensor(t.shape, t.dtype, true));
  }

  /** Use the factories (empty, zeros, tensor, ...) rather than this constructor. */
  constructor(sizes: readonly number[], dtype: DType, meta = false, viewOf: Tensor | null = null) {
    dtypeInfo(dtype);
    this.shape = checkSizes(sizes); // a private copy: sizes() hands out copies of it
    this.dtype = dtype;
    let count = 1;
    for (const size of this.shape) count *= size;
    this.count = count;
    if (viewOf) {
      this.storage = viewOf.storage;
      this.base = viewOf.base ?? viewOf;
    } else if (meta) {
      this.storage = null;
    } else {
      this.storage = { addr: hbm().alloc(this.count * dtypeInfo(dtype).bytes), disposed: false, pins: 0, released: false, registered: false, pending: -1 };
      noteUnregistered(this, this.storage);
    }
  }

  /** The same elements with other sizes (same count); shares storage: dispose() of either frees both. */
  reshape(sizes: readonly number[]): Tensor {
    const count = checkSizes(sizes, "reshape").reduce((a, b) => a * b, 1);
    if (count !== this.count) throw new TensorShapeError("E_SHAPE", `reshape: ${this.describe()} has ${this.count} elements; [${sizes.join(", ")}] has ${count}`);
    return new Tensor(sizes, this.dtype, this.is_meta, this.is_meta ? null : this);
  }

  /** Sizes of all dimensions. */
  sizes(): number[] { return [...this.shape]; }
  /** Size of dimension d (negative counts from the end). */
  size(d: number): number {
    const i = d < 0 ? d + this.shape.length : d;
    if (!(i >= 0 && i < this.shape.length)) throw new TensorShapeError("E_DIM", `dimension ${d} does not exist in a tensor of ${this.shape.length} dimensions`);
    return this.shape[i];
  }
  /** Number of elements. */
  numel(): number { return this.count; }
  /** Number of dimensions. */
  dim(): number { return this.shape.length; }
  /** Strides in elements (contiguous, row-major). */
  strides(): number[] {
    const out = new Array<number>(this.shape.length);
    let s = 1;
    for (let i = this.shape.length - 1; i >= 0; i--) { out[i] = s; s *= this.shape[i]; }
    return out;
  }
  /** Bytes per element. */
  element_size(): number { return dtypeInfo(this.dtype).bytes; }
  /** Total bytes of data. */
  nbytes(): number { return this.count * this.element_size(); }
  /** True for a tensor made inside a shape function: shape and dtype only. */
  get is_meta(): boolean { return this.storage === null; }
  /** True after dispose(). */
  get disposed(): boolean { return this.storage?.disposed ?? false; }

  /** Address of the first element in device memory. */
  get address(): number {
    if (this.storage === null) throw new ShapeFunctionError("E_SHAPE_FN_DATA", "a shape function may only look at sizes and dtypes; this tensor has no data");
    if (this.storage.disposed) throw new DisposedTensorError("E_DISPOSED", `tensor ${this.describe()} was disposed`);
    return this.storage.addr;
  }

  /** The address for a call that pinned the tensor: valid until unpin(), even if dispose() came meanwhile. */
  get pinnedAddress(): number {
    if (this.storage === null || this.storage.released) return this.address;
    return this.storage.addr;
  }

  /** Keeps the memory allocated while a call in flight uses it (dispose() then waits for unpin()). */
  pin(): void {
    if (this.storage) this.storage.pins++;
  }

  /** Ends a pin(); frees the memory if the tensor was disposed meanwhile and no other call uses it. */
  unpin(): void {
    const s = this.storage;
    if (!s) return;
    s.pins--;
    if (s.disposed) release(s);
  }

  /** The elements in their storage type, as a view of device memory (no copy; bfloat16/float16 as u16 bits). */
  storageView(): StorageArray {
    return storageArray(this.dtype, hbm().memory.buffer, this.address, this.count);
  }

  /** A copy of the elements: Float32Array for float dtypes, the matching integer array otherwise. */
  data(): DecodedArray {
    return decodeToArray(this.dtype, this.storageView());
  }

  /** The elements as nested arrays (numbers, or bigints for int64). */
  tolist(): unknown {
    const flat = this.data();
    const build = (dim: number, offset: number, stride: number): unknown => {
      if (dim === this.shape.length) return flat[offset];
      const inner = stride / (this.shape[dim] || 1);
      return Array.from({ length: this.shape[dim] }, (_, i) => build(dim + 1, offset + i * inner, inner));
    };
    return build(0, 0, this.count);
  }

  /** The value of a one-element tensor. */
  item(): number | bigint {
    if (this.count !== 1) throw new TensorShapeError("E_SHAPE", `item() needs a tensor of one element; this one has ${this.count}`);
    return decodeScalar(this.dtype, this.storageView()[0]);
  }

  /** Overwrites the elements from a flat array (converted to the dtype). */
  copy_(values: ArrayLike<number> | ArrayLike<bigint> | Tensor): this {
    const src = values instanceof Tensor ? values.data() : values;
    if (src.length !== this.count) throw new TensorShapeError("E_SHAPE", `copy_: ${src.length} values for a tensor of ${this.count} elements`);
    encodeInto(this.dtype, this.storageView(), src);
    return this;
  }

  /**
   * Frees the device memory: now, or, while an asynchronous call that uses the tensor is in flight,
   * when that call ends (the call still sees the data). Passing the tensor to a call afterwards is an error.
   */
  dispose(): void {
    if (this.storage === null || this.storage.disposed) return;
    this.storage.disposed = true;
    if (this.storage.pending >= 0) forgetUnregistered(this.storage);
    else if (this.storage.registered) finalizer.unregister(this.storage);
    release(this.storage);
  }

  /** "float32[2, 3]" */
  describe(): string { return `${dtypeInfo(this.dtype).name}[${this.shape.join(", ")}]`; }

  /** The values nested by dimension, then dtype and sizes, as torch prints a tensor (big ones summarised). */
  toString(): string {
    if (this.is_meta) return `tensor(meta, dtype=${this.dtype.name}, size=[${this.shape.join(", ")}])`;
    if (this.disposed) return `tensor(disposed, dtype=${this.dtype.name}, size=[${this.shape.join(", ")}])`;
    return tensorRepr(this.data(), this.shape, this.dtype.name, dtypeInfo(this.dtype).isIntegral);
  }

  /** console.log and util.inspect show toString(), not the fields (storage addresses). */
  [inspect.custom](): string { return this.toString(); }
}

/**
 * A tensor over device memory another thread owns (a worker thread's view of a main-thread tensor, whose
 * address and shape it was given): never freed here, and dispose() only marks it disposed.
 */
export function borrowedTensor(addr: number, sizes: readonly number[], dtype: DType): Tensor {
  const t = new Tensor(sizes, dtype, true);
  // A meta tensor has no storage; give it the owner's address, marked released so this thread never frees it.
  (t as unknown as { storage: Storage }).storage = { addr, disposed: false, pins: 0, released: true, registered: false, pending: -1 };
  return t;
}
