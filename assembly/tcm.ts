// TCM: each core's private 16 KB pool of fast memory, and the bulk copies
// between it and tensors in HBM. Blocks are recorded in the context block so
// that copies, frees and the exit check can name the block involved.
import {
  CTX_TCM_BASE, CTX_TCM_USED, CTX_TCM_NBLOCKS, CTX_TCM_TABLE, CTX_TCM_PEAK, CTX_FREED, CTX_FREED_NEXT,
  MAX_TCM_BLOCKS, MAX_FREED, TCMB_BYTES, TCMB_PTR, TCMB_SIZE, TCMB_KIND, TCMB_SITE,
  TCM_POOL_BYTES, TCM_ARENA_BYTES, TCM_ALIGN, TCM_GUARD_BYTES, TCM_GUARD_BYTE, TCM_POISON_BYTE, TCM_GRANULE, CTX_TCM_CLEAN,
  TD_DATA, TD_NUMEL, TD_FLAGS, TD_DTYPE, TDF_READ_ONLY, TDF_OUTPUT, TDF_KERNEL_OWNED,
  FLAG_POISON, TRACE_TCM_IN, TRACE_TCM_OUT, TRACE_TCM_MALLOC, TRACE_TCM_FREE,
  CTX_STAT_TCM_IN_BYTES, CTX_STAT_TCM_OUT_BYTES, CTX_STAT_TCM_IN_CALLS, CTX_STAT_TCM_OUT_CALLS,
} from "./layout";
import {
  E_TENSOR_RANGE, E_TCM_RANGE, E_TCM_FREE_FOREIGN, E_TCM_DOUBLE_FREE, E_TCM_GUARD, E_READ_ONLY,
  E_UNINITIALIZED_TCM, E_TOO_MANY, E_WRITE_NOT_OUTPUT, KIND_TCM,
} from "./errors";
import { CTX, FLAGS, checks_on, is_multicore, fail, slot_of } from "./core";
import { check_element_type, is_floating } from "./dtype";
import { log_output_write, log_output_read } from "./writelog";
import { trace } from "./trace";
import { own_mark, own_mark_written, own_dirty_to, own_all_freed, known_written, own_first_unwritten } from "./ownership";

/** Slot value for reports that concern no tensor. */
const NO_TENSOR: i32 = -3;

// @ts-ignore: decorator
@inline function round_up(n: usize): usize { return (n + <usize>(TCM_ALIGN - 1)) & ~<usize>(TCM_ALIGN - 1); }
// @ts-ignore: decorator
@inline function entry(i: i32): usize { return CTX + CTX_TCM_TABLE + <usize>(i * TCMB_BYTES); }
// @ts-ignore: decorator
@inline function footprint(size: usize): usize { return round_up(size + <usize>TCM_GUARD_BYTES); }
// @ts-ignore: decorator
@inline function granule_up(p: usize): usize { return (p + <usize>(TCM_GRANULE - 1)) & ~<usize>(TCM_GRANULE - 1); }

/** Allocates nbytes of this core's TCM; returns 0 when the 16 KB pool cannot satisfy it. */
export function tcm_malloc(nbytes: usize): usize {
  return tcm_malloc_at(nbytes, 0);
}

/**
 * tcm_malloc for the kernel statement numbered `site`: the build turns every kernel's tcm_malloc call into this one
 * (build/allocation-sites.ts), so that a block still allocated at return names the statement (0: not known).
 */
export function tcm_malloc_at(nbytes: usize, site: i32): usize {
  return tcm_alloc(nbytes, 0, site);
}

