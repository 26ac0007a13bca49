// TCM: each core's private 16 KB pool of fast memory, and the bulk copies
// between it and tensors in HBM. Blocks are recorded in the context block so
// that copies, frees and the exit check can name the block involved.
import {
  CTX_TCM_BASE, CTX_TCM_USED, CTX_TCM_NBLOCKS, CTX_TCM_TABLE, CTX_TCM_PEAK, CTX_FREED, CTX_FREED_NEXT,
  MAX_TCM_BLOCKS, MAX_FREED, TCMB_BYTES, TCMB_PTR, TCMB_SIZE, TCMB_KIND, TCMB_SERIAL,
  TCM_POOL_BYTES, TCM_ARENA_BYTES, TCM_ALIGN, TCM_GUARD_BYTES, TCM_GUARD_BYTE, TCM_POISON_BYTE,
  TD_DATA, TD_NUMEL, TD_FLAGS, TD_DTYPE, TDF_READ_ONLY, TDF_OUTPUT, TDF_KERNEL_OWNED,
  FLAG_POISON, FLAG_LOG_WRITES,
  CTX_STAT_TCM_IN_BYTES, CTX_STAT_TCM_OUT_BYTES, CTX_STAT_TCM_IN_CALLS, CTX_STAT_TCM_OUT_CALLS,
} from "./layout";
import {
  E_TENSOR_RANGE, E_TCM_RANGE, E_TCM_FREE_FOREIGN, E_TCM_DOUBLE_FREE, E_TCM_GUARD, E_READ_ONLY,
  E_UNINITIALIZED_TCM, E_TOO_MANY, E_WRITE_NOT_OUTPUT, KIND_TCM,
} from "./errors";
import { CTX, FLAGS, checks_on, is_multicore, fail, slot_of } from "./core";
import { check_element_type, is_floating } from "./dtype";
import { log_write } from "./writelog";

/** Slot value for reports that concern no tensor. */
const NO_TENSOR: i32 = -3;

// @ts-ignore: decorator
@inline function round_up(n: usize): usize { return (n + <usize>(TCM_ALIGN - 1)) & ~<usize>(TCM_ALIGN - 1); }
// @ts-ignore: decorator
@inline function entry(i: i32): usize { return CTX + CTX_TCM_TABLE + <usize>(i * TCMB_BYTES); }
// @ts-ignore: decorator
@inline function footprint(size: usize): usize { return round_up(size + <usize>TCM_GUARD_BYTES); }

/** Allocates nbytes of this core's TCM; returns 0 when the 16 KB pool cannot satisfy it. */
export function tcm_malloc(nbytes: usize): usize {
  return tcm_alloc(nbytes, 0);
}

/** Allocates a TCM block of the given kind (0 tcm_malloc, 1 stream cache); 0 when the pool is full. */
export function tcm_alloc(nbytes: usize, kind: i32): usize {
  const used = load<i32>(CTX, CTX_TCM_USED);
  const charge = round_up(nbytes);
  if (nbytes == 0 || charge + <usize>used > <usize>TCM_POOL_BYTES) return 0;
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  if (n >= MAX_TCM_BLOCKS) fail(E_TOO_MANY, NO_TENSOR, 1, MAX_TCM_BLOCKS, 0);
  // First fit in the arena; the table is kept sorted by address.
  const arena = <usize>load<u32>(CTX, CTX_TCM_BASE);
  let at = arena;
  let i = 0;
  for (; i < n; i++) {
    const p = <usize>load<u32>(entry(i), TCMB_PTR);
    if (p - at >= footprint(nbytes)) break;
    at = p + footprint(<usize>load<u32>(entry(i), TCMB_SIZE));
  }
  if (at + footprint(nbytes) > arena + <usize>TCM_ARENA_BYTES) return 0;
  memory.copy(entry(i + 1), entry(i), <usize>((n - i) * TCMB_BYTES));
  const e = entry(i);
  store<u32>(e, <u32>at, TCMB_PTR);
  store<u32>(e, <u32>nbytes, TCMB_SIZE);
  store<i32>(e, kind, TCMB_KIND);
  store<i32>(e, serial++, TCMB_SERIAL);
  store<i32>(CTX, n + 1, CTX_TCM_NBLOCKS);
  store<i32>(CTX, used + <i32>charge, CTX_TCM_USED);
  if (used + <i32>charge > load<i32>(CTX, CTX_TCM_PEAK)) store<i32>(CTX, used + <i32>charge, CTX_TCM_PEAK);
  if (checks_on()) {
    if (FLAGS & FLAG_POISON) memory.fill(at, TCM_POISON_BYTE, nbytes);
    memory.fill(at + nbytes, TCM_GUARD_BYTE, footprint(nbytes) - nbytes);
  }
  return at;
}

