// What the default mode checks of a kernel's raw loads and stores (the build's
// ownership pass, build/ownership-pass.ts, gives each access a check window
// kept in the kernel function's locals and calls gpsimd_own_window below only
// when an access falls outside its window):
// - a load from this core's TCM arena reads only bytes written since their
//   block was handed out (by a copy into TCM or a kernel store). Two maps say
//   which: the written-map, one byte per TCM byte at TCM_SHADOW_DELTA past it
//   (kernel stores and the partial edges of copies set it), and its summary,
//   one byte per 64-byte granule at TCM_SUMMARY_DELTA (a copy into TCM sets the
//   granules it covers whole, so a 4 KB copy marks 64 bytes, not 4096). A byte
//   is written when either says so. Guard bytes and free TCM are never written,
//   so a read past a block's end fails too;
// - a store lands in memory the call owns: in the TCM arena, a live block (its
//   guard bytes included: overwriting them is E_TCM_GUARD when the block is
//   freed, as before), else this core's private region past the maps (printf
//   ring, kernel heap with a C++ kernel's stack), the library's static data, or
//   the call's output (every argument is an input, and the tensors a kernel
//   makes live on its heap).
// A window is what the slow path found around the access it checked: for a TCM
// load, the run of written bytes around it; for a load elsewhere, all memory
// outside the arena (loads outside TCM are sanitize's to check); for a store,
// the block or range that accepted it. With checks off every window is all of
// memory and nothing is marked.
import {
  CTX_TCM_BASE, CTX_HEAP_END, CTX_DST, TD_DATA, TD_DTYPE, TD_NUMEL, TD_FLAGS, TDF_READ_ONLY, TCM_ARENA_BYTES, TCM_SHADOW_DELTA, CTX_PRINTF_ARGS,
  PF_MAX_ARGS, TCM_SUMMARY_DELTA, TCM_SUMMARY_GRANULE, TCM_DIRTY_END, CTX_TCM_NBLOCKS, CTX_TCM_TABLE, MAX_TCM_BLOCKS, TCMB_BYTES, TCMB_PTR,
  TCMB_SIZE, TCM_GUARD_BYTES, TCM_ALIGN, TCM_CHECK_MAPS_BYTES, FLAG_STORES_MARK_ANYWHERE,
} from "./layout";
import { E_TCM_UNWRITTEN_READ, E_FOREIGN_STORE } from "./errors";
import { CTX, FLAGS, checks_on, fail } from "./core";
import { element_size } from "./dtype";

/** The library's static data: base (which 0) and bytes (which 1), as the host placed it. */
// @ts-ignore: decorator
@external("gpsimd", "static_data")
declare function host_static_data(which: i32): u32;

/** TCM arena of the running core; kernel stores at (addr - lo) u< span mark the written-map (span 0: checks off). */
export let gpsimd_own_tcm_lo: usize = 0;
export let gpsimd_own_tcm_span: usize = 0;
/** The library's static data (its base, and its bytes less 15, which the host reads back: host/cores/kernel-instance.ts). */
export let gpsimd_own_static_lo: usize = 0;
export let gpsimd_own_static_span: usize = 0;
let static_bytes: usize = 0;
/** The window gpsimd_own_window found: [lo, lo + len) holds the access it checked; the caller copies it into its locals. */
export let gpsimd_own_win_lo: usize = 0;
export let gpsimd_own_win_len: usize = 0;
/** 1 when the window is a TCM block: a store in it marks the written-map (the caller keeps it with the window). */
export let gpsimd_own_win_mark: u32 = 0;

/**
 * What a failed check reports: address, bytes, first bad byte. Kept in globals the host reads (host/cores/
 * kernel-instance.ts), not passed as fail's f64 numbers: once the optimiser inlines a slow path where the address is
 * a static's constant, a conversion to f64 would fold into a constant that build/relocate.ts cannot move.
 */
export let gpsimd_own_report_addr: usize = 0;
export let gpsimd_own_report_bytes: usize = 0;
export let gpsimd_own_report_bad: usize = 0;