/** Allocates a TCM block of the given kind (0 tcm_malloc, 1 stream cache) for allocation site `site`; 0 when the pool is full. */
export function tcm_alloc(nbytes: usize, kind: i32, site: i32 = 0): usize {
  const used = load<i32>(CTX, CTX_TCM_USED);
  const charge = round_up(nbytes);
  if (nbytes == 0 || charge + <usize>used > <usize>TCM_POOL_BYTES) return 0;
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  if (n >= MAX_TCM_BLOCKS) fail(E_TOO_MANY, NO_TENSOR, 1, MAX_TCM_BLOCKS, 0);
  // First fit in the arena; the table is kept sorted by address. Blocks start on a clean-bitmap
  // granule, so a buffer's granules are its own and are marked clean once, not rescanned per copy.
  const arena = <usize>load<u32>(CTX, CTX_TCM_BASE);
  let at = arena;
  let i = 0;
  for (; i < n; i++) {
    const p = <usize>load<u32>(entry(i), TCMB_PTR);
    if (p >= at && p - at >= footprint(nbytes)) break;
    at = granule_up(p + footprint(<usize>load<u32>(entry(i), TCMB_SIZE)));
  }
  if (at + footprint(nbytes) > arena + <usize>TCM_ARENA_BYTES) return 0;
  memory.copy(entry(i + 1), entry(i), <usize>((n - i) * TCMB_BYTES));
  const e = entry(i);
  store<u32>(e, <u32>at, TCMB_PTR);
  store<u32>(e, <u32>nbytes, TCMB_SIZE);
  store<i32>(e, kind, TCMB_KIND);
  store<i32>(e, site, TCMB_SITE);
  store<i32>(CTX, n + 1, CTX_TCM_NBLOCKS);
  store<i32>(CTX, used + <i32>charge, CTX_TCM_USED);
  if (used + <i32>charge > load<i32>(CTX, CTX_TCM_PEAK)) store<i32>(CTX, used + <i32>charge, CTX_TCM_PEAK);
  if (checks_on()) {
    if (FLAGS & FLAG_POISON) {
      memory.fill(at, TCM_POISON_BYTE, nbytes);
      set_clean(at, at + nbytes, false);
    }
    memory.fill(at + nbytes, TCM_GUARD_BYTE, footprint(nbytes) - nbytes);
    // A new block holds nothing the kernel wrote: its maps are clear already (tcm_free clears a block's, a launch
    // clears what the last one marked, and only stores into live blocks and copies into them mark), so only the end
    // the next launch must clear moves.
    own_dirty_to(at + footprint(nbytes));
  }
  trace(TRACE_TCM_MALLOC, kind, <f64>nbytes, <f64>at);
  return at;
}

// The clean bitmap: a set bit says its TCM_GRANULE bytes of the arena hold no poison, so copies
// out of TCM skip scanning them. tensor_to_tcm and clean scans set bits; tcm_malloc clears them.
// Ranges are handled 64 bits (64 granules, 4 KB) at a time: a 1024-float chunk is one word.

/** Bit index of the granule holding address p. */
// @ts-ignore: decorator
@inline function granule(p: usize): usize { return (p - <usize>load<u32>(CTX, CTX_TCM_BASE)) / <usize>TCM_GRANULE; }

/** Bits first..last-1 that fall in word w, as a mask. */
// @ts-ignore: decorator
@inline function word_mask(w: usize, first: usize, last: usize): u64 {
  const lo = max<usize>(first, w << 6) - (w << 6);
  const hi = min<usize>(last, (w + 1) << 6) - (w << 6);
  return hi - lo == 64 ? <u64>-1 : ((<u64>1 << <u64>(hi - lo)) - 1) << <u64>lo;
}

/** Sets (clean = true) or clears bits [first, last) of the bitmap. */
function mark(first: usize, last: usize, clean: bool): void {
  if (last <= first) return;
  for (let w = first >>> 6; w <= (last - 1) >>> 6; w++) {
    const at = CTX + CTX_TCM_CLEAN + (w << 3);
    const mask = word_mask(w, first, last);
    store<u64>(at, clean ? load<u64>(at) | mask : load<u64>(at) & ~mask);
  }
}

