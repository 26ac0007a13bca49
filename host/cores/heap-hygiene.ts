// What one call leaves on its core's kernel heap (tensors it made, C++
// malloc/new blocks, the C++ stack, which lives there too) must not be
// readable by the next call on that core, of this library or any other: the
// part of the heap a call used is zeroed before the next call on the core
// starts. A call's use is its heap's high-water mark, which the kernel library
// writes into the context block when the kernel returns (CTX_HEAP_PEAK), less
// the C++ stack below the lowest the stack pointer went (the stack is one
// 64 KB block and a call uses the top of it); until the kernel returns, and
// after a call that failed or was stopped, the mark says "the whole heap", so
// a call that never reached its exit is cleaned up in full.
import { CTX_HEADER_BYTES, CTX_HEAP_BASE, CTX_HEAP_END, CTX_HEAP_PEAK } from "../device/layout.js";
import type { MemoryViews } from "../device/memory-views.js";
import { zeroer } from "../device/memory-fill.js";
import { HEAP_UNTOUCHED_HI, HEAP_UNTOUCHED_LO, heapWrittenMapAt } from "../device/heap-written-map.js";

/**
 * Zeroes the part of the heap of the core at ctx that the previous call used, then marks the whole heap as used
 * until this call's exit says how much it used. Call it after the host wrote this launch's heap bounds, before the
 * core enters; returns the heap's end, for recordStackUse and markWholeHeapUsed.
 */
export function clearUsedHeap(memory: WebAssembly.Memory, views: MemoryViews, ctx: number): number {
  const view = views.view(ctx + CTX_HEADER_BYTES);
  const base = view.getUint32(ctx + CTX_HEAP_BASE, true);
  const end = view.getUint32(ctx + CTX_HEAP_END, true);
  const used = Math.min(view.getUint32(ctx + CTX_HEAP_PEAK, true), end);
  const map = heapWrittenMapAt(end);
  const words = views.view(map + HEAP_UNTOUCHED_HI + 4);
  const lo = words.getUint32(map + HEAP_UNTOUCHED_LO, true), hi = words.getUint32(map + HEAP_UNTOUCHED_HI, true);
  if (used > base) {
    const zero = zeroer(memory);
    if (base <= lo && lo < hi && hi <= used) {
      if (lo > base) zero(base, lo - base);
      if (used > hi) zero(hi, used - hi);
    } else zero(base, used - base);
  }
  words.setUint32(map + HEAP_UNTOUCHED_LO, 0, true);
  words.setUint32(map + HEAP_UNTOUCHED_HI, 0, true);
  view.setUint32(ctx + CTX_HEAP_PEAK, end, true);
  return end;
}

/**
 * After a C++ kernel returned: its stack [limit, top) was touched only from `low` (the lowest the stack pointer went,
 * assembly/cpp-abi.ts) up, so the next clear leaves [limit, low) alone. Undefined numbers (an AssemblyScript kernel,
 * which has no such stack) or numbers outside the heap record nothing.
 */
export function recordStackUse(views: MemoryViews, ctx: number, end: number, limit: number | undefined, low: number | undefined, top: number | undefined): void {
  if (limit === undefined || low === undefined || top === undefined || !(limit <= low && low <= top)) return;
  const base = views.view(ctx + CTX_HEADER_BYTES).getUint32(ctx + CTX_HEAP_BASE, true);
  if (limit < base || top > end) return;
  const map = heapWrittenMapAt(end);
  const words = views.view(map + HEAP_UNTOUCHED_HI + 4);
  words.setUint32(map + HEAP_UNTOUCHED_LO, limit, true);
  words.setUint32(map + HEAP_UNTOUCHED_HI, low, true);
}

/**
 * After a call that did not return normally: the next call on the core clears the whole heap, up to `end` as the
 * host wrote it before the call (the kernel may have changed both the mark and the bounds in its context block).
 */
export function markWholeHeapUsed(views: MemoryViews, ctx: number, end: number): void {
  views.view(ctx + CTX_HEADER_BYTES).setUint32(ctx + CTX_HEAP_PEAK, end, true);
  const map = heapWrittenMapAt(end);
  const words = views.view(map + HEAP_UNTOUCHED_HI + 4);
  words.setUint32(map + HEAP_UNTOUCHED_LO, 0, true);
  words.setUint32(map + HEAP_UNTOUCHED_HI, 0, true);
}
