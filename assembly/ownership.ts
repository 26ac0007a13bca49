// What the default mode checks of a kernel's raw loads and stores (the build's
// ownership pass, build/ownership-pass.ts, puts the fast tests inline into the
// kernel's own functions and calls the functions below only when they fail):
// - a load from this core's TCM arena reads only bytes written since their
//   block was handed out (by a copy into TCM or a kernel store): the arena's
//   written-map, one byte per TCM byte at TCM_SHADOW_DELTA past it, says which
//   (guard bytes and free TCM are never written, so a read past a block's end
//   fails too);
// - a store lands in memory the call owns: this core's private region (TCM,
//   written-map, printf ring, kernel heap with a C++ kernel's stack), the
//   library's static data, or the call's output (every argument is an input, and
//   the tensors a kernel makes live on its heap).
// The fast tests compare against the globals below, set at every launch: with
// checks off they accept everything, so an unchecked launch pays a compare.
import { CTX_TCM_BASE, CTX_HEAP_END, CTX_DST, TD_DATA, TD_DTYPE, TD_NUMEL, TD_FLAGS, TDF_READ_ONLY, TCM_ARENA_BYTES, TCM_SHADOW_DELTA, CTX_PRINTF_ARGS, PF_MAX_ARGS } from "./layout";
import { E_TCM_UNWRITTEN_READ, E_FOREIGN_STORE } from "./errors";
import { CTX, checks_on, fail } from "./core";
import { element_size } from "./dtype";

/** The library's static data: base (which 0) and bytes (which 1), as the host placed it. */
// @ts-ignore: decorator
@external("gpsimd", "static_data")
declare function host_static_data(which: i32): u32;

/** TCM arena of the running core; loads at (addr - lo) u< span are checked against the written-map (span 0: checks off). */
export let gpsimd_own_tcm_lo: usize = 0;
export let gpsimd_own_tcm_span: usize = 0;
/** The core's private region [TCM arena, heap end), less 15 bytes so that a 16-byte store that passes ends inside it. */
export let gpsimd_own_lo: usize = 0;
export let gpsimd_own_span: usize = <usize>-1;
/** The library's static data (same rule). */
export let gpsimd_own_static_lo: usize = 0;
export let gpsimd_own_static_span: usize = 0;
let static_bytes: usize = 0;
/** The tensor the last store outside both went to (same rule): kernels store through the same pointer again. */
export let gpsimd_own_hit_lo: usize = 0;
export let gpsimd_own_hit_span: usize = 0;

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

/** A fast-test span for a range of `bytes`: accepts a store of up to 16 bytes only when it ends inside. */
// @ts-ignore: decorator
@inline function fast_span(bytes: usize): usize { return bytes >= 16 ? bytes - 15 : 0; }

/** Sets the fast tests for a launch on the core whose context block is ctx (after set_core), with every TCM byte unwritten. */
export function own_enter(ctx: usize): void {
  const tcm = <usize>load<u32>(ctx, CTX_TCM_BASE);
  gpsimd_own_tcm_lo = tcm;
  gpsimd_own_hit_lo = 0;
  gpsimd_own_hit_span = 0;
  if (!checks_on()) {
    gpsimd_own_tcm_span = 0;
    gpsimd_own_lo = 0;
    gpsimd_own_span = <usize>-1;
    return;
  }
  gpsimd_own_tcm_span = <usize>TCM_ARENA_BYTES;
  gpsimd_own_lo = tcm;
  gpsimd_own_span = fast_span(<usize>load<u32>(ctx, CTX_HEAP_END) - tcm);
  gpsimd_own_static_lo = <usize>host_static_data(0);
  static_bytes = <usize>host_static_data(1);
  gpsimd_own_static_span = fast_span(static_bytes);
  memory.fill(tcm + <usize>TCM_SHADOW_DELTA, 0, <usize>TCM_ARENA_BYTES);
}

/** Marks the TCM bytes of [p, p + n) written (or unwritten): a copy into TCM, tcm_malloc and tcm_free. Bytes outside the arena are left. */
export function own_mark(p: usize, n: usize, written: bool): void {
  const lo = gpsimd_own_tcm_lo;
  const from = max<usize>(p, lo);
  const to = min<usize>(p + n, lo + <usize>TCM_ARENA_BYTES);
  if (from < to) memory.fill(from + <usize>TCM_SHADOW_DELTA, written ? 1 : 0, to - from);
}

