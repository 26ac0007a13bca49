// Element-wise accessors: random access to a tensor in HBM, one element at a
// time. On the device this is the slowest path; here every index is checked.
// accessor<T>() indexes the flattened tensor; accessor2..4<T>() mirror the
// C++ accessor<T, N>() with chained indexing, acc[i][j]. A partial index
// (acc[i]) is a handle: for offsets below 2^25 elements it encodes the
// descriptor slot, the next dimension and the offset so far (nothing is
// stored, nothing goes stale); beyond, it is a record in a ring in the
// context block, with a serial number so that a stale one is reported.
import {
  TD_DATA, TD_NUMEL, TD_NDIM, TD_SIZES, TD_STRIDES, TD_FLAGS, TD_DTYPE, TD_ELEMWISE, TDF_READ_ONLY,
  CTX_STAT_ELEM_READS, CTX_STAT_ELEM_WRITES, CTX_ROWS, CTX_ROW_SERIAL, MAX_ROWS, ROW_BYTES, CTX_DESC, DESC_BYTES,
  ROW_DESC, ROW_OFFSET, ROW_DIM, ROW_SERIAL,
} from "./layout";
import { E_ACCESSOR_INDEX, E_ACCESSOR_RANK, E_READ_ONLY, E_MULTICORE_ACCESSOR, E_STALE_ACCESSOR, KIND_ELEMENTWISE } from "./errors";
import { CTX, checks_on, is_multicore, fail, slot_of } from "./core";
import { check_element_type } from "./dtype";
import { check_coherence } from "./coherence";
import { log_output_write } from "./writelog";

/** Opens an element-wise accessor on the tensor described at desc; rank 0 means any rank (flat indexing). */
export function open_elementwise<T>(desc: usize, rank: i32): usize {
  if (is_multicore()) fail(E_MULTICORE_ACCESSOR, slot_of(desc), KIND_ELEMENTWISE, 0, 0);
  check_element_type<T>(load<i32>(desc, TD_DTYPE), slot_of(desc));
  if (rank != 0 && load<i32>(desc, TD_NDIM) != rank) fail(E_ACCESSOR_RANK, slot_of(desc), rank, load<i32>(desc, TD_NDIM), 0);
  check_coherence(desc, KIND_ELEMENTWISE);
  store<i32>(desc, load<i32>(desc, TD_ELEMWISE) + 1, TD_ELEMWISE);
  return desc;
}

// Element-wise access counters of the running launch, in globals (the hot path); flushed at exit.
let reads: f64 = 0, writes: f64 = 0;

/** Zeroes the access counters (at the start of a launch). */
export function reset_access_counters(): void { reads = writes = 0; }

/** Writes the access counters into the context block (at the end of a launch, for the host). */
export function flush_access_counters(): void {
  store<f64>(CTX, reads, CTX_STAT_ELEM_READS);
  store<f64>(CTX, writes, CTX_STAT_ELEM_WRITES);
}

/** Reads element i (flattened) of the tensor at desc, checked. */
// @ts-ignore: decorator
@inline function read_at<T>(desc: usize, i: i64): T {
  if (checks_on()) {
    if (<u64>i >= <u64>load<i64>(desc, TD_NUMEL)) fail(E_ACCESSOR_INDEX, slot_of(desc), <f64>i, <f64>load<i64>(desc, TD_NUMEL), -1);
    reads++;
  }
  return load<T>(<usize>load<u32>(desc, TD_DATA) + (<usize>i << alignof<T>()));
}