function report(code: i32, addr: usize, bytes: usize, bad: usize): void {
  gpsimd_own_report_addr = addr;
  gpsimd_own_report_bytes = bytes;
  gpsimd_own_report_bad = bad;
  fail(code, -3, 0, 0, 0);
}

// The TCM bytes whose written-map bytes may not be 0, [shadow_lo, shadow_hi) (empty when lo >= hi): the written-map is
// set only by the runtime (the partial edges of a copy or a bulk store) and by kernel stores through a window that says
// mark, both below, so tcm_free clears it over the part of its block in this range, not over all of it (copies into TCM
// that start and end on granules mark the summary alone). A build whose stores mark the map wherever they land in the
// arena, without a window (sanitize mode: FLAG_STORES_MARK_ANYWHERE), has the whole arena in it.
let shadow_lo: usize = <usize>-1, shadow_hi: usize = 0;

/** Notes that the written-map bytes of TCM bytes [from, to) may be set. */
// @ts-ignore: decorator
@inline function shadow_dirty(from: usize, to: usize): void {
  if (from < shadow_lo) shadow_lo = from;
  if (to > shadow_hi) shadow_hi = to;
}

/** Sets the window the caller takes. */
// @ts-ignore: decorator
@inline function window(lo: usize, len: usize, mark: u32 = 0): void {
  gpsimd_own_win_lo = lo; gpsimd_own_win_len = len; gpsimd_own_win_mark = mark;
  if (mark) shadow_dirty(lo, lo + len); // the kernel's stores through it set written-map bytes
}

// @ts-ignore: decorator
@inline function arena_end(): usize { return gpsimd_own_tcm_lo + <usize>TCM_ARENA_BYTES; }
/** The summary byte of the granule holding TCM byte p. */
// @ts-ignore: decorator
@inline function summary_of(p: usize): usize {
  const lo = gpsimd_own_tcm_lo;
  return lo + <usize>TCM_SUMMARY_DELTA + (p - lo) / <usize>TCM_SUMMARY_GRANULE;
}
/** True when TCM byte p was written (the summary says so for its whole granule, or the written-map for the byte). */
// @ts-ignore: decorator
@inline function written(p: usize): bool {
  return load<u8>(p + <usize>TCM_SHADOW_DELTA) != 0 || load<u8>(summary_of(p)) != 0;
}
/** True when p is the first byte of a summary granule. */
// @ts-ignore: decorator
@inline function granule_start(p: usize): bool { return ((p - gpsimd_own_tcm_lo) & <usize>(TCM_SUMMARY_GRANULE - 1)) == 0; }

/**
 * Sets the checks up for a launch on the core whose context block is ctx (after set_core), with every TCM byte
 * unwritten: the maps are cleared up to the end the last launch on this core may have marked (TCM_DIRTY_END), not
 * all 32 KB (the stores of every launch stay inside the blocks it handed out; tcm_alloc moves that end).
 */
export function own_enter(ctx: usize): void {
  const tcm = <usize>load<u32>(ctx, CTX_TCM_BASE);
  gpsimd_own_tcm_lo = tcm;
  generation++;
  const dirty = min<usize>(<usize>load<u32>(tcm, TCM_DIRTY_END), <usize>TCM_ARENA_BYTES);
  if (dirty != 0) {
    memory.fill(tcm + <usize>TCM_SHADOW_DELTA, 0, dirty);
    memory.fill(tcm + <usize>TCM_SUMMARY_DELTA, 0, (dirty + <usize>(TCM_SUMMARY_GRANULE - 1)) / <usize>TCM_SUMMARY_GRANULE);
    store<u32>(tcm, 0, TCM_DIRTY_END);
  }
  if (FLAGS & FLAG_STORES_MARK_ANYWHERE) { shadow_lo = tcm; shadow_hi = tcm + <usize>TCM_ARENA_BYTES; }
  else { shadow_lo = <usize>-1; shadow_hi = 0; }
  if (!checks_on()) {
    gpsimd_own_tcm_span = 0;
    return;
  }
  gpsimd_own_tcm_span = <usize>TCM_ARENA_BYTES;
  gpsimd_own_static_lo = <usize>host_static_data(0);
  static_bytes = <usize>host_static_data(1);
  gpsimd_own_static_span = static_bytes >= 16 ? static_bytes - 15 : 0;
}