/** True when every bit in [first, last) is set. */
function all_clean(first: usize, last: usize): bool {
  for (let w = first >>> 6; w <= (last - 1) >>> 6; w++) {
    const mask = word_mask(w, first, last);
    if ((load<u64>(CTX + CTX_TCM_CLEAN + (w << 3)) & mask) != mask) return false;
  }
  return true;
}

// Ranges of whole granules known clean, [clean_lo, clean_hi) (empty: none), three of them: kernels copy chunk after
// chunk into the same few buffers (giou: pred, target, output) and out of them, so after the first chunk the bitmap
// need not be set nor tested for them; a few compares instead. Only tcm_alloc's poisoning clears bits, and it forgets
// the ranges, as a launch does (forget_cached_block). A range that meets one joins it; else it replaces the oldest.
let clean_lo0: usize = 0, clean_hi0: usize = 0, clean_lo1: usize = 0, clean_hi1: usize = 0, clean_lo2: usize = 0, clean_hi2: usize = 0;
let clean_next: i32 = 0;

/** True when every granule [start, end) touches is in a range known clean. */
// @ts-ignore: decorator
@inline function known_clean(start: usize, end: usize): bool {
  return (start >= clean_lo0 && end <= clean_hi0) || (start >= clean_lo1 && end <= clean_hi1) || (start >= clean_lo2 && end <= clean_hi2);
}

function forget_clean(): void { clean_lo0 = clean_hi0 = clean_lo1 = clean_hi1 = clean_lo2 = clean_hi2 = 0; }

/** Notes that the granules [lo, hi) (granule-aligned) are clean. */
function remember_clean(lo: usize, hi: usize): void {
  if (clean_hi0 > clean_lo0 && lo <= clean_hi0 && hi >= clean_lo0) { clean_lo0 = min(lo, clean_lo0); clean_hi0 = max(hi, clean_hi0); return; }
  if (clean_hi1 > clean_lo1 && lo <= clean_hi1 && hi >= clean_lo1) { clean_lo1 = min(lo, clean_lo1); clean_hi1 = max(hi, clean_hi1); return; }
  if (clean_hi2 > clean_lo2 && lo <= clean_hi2 && hi >= clean_lo2) { clean_lo2 = min(lo, clean_lo2); clean_hi2 = max(hi, clean_hi2); return; }
  if (clean_next == 0) { clean_lo0 = lo; clean_hi0 = hi; } else if (clean_next == 1) { clean_lo1 = lo; clean_hi1 = hi; } else { clean_lo2 = lo; clean_hi2 = hi; }
  clean_next = clean_next == 2 ? 0 : clean_next + 1;
}

/** Marks the granules wholly inside [start, end) clean, or (clean = false) every granule touched by it as possibly poisoned. */
function set_clean(start: usize, end: usize, clean: bool): void {
  if (end <= start) return;
  const arena = <usize>load<u32>(CTX, CTX_TCM_BASE);
  const size = <usize>TCM_GRANULE;
  if (!clean) {
    forget_clean();
    mark((start - arena) / size, (end - arena + size - 1) / size, false);
    return;
  }
  if (known_clean(start, end)) return;
  const first = (start - arena + size - 1) / size, last = (end - arena) / size;
  if (first >= last) return;
  mark(first, last, true);
  remember_clean(arena + first * size, arena + last * size);
}

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
  forget_cached_block();
  const e = entry(i);
  const ptr = <usize>load<u32>(e, TCMB_PTR);
  const size = <usize>load<u32>(e, TCMB_SIZE);
  if (checks_on()) { check_guard(ptr, size); own_mark(ptr, footprint(size), false); }
  trace(TRACE_TCM_FREE, load<i32>(e, TCMB_KIND), <f64>size, <f64>ptr);
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  memory.copy(e, entry(i + 1), <usize>((n - i - 1) * TCMB_BYTES));
  store<i32>(CTX, n - 1, CTX_TCM_NBLOCKS);
  if (n == 1 && checks_on()) own_all_freed();
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