let serial: i32 = 0;
/** Restarts the allocation numbering (each launch). */
export function reset_tcm_serial(): void { serial = 0; }

/** Frees a block from tcm_malloc. tcm_free(0) does nothing. */
export function tcm_free(ptr: usize): void {
  if (ptr == 0) return;
  const i = find_block_start(ptr);
  if (i < 0) {
    fail(was_freed(ptr) ? E_TCM_DOUBLE_FREE : E_TCM_FREE_FOREIGN, NO_TENSOR, <f64>ptr, 0, 0);
  }
  release(i);
}

/** Removes block i from the table, checking its guard bytes first. */
export function release(i: i32): void {
  const e = entry(i);
  const ptr = <usize>load<u32>(e, TCMB_PTR);
  const size = <usize>load<u32>(e, TCMB_SIZE);
  if (checks_on()) check_guard(ptr, size);
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  memory.copy(e, entry(i + 1), <usize>((n - i - 1) * TCMB_BYTES));
  store<i32>(CTX, n - 1, CTX_TCM_NBLOCKS);
  store<i32>(CTX, load<i32>(CTX, CTX_TCM_USED) - <i32>round_up(size), CTX_TCM_USED);
  const slot = load<i32>(CTX, CTX_FREED_NEXT);
  store<u32>(CTX + CTX_FREED + <usize>((slot % MAX_FREED) << 2), <u32>ptr);
  store<i32>(CTX, slot + 1, CTX_FREED_NEXT);
}

/** Fails if the guard bytes after a block were overwritten. */
export function check_guard(ptr: usize, size: usize): void {
  const end = ptr + footprint(size);
  for (let p = ptr + size; p < end; p++) {
    if (load<u8>(p) != TCM_GUARD_BYTE) fail(E_TCM_GUARD, NO_TENSOR, <f64>ptr, <f64>size, <f64>(p - ptr - size));
  }
}

function was_freed(ptr: usize): bool {
  const count = min(load<i32>(CTX, CTX_FREED_NEXT), MAX_FREED);
  for (let i = 0; i < count; i++) if (<usize>load<u32>(CTX + CTX_FREED + <usize>(i << 2)) == ptr) return true;
  return false;
}

/** Index of the live block that starts at ptr, or -1. */
function find_block_start(ptr: usize): i32 {
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  for (let i = 0; i < n; i++) if (<usize>load<u32>(entry(i), TCMB_PTR) == ptr) return i;
  return -1;
}

/** Fails unless [ptr, ptr + bytes) lies inside one live block. */
function check_in_block(ptr: usize, bytes: usize, slot: i32): void {
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  for (let i = 0; i < n; i++) {
    const start = <usize>load<u32>(entry(i), TCMB_PTR);
    if (ptr >= start && ptr + bytes <= start + <usize>load<u32>(entry(i), TCMB_SIZE)) return;
  }
  fail(E_TCM_RANGE, slot, <f64>ptr, <f64>bytes, 0);
}

/** Fails unless [offset, offset + count) lies inside the tensor. */
function check_tensor_range(desc: usize, offset: i64, count: i64): void {
  const numel = load<i64>(desc, TD_NUMEL);
  if (offset < 0 || count < 0 || offset + count > numel) fail(E_TENSOR_RANGE, slot_of(desc), <f64>offset, <f64>count, <f64>numel);
}