/** Notes that the maps may be marked up to TCM byte end (a block handed out up to there): own_enter clears that far. */
export function own_dirty_to(end: usize): void {
  const lo = gpsimd_own_tcm_lo;
  const offset = min<usize>(end - lo, <usize>TCM_ARENA_BYTES);
  if (offset > <usize>load<u32>(lo, TCM_DIRTY_END)) store<u32>(lo, <u32>offset, TCM_DIRTY_END);
}

/**
 * Notes that the last live block was freed: tcm_free cleared both maps over each block, and nothing marks outside
 * the blocks (blocks do not share a summary granule; copies and stores land in live blocks), so the maps are all 0
 * and the next launch on this core need not clear them (a launch that ends with blocks live, or fails, clears).
 */
export function own_all_freed(): void {
  store<u32>(gpsimd_own_tcm_lo, 0, TCM_DIRTY_END);
}

/**
 * Sets n bytes at p to 1 with v128 stores: a copy's edges and summary bytes are a few dozen bytes, where a
 * memory.fill is a call out of the module in V8, dearer than a few stores.
 */
function fill_ones(p: usize, n: usize): void {
  const ones = i8x16.splat(1);
  const end = p + n;
  for (; p + 16 <= end; p += 16) v128.store(p, ones);
  for (; p < end; p++) store<u8>(p, 1);
}

// Three ranges of TCM bytes known written in this generation (own_mark marked them, or own_read_range found them
// written): a kernel copies chunk after chunk into the same few buffers (giou: pred, target, output) and reads them
// back whole, so after the first chunk a copy in need not mark its 64 summary bytes again, nor a helper's read scan
// them; a few compares instead. Like the slow path's windows below, they hold until a byte becomes unwritten
// (own_mark(false), own_enter: a new generation). A range that meets one of them joins it; else it replaces the oldest.
let known_lo0: usize = 0, known_hi0: usize = 0, known_gen0: u32 = 0;
let known_lo1: usize = 0, known_hi1: usize = 0, known_gen1: u32 = 0;
let known_lo2: usize = 0, known_hi2: usize = 0, known_gen2: u32 = 0;
let known_next: i32 = 0;

/** True when every TCM byte of [from, to) is known written (one of the ranges of this generation holds it). */
// @ts-ignore: decorator
@inline export function known_written(from: usize, to: usize): bool {
  return (known_gen0 == generation && from >= known_lo0 && to <= known_hi0) || (known_gen1 == generation && from >= known_lo1 && to <= known_hi1)
    || (known_gen2 == generation && from >= known_lo2 && to <= known_hi2);
}

/**
 * When one of the ranges known written holds [from, to): sets it as the window, with no marking (its bytes are written
 * already), and returns true. It is a window for a load and for a store alike: its bytes lie in live blocks (only copies
 * into them and stores the checks accepted mark anything, and a free begins a new generation), and it stays true until
 * the function's next call, when the kernel drops its TCM windows (build/ownership-pass.ts).
 */
// @ts-ignore: decorator
@inline function known_window(from: usize, to: usize): bool {
  if (known_gen0 == generation && from >= known_lo0 && to <= known_hi0) { window(known_lo0, known_hi0 - known_lo0); return true; }
  if (known_gen1 == generation && from >= known_lo1 && to <= known_hi1) { window(known_lo1, known_hi1 - known_lo1); return true; }
  if (known_gen2 == generation && from >= known_lo2 && to <= known_hi2) { window(known_lo2, known_hi2 - known_lo2); return true; }
  return false;
}