/** True when [addr, end) lies in the data of descriptor desc and the call may write it; then it becomes the cached range. */
function owned_tensor(desc: usize, addr: usize, end: usize): bool {
  if (load<i32>(desc, TD_FLAGS) & TDF_READ_ONLY) return false;
  const data = <usize>load<u32>(desc, TD_DATA);
  const size = <usize>(load<i64>(desc, TD_NUMEL) * <i64>element_size(load<i32>(desc, TD_DTYPE)));
  if (addr < data || end > data + size || end < addr) return false;
  gpsimd_own_hit_lo = data;
  gpsimd_own_hit_span = fast_span(size);
  return true;
}

/**
 * The slow path of both inline tests, one function so that it is too large for the optimiser to inline into the
 * kernel (inlined, its report would lose the access's source place): a load (store = false) of [addr, addr + bytes)
 * whose written-map test failed fails at its first unwritten TCM byte (one that only straddles the arena passes); a
 * store outside the fast tests' ranges passes if the call owns it, else fails naming it.
 */
export function gpsimd_own_miss(addr: usize, bytes: usize, store: bool): void {
  if (!store) {
    const lo = gpsimd_own_tcm_lo, span = gpsimd_own_tcm_span;
    for (let p = addr; p < addr + bytes; p++) {
      if (p - lo < span && load<u8>(p + <usize>TCM_SHADOW_DELTA) == 0) report(E_TCM_UNWRITTEN_READ, addr, bytes, p);
    }
    return;
  }
  if (!checks_on()) return;
  const end = addr + bytes;
  if (end >= addr) {
    if (addr >= gpsimd_own_lo && end <= <usize>load<u32>(CTX, CTX_HEAP_END)) { own_mark(addr, bytes, true); return; }
    // printf's argument records, which a C++ kernel's printf writes (include/gpsimd/abi.h's gpsimd_printf_args).
    const args = CTX + <usize>CTX_PRINTF_ARGS;
    if (addr >= args && end <= args + <usize>(PF_MAX_ARGS * 16)) return;
    const statics = gpsimd_own_static_lo;
    if (addr >= statics && end <= statics + static_bytes) return;
    // Every argument is an input (host/cores/descriptors.ts); the slots of scalar arguments hold stale descriptors.
    const dst = <usize>load<u32>(CTX, CTX_DST);
    if (dst != 0 && owned_tensor(dst, addr, end)) return;
  }
  report(E_FOREIGN_STORE, addr, bytes, 0);
}

/** A kernel store of [addr, addr + bytes) (memory.fill, memory.init): checked as above, and marked written where it is TCM. */
export function gpsimd_own_store(addr: usize, bytes: usize): void {
  if (bytes != 0) gpsimd_own_miss(addr, bytes, true);
}

/** A read of [src, src + bytes) in one go: fails at its first TCM byte nothing wrote. */
export function own_read_range(src: usize, bytes: usize): void {
  const lo = gpsimd_own_tcm_lo, span = gpsimd_own_tcm_span;
  if (bytes == 0 || span == 0 || src >= lo + span || src + bytes <= lo) return;
  const from = max<usize>(src, lo), to = min<usize>(src + bytes, lo + span);
  let p = from;
  // 16 written-map bytes at a time (the map lies inside the core's region, so a load past `to` stays in it), then
  // byte by byte from the first group with an unwritten byte.
  while (p + 64 <= to) {
    const m = p + <usize>TCM_SHADOW_DELTA;
    if (!i8x16.all_true(v128.and(v128.and(v128.load(m), v128.load(m, 16)), v128.and(v128.load(m, 32), v128.load(m, 48))))) break;
    p += 64;
  }
  while (p + 16 <= to && i8x16.all_true(v128.load(p + <usize>TCM_SHADOW_DELTA))) p += 16;
  for (; p < to; p++) if (load<u8>(p + <usize>TCM_SHADOW_DELTA) == 0) report(E_TCM_UNWRITTEN_READ, src, bytes, p);
}

/**
 * A helper's store of [dst, dst + bytes) after its read of the same bytes (an in-place operation): the read proved
 * TCM bytes written, so only a range outside TCM is checked as a store.
 */
export function own_store_in_place(dst: usize, src: usize, bytes: usize): void {
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