/** Fails at the first float element in [ptr, ptr + count) that still holds fresh-TCM poison. */
function check_poison<T>(desc: usize, ptr: usize, count: i64, offset: i64): void {
  if (!is_floating(load<i32>(desc, TD_DTYPE))) return; // integer values cannot be told from poison
  const end = ptr + (<usize>count << alignof<T>());
  let p = ptr;
  const poison = i32x4.splat(-1);
  for (; p + 16 <= end; p += 16) {
    if (v128.any_true(i32x4.eq(v128.load(p), poison)) == 0) continue;
    break;
  }
  for (; p < end; p += sizeof<T>()) {
    let bad: bool;
    if (sizeof<T>() == 2) bad = load<u16>(p) == 0xFFFF;
    else bad = load<u32>(p) == 0xFFFFFFFF;
    if (bad) fail(E_UNINITIALIZED_TCM, slot_of(desc), <f64>(offset + <i64>((p - ptr) >>> alignof<T>())), <f64>p, <f64>count);
  }
}

/** Bulk copies between one tensor and TCM; offsets index the flattened tensor. */
@unmanaged
export class TcmAccessor {
  /** Copies num_elem elements starting at tensor_offset into TCM at tcm_ptr. */
  tensor_to_tcm<T>(tcm_ptr: usize, tensor_offset: i64, num_elem: i64): void {
    const desc = changetype<usize>(this);
    const bytes = <usize>num_elem << alignof<T>();
    if (checks_on()) {
      check_element_type<T>(load<i32>(desc, TD_DTYPE), slot_of(desc));
      check_tensor_range(desc, tensor_offset, num_elem);
      check_in_block(tcm_ptr, bytes, slot_of(desc));
      store<f64>(CTX, load<f64>(CTX, CTX_STAT_TCM_IN_BYTES) + <f64>bytes, CTX_STAT_TCM_IN_BYTES);
      store<f64>(CTX, load<f64>(CTX, CTX_STAT_TCM_IN_CALLS) + 1, CTX_STAT_TCM_IN_CALLS);
    }
    memory.copy(tcm_ptr, <usize>load<u32>(desc, TD_DATA) + (<usize>tensor_offset << alignof<T>()), bytes);
  }

  /** Copies num_elem elements from TCM at tcm_ptr into the tensor starting at tensor_offset. */
  tcm_to_tensor<T>(tcm_ptr: usize, tensor_offset: i64, num_elem: i64): void {
    const desc = changetype<usize>(this);
    const bytes = <usize>num_elem << alignof<T>();
    if (checks_on()) {
      const flags = load<i32>(desc, TD_FLAGS);
      check_element_type<T>(load<i32>(desc, TD_DTYPE), slot_of(desc));
      if (flags & TDF_READ_ONLY) fail(E_READ_ONLY, slot_of(desc), KIND_TCM, <f64>tensor_offset, 0);
      if (is_multicore() && !(flags & (TDF_OUTPUT | TDF_KERNEL_OWNED))) fail(E_WRITE_NOT_OUTPUT, slot_of(desc), 0, 0, 0);
      check_tensor_range(desc, tensor_offset, num_elem);
      check_in_block(tcm_ptr, bytes, slot_of(desc));
      if (FLAGS & FLAG_POISON) check_poison<T>(desc, tcm_ptr, num_elem, tensor_offset);
      store<f64>(CTX, load<f64>(CTX, CTX_STAT_TCM_OUT_BYTES) + <f64>bytes, CTX_STAT_TCM_OUT_BYTES);
      store<f64>(CTX, load<f64>(CTX, CTX_STAT_TCM_OUT_CALLS) + 1, CTX_STAT_TCM_OUT_CALLS);
    }
    if ((FLAGS & FLAG_LOG_WRITES) && (load<i32>(desc, TD_FLAGS) & TDF_OUTPUT)) log_write(<u32>tensor_offset, <u32>(tensor_offset + num_elem));
    memory.copy(<usize>load<u32>(desc, TD_DATA) + (<usize>tensor_offset << alignof<T>()), tcm_ptr, bytes);
  }
}