// The blocks the last checked copies used, three of them: kernels copy through the same few buffers over and over.
let cached_start0: usize = 0, cached_end0: usize = 0, cached_start1: usize = 0, cached_end1: usize = 0, cached_start2: usize = 0, cached_end2: usize = 0;
let cached_next: i32 = 0;

/** Forgets the cached blocks (a block was freed, or a new launch began) and the ranges known clean. */
export function forget_cached_block(): void {
  cached_start0 = cached_end0 = cached_start1 = cached_end1 = cached_start2 = cached_end2 = 0;
  forget_clean();
}

/** Fails unless [ptr, ptr + bytes) lies inside one live block; reports the room left in the block ptr is in (-1: a freed block). */
// @ts-ignore: decorator
@inline function check_in_block(ptr: usize, bytes: usize, slot: i32): void {
  const end = ptr + bytes;
  if (end < ptr || !((ptr >= cached_start0 && end <= cached_end0) || (ptr >= cached_start1 && end <= cached_end1) || (ptr >= cached_start2 && end <= cached_end2))) {
    find_block(ptr, bytes, slot);
  }
}

/** check_in_block past its cached block: looks the block up in the table (and caches it), or fails. */
function find_block(ptr: usize, bytes: usize, slot: i32): void {
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  let room: usize = 0;
  for (let i = 0; i < n; i++) {
    const start = <usize>load<u32>(entry(i), TCMB_PTR);
    const end = start + <usize>load<u32>(entry(i), TCMB_SIZE);
    if (ptr >= start && ptr + bytes <= end) {
      if (cached_next == 0) { cached_start0 = start; cached_end0 = end; } else if (cached_next == 1) { cached_start1 = start; cached_end1 = end; } else { cached_start2 = start; cached_end2 = end; }
      cached_next = cached_next == 2 ? 0 : cached_next + 1;
      return;
    }
    if (ptr >= start && ptr < end) room = end - ptr;
  }
  fail(E_TCM_RANGE, slot, <f64>ptr, <f64>bytes, room > 0 ? <f64>room : was_freed(ptr) ? -1 : 0);
}

/** Fails unless [offset, offset + count) lies inside the tensor. */
// @ts-ignore: decorator
@inline function check_tensor_range(desc: usize, offset: i64, count: i64): void {
  const numel = load<i64>(desc, TD_NUMEL);
  if (offset < 0 || count < 0 || offset + count > numel) tensor_range_error(desc, offset, count, numel);
}

function tensor_range_error(desc: usize, offset: i64, count: i64, numel: i64): void {
  fail(E_TENSOR_RANGE, slot_of(desc), <f64>offset, <f64>count, <f64>numel);
}

/**
 * Fails at the first element of [ptr, ptr + bytes) with a byte nothing wrote since its block was handed out: what
 * copies out of TCM check where the written-map is kept for every store (the default mode; check_poison stands in for
 * it in a build without the raw store checks, whose stores leave the map as it was).
 */
function check_written<T>(desc: usize, ptr: usize, bytes: usize, count: i64, offset: i64): void {
  const bad = own_first_unwritten(ptr, ptr + bytes);
  if (bad) fail(E_UNINITIALIZED_TCM, slot_of(desc), <f64>(offset + <i64>((bad - ptr) >>> alignof<T>())), <f64>(ptr + (((bad - ptr) >>> alignof<T>()) << alignof<T>())), <f64>count);
}

