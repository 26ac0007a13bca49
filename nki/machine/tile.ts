// Tiles (SBUF/PSUM) and HBM tensors as Python sees them, and views of them. A view is storage plus an
// affine access pattern (element offset, shape, element strides) and the bounds checks its subscripts
// asked for; the checks run when an instruction uses the view, over the elements the instruction
// touches (a mask may keep an access inside bounds that the subscript alone would leave).
import {
  HostObject, PyTuple, NotImplemented,
  type BinaryOperator, type CallContext, type CompareOperator, type PyNotImplemented, type PyValue, type SourceSite, type UnaryOperator,
} from "../python/values.js";
import type { Tensor } from "../../host/device/tensor.js";
import type { NkiDType } from "./nki-dtype.js";
import { assignedName, shortSite } from "./site.js";
import { tileTruthValue } from "../checks/rules.js";

export type StorageKind = "sbuf" | "psum" | "shared_hbm" | "private_hbm" | "input";

/** Memory a kernel addresses: an on-chip tile or an HBM tensor. */
export class Storage {
  private explicitName: string | undefined;
  constructor(
    readonly kind: StorageKind,
    /** Byte address of element 0 in device memory. */
    readonly addr: number,
    /** Byte address of its init map (one byte per element), 0 when not tracked (kernel inputs, finished launches' outputs). */
    public initAddr: number,
    readonly dtype: NkiDType,
    readonly shape: readonly number[],
    /** Where it was allocated (undefined for kernel arguments). */
    readonly site: SourceSite | undefined,
    name: string | undefined,
    /** The gpsimd tensor of an HBM storage. */
    readonly tensor: Tensor | null = null,
  ) { this.explicitName = name || undefined; }

  get isHbm(): boolean { return this.kind === "shared_hbm" || this.kind === "private_hbm" || this.kind === "input"; }
  get numel(): number { return this.shape.reduce((a, b) => a * b, 1); }

  /** The kernel's name for it: name=..., the parameter name, or the variable it was assigned to. */
  get name(): string | undefined {
    this.explicitName ??= assignedName(this.site);
    return this.explicitName;
  }
  set name(n: string | undefined) { this.explicitName = n; }

  /** "tile 'a_tile' (sbuf float32[128, 512], allocated at k.py:12)" */
  describe(): string {
    const what = this.isHbm ? "HBM tensor" : "tile";
    const nm = this.name ? ` '${this.name}'` : "";
    const where = this.site ? `, allocated at ${shortSite(this.site)}` : this.kind === "input" ? ", a kernel argument" : "";
    return `${what}${nm} (${this.kind} ${this.dtype.name}[${this.shape.join(", ")}]${where})`;
  }
}

/** A bounds check a subscript asked for: off + sum_k coeffs[k] * i[k] in [0, size) over the view's axes. */
export interface DimCheck {
  /** The storage or view dimension subscripted; -1 for the storage's flat element range (.ap patterns). */
  readonly dim: number;
  readonly size: number;
  readonly off: number;
  readonly coeffs: readonly number[];
  /** True when the dimension is the storage's own (not that of an intermediate view). */
  readonly root: boolean;
}