/** Notes that the TCM bytes of [from, to) are written (see known_written). */
function remember_written(from: usize, to: usize): void {
  if (known_gen0 == generation && from <= known_hi0 && to >= known_lo0) { known_lo0 = min(from, known_lo0); known_hi0 = max(to, known_hi0); return; }
  if (known_gen1 == generation && from <= known_hi1 && to >= known_lo1) { known_lo1 = min(from, known_lo1); known_hi1 = max(to, known_hi1); return; }
  if (known_gen2 == generation && from <= known_hi2 && to >= known_lo2) { known_lo2 = min(from, known_lo2); known_hi2 = max(to, known_hi2); return; }
  if (known_next == 0) { known_lo0 = from; known_hi0 = to; known_gen0 = generation; }
  else if (known_next == 1) { known_lo1 = from; known_hi1 = to; known_gen1 = generation; }
  else { known_lo2 = from; known_hi2 = to; known_gen2 = generation; }
  known_next = known_next == 2 ? 0 : known_next + 1;
}

/**
 * Marks the TCM bytes of [p, p + n) written (a copy into TCM, a kernel's memory.fill) or unwritten (tcm_malloc and
 * tcm_free, over a block's footprint). Written: the granules it covers whole go into the summary, the edges into the
 * written-map. Unwritten: both maps are cleared over it, and a granule it covers only in part keeps its other bytes'
 * state in the written-map. Bytes outside the arena are left.
 */
export function own_mark(p: usize, n: usize, written_: bool): void {
  const lo = gpsimd_own_tcm_lo;
  const from = max<usize>(p, lo);
  const to = min<usize>(p + n, arena_end());
  if (from >= to) return;
  const G = <usize>TCM_SUMMARY_GRANULE;
  const first = lo + ((from - lo + G - 1) & ~(G - 1)); // the first granule start at or after from
  const last = lo + ((to - lo) & ~(G - 1));           // the last granule start at or before to
  if (written_) {
    if (known_written(from, to)) return; // the next chunk into the same buffer: marked already
    if (first < last) {
      if (first > from) { fill_ones(from + <usize>TCM_SHADOW_DELTA, first - from); shadow_dirty(from, first); }
      fill_ones(summary_of(first), (last - first) / G);
      if (to > last) { fill_ones(last + <usize>TCM_SHADOW_DELTA, to - last); shadow_dirty(last, to); }
    } else {
      fill_ones(from + <usize>TCM_SHADOW_DELTA, to - from);
      shadow_dirty(from, to);
    }
    remember_written(from, to);
    return;
  }
  generation++;
  // A granule cut by either end keeps what the summary said of its bytes outside [from, to).
  const head = from - ((from - lo) & (G - 1));
  if (head < from && load<u8>(summary_of(head)) != 0) { memory.fill(head + <usize>TCM_SHADOW_DELTA, 1, from - head); shadow_dirty(head, from); }
  const tail = min<usize>(lo + ((to - lo + G - 1) & ~(G - 1)), arena_end());
  if (to < tail && load<u8>(summary_of(to)) != 0) { memory.fill(to + <usize>TCM_SHADOW_DELTA, 1, tail - to); shadow_dirty(to, tail); }
  // Outside [shadow_lo, shadow_hi) the written-map is 0 already.
  const clear_from = max<usize>(from, shadow_lo), clear_to = min<usize>(to, shadow_hi);
  if (clear_to > clear_from) memory.fill(clear_from + <usize>TCM_SHADOW_DELTA, 0, clear_to - clear_from);
  memory.fill(summary_of(head), 0, (tail - head) / G);
}

/** True when [addr, end) lies in the data of descriptor desc and the call may write it; then it is the window. */
function owned_tensor(desc: usize, addr: usize, end: usize): bool {
  if (load<i32>(desc, TD_FLAGS) & TDF_READ_ONLY) return false;
  const data = <usize>load<u32>(desc, TD_DATA);
  const size = <usize>(load<i64>(desc, TD_NUMEL) * <i64>element_size(load<i32>(desc, TD_DTYPE)));
  if (addr < data || end > data + size || end < addr) return false;
  window(data, size);
  return true;
}