/** Writes element i (flattened) of the tensor at desc, checked. */
// @ts-ignore: decorator
@inline function write_at<T>(desc: usize, i: i64, value: T): void {
  if (checks_on()) {
    if (load<i32>(desc, TD_FLAGS) & TDF_READ_ONLY) fail(E_READ_ONLY, slot_of(desc), KIND_ELEMENTWISE, <f64>i, 0);
    if (<u64>i >= <u64>load<i64>(desc, TD_NUMEL)) fail(E_ACCESSOR_INDEX, slot_of(desc), <f64>i, <f64>load<i64>(desc, TD_NUMEL), -1);
    writes++;
  }
  log_output_write(desc, <u32>i, <u32>i + 1);
  store<T>(<usize>load<u32>(desc, TD_DATA) + (<usize>i << alignof<T>()), value);
}

/** Offset contributed by index i of dimension d, checked against the size of d. */
// @ts-ignore: decorator
@inline function offset_in(desc: usize, d: i32, i: i64): u32 {
  const at = desc + (<usize>d << 2);
  if (checks_on() && <u64>i >= <u64>load<u32>(at, TD_SIZES)) fail(E_ACCESSOR_INDEX, slot_of(desc), <f64>i, load<u32>(at, TD_SIZES), d);
  return <u32>i * load<u32>(at, TD_STRIDES);
}

/** Makes a partial-index record and returns its handle. */
function make_row(desc: usize, offset: u32, dim: i32): usize {
  const serial = load<i32>(CTX, CTX_ROW_SERIAL) + 1;
  store<i32>(CTX, serial, CTX_ROW_SERIAL);
  const rec = CTX + CTX_ROWS + <usize>((serial & (MAX_ROWS - 1)) * ROW_BYTES);
  store<u32>(rec, <u32>desc, ROW_DESC);
  store<u32>(rec, offset, ROW_OFFSET);
  store<i32>(rec, dim, ROW_DIM);
  store<i32>(rec, serial, ROW_SERIAL);
  return <usize>serial;
}

/** The record behind a handle; fails if it was overwritten by later partial indexing. */
function row_record(handle: usize): usize {
  const rec = CTX + CTX_ROWS + <usize>((<i32>handle & (MAX_ROWS - 1)) * ROW_BYTES);
  if (load<i32>(rec, ROW_SERIAL) != <i32>handle) fail(E_STALE_ACCESSOR, -3, <f64>handle, <f64>load<i32>(CTX, CTX_ROW_SERIAL), MAX_ROWS);
  return rec;
}

// Encoded handles: bit 31 set, descriptor slot in bits 27-30, next dimension in 25-26, offset in 0-24.
const ENCODED: u32 = 0x80000000;
const OFFSET_LIMIT: u32 = 1 << 25;

/** The handle of a partial index: encoded when the offset fits, a ring record otherwise. */
// @ts-ignore: decorator
@inline function make_handle(desc: usize, offset: u32, dim: i32): usize {
  if (offset >= OFFSET_LIMIT) return make_row(desc, offset, dim);
  const slot = <u32>((desc - CTX - <usize>CTX_DESC) / <usize>DESC_BYTES);
  return <usize>(ENCODED | (slot << 27) | (<u32>dim << 25) | offset);
}

// What a handle stands for, set by decode().
let H_DESC: usize = 0, H_DIM: i32 = 0, H_OFFSET: u32 = 0;

// @ts-ignore: decorator
@inline function decode(handle: usize): void {
  const h = <u32>handle;
  if (h & ENCODED) {
    H_DESC = CTX + <usize>CTX_DESC + <usize>((h >>> 27) & 15) * <usize>DESC_BYTES;
    H_DIM = <i32>((h >>> 25) & 3);
    H_OFFSET = h & (OFFSET_LIMIT - 1);
  } else {
    const rec = row_record(handle);
    H_DESC = <usize>load<u32>(rec, ROW_DESC);
    H_DIM = load<i32>(rec, ROW_DIM);
    H_OFFSET = load<u32>(rec, ROW_OFFSET);
  }
}

/** Next partial index: handle's partial index, indexed by i in its next dimension. */
// @ts-ignore: decorator
@inline function row_next(handle: usize, i: i64): usize {
  decode(handle);
  return make_handle(H_DESC, H_OFFSET + offset_in(H_DESC, H_DIM, i), H_DIM + 1);
}