/** What Python operators on tiles do: installed by the language (nl.add for +, a copy for t[...] = v). */
export interface ArrayOperators {
  binary(op: BinaryOperator, a: NkiArray, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented;
  inplace(op: BinaryOperator, a: NkiArray, other: PyValue, ctx: CallContext): PyValue | PyNotImplemented;
  unary(op: UnaryOperator, a: NkiArray, ctx: CallContext): PyValue;
  compare(op: CompareOperator, a: NkiArray, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented;
  getItem(a: NkiArray, key: PyValue, ctx: CallContext): PyValue;
  setItem(a: NkiArray, key: PyValue, value: PyValue, ctx: CallContext): void;
  attr(a: NkiArray, name: string, ctx: CallContext): PyValue | undefined;
}

let operators: ArrayOperators | null = null;
export function setArrayOperators(o: ArrayOperators): void { operators = o; }
function ops(): ArrayOperators {
  if (!operators) throw new Error("nki/machine: array operators are not installed (registerNkiModules() was not called)");
  return operators;
}

/**
 * An indirect subscript (a tile of indices: data_tensor[idx_tile, i_f]): along axis 0 of the view,
 * row p addresses storage dimension `dim` at the index held by `index`'s element [p, 0].
 */
export interface IndirectIndex {
  readonly index: NkiArray;
  readonly dim: number;
  /** Size of that dimension (the allowed indices are 0..size-1). */
  readonly size: number;
  /** Element stride of that dimension. */
  readonly stride: number;
}

/** A tile or HBM tensor, or a view of one. */
export abstract class NkiArray extends HostObject {
  /** Set on views made by an indirect subscript (see IndirectIndex). */
  indirect?: IndirectIndex;

  constructor(
    readonly storage: Storage,
    /** Element offset of the view's first element from the storage's. */
    readonly offset: number,
    readonly shape: readonly number[],
    /** Element strides of the view's axes. */
    readonly strides: readonly number[],
    readonly checks: readonly DimCheck[],
  ) { super(); }

  get dtype(): NkiDType { return this.storage.dtype; }
  get numel(): number { return this.shape.reduce((a, b) => a * b, 1); }
  /** True when the view is its whole storage, in order. */
  get isWhole(): boolean {
    return this.offset === 0 && this.checks.length === 0 && this.shape.length === this.storage.shape.length &&
      this.shape.every((n, k) => n === this.storage.shape[k]) && this.strides.every((s, k) => s === contiguousStrides(this.shape)[k]);
  }

  /** A view of the same storage with another pattern. */
  abstract view(offset: number, shape: readonly number[], strides: readonly number[], checks: readonly DimCheck[]): NkiArray;

  override getAttr(name: string, ctx: CallContext): PyValue | undefined {
    switch (name) {
      case "shape": return new PyTuple([...this.shape]);
      case "dtype": return this.dtype;
      case "ndim": return this.shape.length;
      case "size": return this.numel;
      case "itemsize": return this.dtype.bytes;
      case "name": return this.storage.name ?? "";
    }
    return ops().attr(this, name, ctx);
  }
  override getItem(key: PyValue, ctx: CallContext): PyValue { return ops().getItem(this, key, ctx); }
  override setItem(key: PyValue, value: PyValue, ctx: CallContext): void { ops().setItem(this, key, value, ctx); }
  override binary(op: BinaryOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
    return operators ? operators.binary(op, this, other, reflected, ctx) : NotImplemented;
  }
  override inplace(op: BinaryOperator, other: PyValue, ctx: CallContext): PyValue | PyNotImplemented { return ops().inplace(op, this, other, ctx); }
  override unary(op: UnaryOperator, ctx: CallContext): PyValue { return ops().unary(op, this, ctx); }
  override compare(op: CompareOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
    return operators ? operators.compare(op, this, other, reflected, ctx) : NotImplemented;
  }
  override len(): number { return this.shape[0] ?? 0; }
  /** NKI's compiler evaluates control flow before any tile holds data: if/while on a tile is its error. */
  override truthy(ctx: CallContext): boolean { return tileTruthValue(this, ctx); }
  override repr(): string { return `${this.typeName}(${this.storage.name ?? ""}: ${this.dtype.name}[${this.shape.join(", ")}], ${this.storage.kind})`; }
}

/** An SBUF or PSUM tile, or a view of one. Axis 0 is the partition axis. */
export class Tile extends NkiArray {
  readonly typeName = "Tile";
  override view(offset: number, shape: readonly number[], strides: readonly number[], checks: readonly DimCheck[]): Tile {
    return new Tile(this.storage, offset, shape, strides, checks);
  }
}

/** An HBM tensor (a kernel argument or one the kernel made), or a view of one. */
export class HbmTensor extends NkiArray {
  readonly typeName = "HbmTensor";
  /** The gpsimd tensor underneath. */
  get tensor(): Tensor { return this.storage.tensor!; }
  override view(offset: number, shape: readonly number[], strides: readonly number[], checks: readonly DimCheck[]): HbmTensor {
    return new HbmTensor(this.storage, offset, shape, strides, checks);
  }
}

export function contiguousStrides(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) { out[i] = s; s *= shape[i]; }
  return out;
}

/** The whole of a storage as a Tile or an HbmTensor. */
export function wholeArray(storage: Storage): NkiArray {
  const cls = storage.isHbm ? HbmTensor : Tile;
  return new cls(storage, 0, storage.shape, contiguousStrides(storage.shape), []);
}