/** Fails at the first float element in [ptr, ptr + count) that still holds fresh-TCM poison. Granules known clean are skipped; granules found clean are marked. */
function check_poison<T>(desc: usize, ptr: usize, count: i64, offset: i64): void {
  if (!is_floating(load<i32>(desc, TD_DTYPE))) return; // integer values cannot be told from poison
  const end = ptr + (<usize>count << alignof<T>());
  if (end <= ptr || known_clean(ptr, end)) return; // the common case: copied in, computed in place
  if (all_clean(granule(ptr), granule(end - 1) + 1)) return;
  const arena = <usize>load<u32>(CTX, CTX_TCM_BASE);
  const size = <usize>TCM_GRANULE;
  let p = ptr;
  while (p < end) {
    const g = granule(p);
    const granule_start = arena + g * size;
    // Elements belong to the segment they start in; segments end on the first element boundary past the granule.
    const segment_end = min(end, ptr + ((granule_start + size - ptr + sizeof<T>() - 1) & ~(sizeof<T>() - 1)));
    if (!all_clean(g, g + 1)) {
      scan_poison<T>(desc, ptr, p, segment_end, count, offset);
      if (p <= granule_start && segment_end >= granule_start + size) set_clean(granule_start, granule_start + size, true);
    }
    p = segment_end;
  }
}

/** Fails at the first poisoned element in [from, to) (elements counted from ptr). */
function scan_poison<T>(desc: usize, ptr: usize, from: usize, to: usize, count: i64, offset: i64): void {
  let bad: usize = 0;
  for (let p = from; p < to; p += sizeof<T>()) {
    if (sizeof<T>() == 2) { if (load<u16>(p) == 0xFFFF) { bad = p; break; } }
    else if (load<u32>(p) == 0xFFFFFFFF) { bad = p; break; }
  }
  if (bad) fail(E_UNINITIALIZED_TCM, slot_of(desc), <f64>(offset + <i64>((bad - ptr) >>> alignof<T>())), <f64>bad, <f64>count);
}

// TCM copy counters of the running launch, kept in globals (cheaper than the context block on the hot path).
let in_bytes: f64 = 0, in_calls: f64 = 0, out_bytes: f64 = 0, out_calls: f64 = 0;

/** Zeroes the TCM copy counters (at the start of a launch). */
export function reset_copy_counters(): void { in_bytes = in_calls = out_bytes = out_calls = 0; }

/** Writes the TCM copy counters into the context block (at the end of a launch, for the host). */
export function flush_copy_counters(): void {
  store<f64>(CTX, in_bytes, CTX_STAT_TCM_IN_BYTES);
  store<f64>(CTX, in_calls, CTX_STAT_TCM_IN_CALLS);
  store<f64>(CTX, out_bytes, CTX_STAT_TCM_OUT_BYTES);
  store<f64>(CTX, out_calls, CTX_STAT_TCM_OUT_CALLS);
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
      if ((FLAGS & FLAG_POISON) && !known_clean(tcm_ptr, tcm_ptr + bytes)) set_clean(tcm_ptr, tcm_ptr + bytes, true);
      own_mark_written(tcm_ptr, bytes);
      in_bytes += <f64>bytes;
      in_calls++;
    }
    trace(TRACE_TCM_IN, slot_of(desc), <f64>bytes, <f64>tensor_offset);
    log_output_read(desc, <u32>tensor_offset, <u32>(tensor_offset + num_elem));
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
      if (FLAGS & FLAG_POISON) {
        if (!known_clean(tcm_ptr, tcm_ptr + bytes)) check_poison<T>(desc, tcm_ptr, num_elem, tensor_offset);
      } else if (!known_written(tcm_ptr, tcm_ptr + bytes)) {
        check_written<T>(desc, tcm_ptr, bytes, num_elem, tensor_offset);
      }
      out_bytes += <f64>bytes;
      out_calls++;
    }
    trace(TRACE_TCM_OUT, slot_of(desc), <f64>bytes, <f64>tensor_offset);
    log_output_write(desc, <u32>tensor_offset, <u32>(tensor_offset + num_elem));
    memory.copy(<usize>load<u32>(desc, TD_DATA) + (<usize>tensor_offset << alignof<T>()), tcm_ptr, bytes);
  }
}
