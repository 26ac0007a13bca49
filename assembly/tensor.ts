// The kernel's view of a tensor: a descriptor the host wrote into the core's
// context block. Methods read it directly; accessors reuse its address.
import { TD_DATA, TD_DTYPE, TD_NDIM, TD_NUMEL, TD_SIZES, TD_STRIDES, TD_POLICY, TD_FLAGS, TDF_READ_ONLY, TDF_OUTPUT } from "./layout";
import { E_ACCESSOR_INDEX, E_SHAPE } from "./errors";
import { fail, slot_of } from "./core";
import { element_size } from "./dtype";
import { TcmAccessor } from "./tcm";
import { Accessor, Accessor2, Accessor3, Accessor4, open_elementwise } from "./accessor";
import { ReadStreamAccessor, WriteStreamAccessor, open_read_stream, open_write_stream } from "./stream";

/** A tensor in device memory (HBM): an operator argument, the output, or one made by the kernel. */
@unmanaged
export class Tensor {
  /** Number of elements. */
  numel(): i64 { return load<i64>(changetype<usize>(this), TD_NUMEL); }
  /** Number of dimensions. */
  dim(): i32 { return load<i32>(changetype<usize>(this), TD_NDIM); }
  /** Size of dimension d (negative d counts from the end). */
  size(d: i32): i64 {
    const n = this.dim();
    const i = d < 0 ? d + n : d;
    if (<u32>i >= <u32>n) fail(E_ACCESSOR_INDEX, slot_of(changetype<usize>(this)), d, n, -2);
    return <i64>load<u32>(changetype<usize>(this) + (<usize>i << 2), TD_SIZES);
  }
  /** All sizes, outermost first (a fresh array on the kernel heap). */
  sizes(): StaticArray<i64> {
    const n = this.dim();
    const out = new StaticArray<i64>(n);
    for (let i = 0; i < n; i++) unchecked(out[i] = <i64>load<u32>(changetype<usize>(this) + (<usize>i << 2), TD_SIZES));
    return out;
  }
  /** Stride of dimension d in elements (contiguous, row-major). */
  stride(d: i32): i64 {
    const n = this.dim();
    const i = d < 0 ? d + n : d;
    if (<u32>i >= <u32>n) fail(E_ACCESSOR_INDEX, slot_of(changetype<usize>(this)), d, n, -2);
    return <i64>load<u32>(changetype<usize>(this) + (<usize>i << 2), TD_STRIDES);
  }
  /** The scalar type (kFloat, kInt, ...). */
  scalar_type(): i32 { return load<i32>(changetype<usize>(this), TD_DTYPE); }
  /** Bytes per element. */
  element_size(): i32 { return element_size(this.scalar_type()); }
  /** True for an operator input (inputs are const: accessors on them are read-only). */
  is_read_only(): bool { return (load<i32>(changetype<usize>(this), TD_FLAGS) & TDF_READ_ONLY) != 0; }
  /** True for the tensor get_dst_tensor() returns. */
  is_output(): bool { return (load<i32>(changetype<usize>(this), TD_FLAGS) & TDF_OUTPUT) != 0; }

  /** Sets how potentially incoherent accessor use is treated: COHERENT (error), INCOHERENT_VERBOSE (warning), INCOHERENT_QUIET. */
  set_accessor_coherence_policy(policy: i32): void {
    store<i32>(changetype<usize>(this), policy, TD_POLICY);
  }
  /** The coherence policy in force for this tensor. */
  get_accessor_coherence_policy(): i32 { return load<i32>(changetype<usize>(this), TD_POLICY); }

  /** Element-wise accessor over the flattened tensor, acc[i]: each access goes to HBM. Single-core only. */
  accessor<T>(): Accessor<T> { return changetype<Accessor<T>>(open_elementwise<T>(changetype<usize>(this), 0)); }
  /** accessor<T, 1>() of the C++ API: a 1-d tensor, acc[i]. */
  accessor1<T>(): Accessor<T> { return changetype<Accessor<T>>(open_elementwise<T>(changetype<usize>(this), 1)); }
  /** accessor<T, 2>() of the C++ API: a 2-d tensor, acc[i][j]. */
  accessor2<T>(): Accessor2<T> { return changetype<Accessor2<T>>(open_elementwise<T>(changetype<usize>(this), 2)); }
  /** accessor<T, 3>() of the C++ API: a 3-d tensor, acc[i][j][k]. */
  accessor3<T>(): Accessor3<T> { return changetype<Accessor3<T>>(open_elementwise<T>(changetype<usize>(this), 3)); }
  /** accessor<T, 4>() of the C++ API: a 4-d tensor, acc[i][j][k][l]. */
  accessor4<T>(): Accessor4<T> { return changetype<Accessor4<T>>(open_elementwise<T>(changetype<usize>(this), 4)); }
  /** Sequential reader through a 4 KB TCM cache. Single-core only. */
  read_stream_accessor<T>(): ReadStreamAccessor<T> { return open_read_stream<T>(changetype<usize>(this)); }
  /** Sequential writer through a 4 KB TCM cache; close() flushes. Single-core only. */
  write_stream_accessor<T>(): WriteStreamAccessor<T> { return open_write_stream<T>(changetype<usize>(this)); }
  /** Bulk copies between this tensor and TCM: the fast path, and the only one allowed in multicore kernels. */
  tcm_accessor(): TcmAccessor { return changetype<TcmAccessor>(this); }
}

/** Address of a tensor's first element (for library code; kernels use accessors). */
// @ts-ignore: decorator
@inline export function data_of(t: Tensor): usize { return load<u32>(changetype<usize>(t), TD_DATA); }

/** Fails unless a and b have the same sizes (tensor ops do not broadcast). */
export function check_same_shape(a: Tensor, b: Tensor): void {
  const n = a.dim();
  let same = n == b.dim();
  for (let i = 0; same && i < n; i++) {
    same = load<i32>(changetype<usize>(a) + (<usize>i << 2), TD_SIZES) == load<i32>(changetype<usize>(b) + (<usize>i << 2), TD_SIZES);
  }
  if (!same) fail(E_SHAPE, slot_of(changetype<usize>(b)), 0, <f64>a.numel(), <f64>b.numel());
}