/** Flat element index of handle's partial index indexed by i in its last dimension (the descriptor is left in H_DESC). */
// @ts-ignore: decorator
@inline function row_last(handle: usize, i: i64): i64 {
  decode(handle);
  return <i64>(H_OFFSET + offset_in(H_DESC, H_DIM, i));
}

/** Random access to the flattened tensor: acc[i], acc[i] = v. */
@unmanaged
export class Accessor<T> {
  [key: number]: T; // what acc[i] gives, for TypeScript (editors); asc uses the @operator methods
  /** Number of elements. */
  numel(): i64 { return load<i64>(changetype<usize>(this), TD_NUMEL); }
  /** Reads element i of the flattened tensor. */
  @operator("[]") get(i: i64): T { return read_at<T>(changetype<usize>(this), i); }
  /** Writes element i of the flattened tensor. */
  @operator("[]=") set(i: i64, value: T): void { write_at<T>(changetype<usize>(this), i, value); }
}

/** The last index of an N-d accessor: row[j], row[j] = v. */
@unmanaged
export class Row1<T> {
  [key: number]: T; // what acc[i] gives, for TypeScript (editors); asc uses the @operator methods
  // @ts-ignore: decorator
  @inline @operator("[]") get(j: i64): T { const i = row_last(changetype<usize>(this), j); return read_at<T>(H_DESC, i); }
  // @ts-ignore: decorator
  @inline @operator("[]=") set(j: i64, value: T): void { const i = row_last(changetype<usize>(this), j); write_at<T>(H_DESC, i, value); }
}
/** Two indices left: row[j][k]. */
@unmanaged
export class Row2<T> {
  [key: number]: Row1<T>; // what acc[i] gives, for TypeScript (editors); asc uses the @operator methods
  // @ts-ignore: decorator
  @inline @operator("[]") get(j: i64): Row1<T> { return changetype<Row1<T>>(row_next(changetype<usize>(this), j)); }
}
/** Three indices left: row[j][k][l]. */
@unmanaged
export class Row3<T> {
  [key: number]: Row2<T>; // what acc[i] gives, for TypeScript (editors); asc uses the @operator methods
  // @ts-ignore: decorator
  @inline @operator("[]") get(j: i64): Row2<T> { return changetype<Row2<T>>(row_next(changetype<usize>(this), j)); }
}

/** accessor<T, 2>() of the C++ API: acc[i][j]. */
@unmanaged
export class Accessor2<T> {
  [key: number]: Row1<T>; // what acc[i] gives, for TypeScript (editors); asc uses the @operator methods
  // @ts-ignore: decorator
  @inline @operator("[]") get(i: i64): Row1<T> { const d = changetype<usize>(this); return changetype<Row1<T>>(make_handle(d, offset_in(d, 0, i), 1)); }
}
/** accessor<T, 3>() of the C++ API: acc[i][j][k]. */
@unmanaged
export class Accessor3<T> {
  [key: number]: Row2<T>; // what acc[i] gives, for TypeScript (editors); asc uses the @operator methods
  // @ts-ignore: decorator
  @inline @operator("[]") get(i: i64): Row2<T> { const d = changetype<usize>(this); return changetype<Row2<T>>(make_handle(d, offset_in(d, 0, i), 1)); }
}
/** accessor<T, 4>() of the C++ API: acc[i][j][k][l]. */
@unmanaged
export class Accessor4<T> {
  [key: number]: Row3<T>; // what acc[i] gives, for TypeScript (editors); asc uses the @operator methods
  // @ts-ignore: decorator
  @inline @operator("[]") get(i: i64): Row3<T> { const d = changetype<usize>(this); return changetype<Row3<T>>(make_handle(d, offset_in(d, 0, i), 1)); }
}