// The last windows the slow path found, for the kernel's next call of a function, whose windows start empty: kernels
// call their inner function once per chunk with the same buffers. A found window stays true until a byte of it
// becomes unwritten or its block is freed: own_mark(false) and own_enter begin a new generation, which drops them.
let generation: u32 = 1;
let load_lo0: usize = 0, load_len0: usize = 0, load_gen0: u32 = 0;
let load_lo1: usize = 0, load_len1: usize = 0, load_gen1: u32 = 0;
let store_lo0: usize = 0, store_len0: usize = 0, store_gen0: u32 = 0;
let load_next: i32 = 0;

/** True (and the window set) when a window of this generation [lo, lo + len) holds [addr, addr + bytes). */
// @ts-ignore: decorator
@inline function cached(lo: usize, len: usize, gen: u32, addr: usize, bytes: usize, mark: u32): bool {
  if (gen != generation || addr - lo >= len || len - (addr - lo) < bytes) return false;
  window(lo, len, mark);
  return true;
}

/** How far a load window reaches from the access it was found for, each way: bounds the scan of the maps. */
const WINDOW_REACH: usize = 4096;

// The runs of written bytes are found granule by granule where the summary says a granule is written whole (16 of
// them, 1 KB of TCM, per v128 test of the summary when aligned), and 16 written-map bytes at a time elsewhere.

/** The first TCM byte of the run of written bytes that ends at p (exclusive), scanning back no further than stop. */
function run_start(p: usize, stop: usize): usize {
  const lo = gpsimd_own_tcm_lo, G = <usize>TCM_SUMMARY_GRANULE;
  while (p > stop) {
    if (granule_start(p) && p - 16 * G >= stop && i8x16.all_true(v128.load(summary_of(p - 16 * G)))) { p -= 16 * G; continue; }
    const granule = lo + ((p - 1 - lo) & ~(G - 1)); // the granule of byte p - 1
    if (load<u8>(summary_of(granule)) != 0) { p = max<usize>(granule, stop); continue; }
    if (p - 16 >= stop && i8x16.all_true(v128.load(p - 16 + <usize>TCM_SHADOW_DELTA))) { p -= 16; continue; }
    if (load<u8>(p - 1 + <usize>TCM_SHADOW_DELTA) == 0) break;
    p--;
  }
  return p;
}

/** The end (exclusive) of the run of written bytes that starts at p, scanning no further than stop. */
function run_end(p: usize, stop: usize): usize {
  const lo = gpsimd_own_tcm_lo, G = <usize>TCM_SUMMARY_GRANULE;
  while (p < stop) {
    if (granule_start(p) && p + 16 * G <= stop && i8x16.all_true(v128.load(summary_of(p)))) { p += 16 * G; continue; }
    const granule = lo + ((p - lo) & ~(G - 1));
    if (load<u8>(summary_of(granule)) != 0) { p = min<usize>(granule + G, stop); continue; }
    if (p + 16 <= stop && i8x16.all_true(v128.load(p + <usize>TCM_SHADOW_DELTA))) { p += 16; continue; }
    if (load<u8>(p + <usize>TCM_SHADOW_DELTA) == 0) break;
    p++;
  }
  return p;
}

/** Fails at the first unwritten TCM byte of [from, to), reporting the access [addr, addr + bytes) (the error path). */
function report_unwritten(addr: usize, bytes: usize, from: usize, to: usize): void {
  for (let p = from; p < to; p++) if (!written(p)) report(E_TCM_UNWRITTEN_READ, addr, bytes, p);
}

/** The live TCM block whose footprint (bytes, guard bytes, rounding) holds [addr, end): its window, or false. */
function store_block(addr: usize, end: usize): bool {
  const n = min<i32>(load<i32>(CTX, CTX_TCM_NBLOCKS), MAX_TCM_BLOCKS);
  for (let i = 0; i < n; i++) {
    const e = CTX + <usize>CTX_TCM_TABLE + <usize>(i * TCMB_BYTES);
    const start = <usize>load<u32>(e, TCMB_PTR);
    const footprint = (<usize>load<u32>(e, TCMB_SIZE) + <usize>(TCM_GUARD_BYTES + TCM_ALIGN - 1)) & ~<usize>(TCM_ALIGN - 1);
    if (addr >= start && end <= start + footprint && end >= addr) { window(start, footprint, 1); return true; }
  }
  return false;
}

/** gpsimd_own_window's third argument: bit 0 a store (else a load); bit 1 a query (answer, never fail). */
const OWN_STORE: u32 = 1;
const OWN_QUERY: u32 = 2;

/**
 * The slow path of the inline checks, one function so that it is too large for the optimiser to inline into the
 * kernel (inlined, its report would lose the access's source place): checks a load (how = 0) or store (how = 1) of
 * [addr, addr + bytes) exactly, fails naming it, or sets the window (gpsimd_own_win_*) around it. A load fails at its
 * first unwritten TCM byte; a store fails outside what the call owns (in TCM: outside every live block).
 * A query (how | 2: the range a counted loop's accesses cover, build/ownership-loops.ts) never fails: where the access
 * would, the window is empty (gpsimd_own_win_len 0), and the loop runs with each access checked at its own line.
 */
export function gpsimd_own_window(addr: usize, bytes: usize, how: u32): void {
  if (!checks_on()) { window(0, <usize>-1); return; }
  const lo = gpsimd_own_tcm_lo, hi = arena_end();
  const end = addr + bytes;
  // The common case of a kernel that works chunk by chunk: a buffer the last copy in (or a store) wrote, asked again
  // for each chunk by a counted loop's queries.
  if (addr >= lo && end <= hi && end >= addr && known_window(addr, end)) return;
  const store = (how & OWN_STORE) != 0, query = (how & OWN_QUERY) != 0;
  if (!store) {
    if (end <= lo && end >= addr) { window(0, lo); return; }
    if (addr >= hi) { window(hi, 0 - hi); return; }
    if (addr < lo || end > hi || end < addr) { // straddles the arena's edge
      if (query) { window(0, 0); return; }
      report_unwritten(addr, bytes, max<usize>(addr, lo), min<usize>(end, hi));
      window(addr, bytes);
      return;
    }
    if (cached(load_lo0, load_len0, load_gen0, addr, bytes, 0) || cached(load_lo1, load_len1, load_gen1, addr, bytes, 0)) return;
    const last = run_end(addr, min<usize>(hi, max<usize>(end, addr + WINDOW_REACH)));
    if (last < end) {
      if (query) { window(0, 0); return; }
      report_unwritten(addr, bytes, addr, end);
    }
    const first = run_start(addr, addr >= lo + WINDOW_REACH ? addr - WINDOW_REACH : lo);
    window(first, last - first);
    if (load_next == 0) { load_lo0 = first; load_len0 = last - first; load_gen0 = generation; }
    else { load_lo1 = first; load_len1 = last - first; load_gen1 = generation; }
    load_next ^= 1;
    return;
  }
  if (end >= addr) {
    if (end > lo && addr < hi) {
      if (cached(store_lo0, store_len0, store_gen0, addr, bytes, 1)) return;
      if (store_block(addr, end)) { store_lo0 = gpsimd_own_win_lo; store_len0 = gpsimd_own_win_len; store_gen0 = generation; return; }
    } else {
      // The rest of the private region, less the maps after the arena (only the runtime writes those).
      const rest = lo + <usize>(TCM_SHADOW_DELTA + TCM_CHECK_MAPS_BYTES), heap_end = <usize>load<u32>(CTX, CTX_HEAP_END);
      if (addr >= rest && end <= heap_end) { window(rest, heap_end - rest); return; }
      // printf's argument records, which a C++ kernel's printf writes (include/gpsimd/abi.h's gpsimd_printf_args).
      const args = CTX + <usize>CTX_PRINTF_ARGS;
      if (addr >= args && end <= args + <usize>(PF_MAX_ARGS * 16)) { window(args, <usize>(PF_MAX_ARGS * 16)); return; }
      const statics = gpsimd_own_static_lo;
      if (addr >= statics && end <= statics + static_bytes) { window(statics, static_bytes); return; }
      // Every argument is an input (host/cores/descriptors.ts); the slots of scalar arguments hold stale descriptors.
      const dst = <usize>load<u32>(CTX, CTX_DST);
      if (dst != 0 && owned_tensor(dst, addr, end)) return;
    }
  }
  if (query) { window(0, 0); return; }
  report(E_FOREIGN_STORE, addr, bytes, 0);
}

/** A kernel store of [addr, addr + bytes) (memory.fill, memory.init): checked as above, and marked written where it is TCM. */
export function gpsimd_own_store(addr: usize, bytes: usize): void {
  if (bytes == 0 || !checks_on()) return;
  if (addr + bytes >= addr && known_written(addr, addr + bytes)) return; // in live blocks and written already (known_window)
  gpsimd_own_window(addr, bytes, OWN_STORE);
  own_mark(addr, bytes, true);
}

/** A kernel's bulk store of [addr, addr + bytes) that the sanitizer checked (sanitize mode): its TCM part marked written. */
export function gpsimd_own_mark_written(addr: usize, bytes: usize): void {
  if (bytes == 0 || !checks_on() || addr + bytes < addr) return;
  own_mark(addr, bytes, true);
}

/** Marks [p, p + n) written (a copy into TCM): own_mark, past the inline test of the ranges known written already. */
// @ts-ignore: decorator
@inline export function own_mark_written(p: usize, n: usize): void {
  if (p + n < p || !known_written(p, p + n)) own_mark(p, n, true);
}

/** A read of [src, src + bytes) in one go: fails at its first TCM byte nothing wrote. */
// @ts-ignore: decorator
@inline export function own_read_range(src: usize, bytes: usize): void {
  if (src + bytes < src || !known_written(src, src + bytes)) own_read_range_scan(src, bytes);
}

/** own_read_range past the ranges known written: scans the maps. */
function own_read_range_scan(src: usize, bytes: usize): void {
  const lo = gpsimd_own_tcm_lo, span = gpsimd_own_tcm_span;
  if (bytes == 0 || span == 0 || src >= lo + span || src + bytes <= lo) return;
  const from = max<usize>(src, lo), to = min<usize>(src + bytes, lo + span);
  if (known_written(from, to)) return;
  if (run_end(from, to) < to) report_unwritten(src, bytes, from, to);
  remember_written(from, to);
}

/**
 * The first TCM byte of [from, to) nothing wrote since its block was handed out, or 0 when every byte was written (a
 * copy out of TCM: tcm_to_tensor). [from, to) lies in a live block (the copy checked it), so in the arena.
 */
export function own_first_unwritten(from: usize, to: usize): usize {
  if (to <= from || known_written(from, to)) return 0;
  if (run_end(from, to) >= to) { remember_written(from, to); return 0; }
  for (let p = from; p < to; p++) if (!written(p)) return p;
  return 0;
}

/**
 * A helper's store of [dst, dst + bytes) after its read of the same bytes (an in-place operation): the read proved
 * TCM bytes written, so only a range outside TCM is checked as a store.
 */
// @ts-ignore: decorator
@inline export function own_store_in_place(dst: usize, src: usize, bytes: usize): void {
  const lo = gpsimd_own_tcm_lo;
  if (dst == src && dst >= lo && dst + bytes <= lo + gpsimd_own_tcm_span) return;
  gpsimd_own_store(dst, bytes);
}

/** A kernel memory.copy: the source is a load (every TCM byte written), the destination a store. */
export function gpsimd_own_copy(dst: usize, src: usize, bytes: usize): void {
  if (bytes == 0) return;
  own_read_range(src, bytes);
  gpsimd_own_store(dst, bytes);
}
