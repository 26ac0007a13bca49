// What one call leaves on its core's kernel heap (tensors it made, C++
// malloc/new blocks, the C++ stack, which lives there too) must not be
// readable by the next call on that core, of this library or any other: the
// part of the heap a call used is zeroed before the next call on the core
// starts. A call's use is its heap's high-water mark, which the kernel library
// writes into the context block when the kernel returns (CTX_HEAP_PEAK); until
// then, and after a call that failed or was stopped, the mark says "the whole
// heap", so a call that never reached its exit is cleaned up in full.
import { CTX_HEADER_BYTES, CTX_HEAP_BASE, CTX_HEAP_END, CTX_HEAP_PEAK } from "../device/layout.js";
import type { MemoryViews } from "../device/memory-views.js";
import { zeroer } from "../device/memory-fill.js";

/**
 * Zeroes the part of the heap of the core at ctx that the previous call used, then marks the whole heap as used
 * until this call's exit says how much it used. Call it after the host wrote this launch's heap bounds, before the
 * core enters; returns the heap's end, for markWholeHeapUsed.
 */
export function clearUsedHeap(memory: WebAssembly.Memory, views: MemoryViews, ctx: number): number {
  const view = views.view(ctx + CTX_HEADER_BYTES);
  const base = view.getUint32(ctx + CTX_HEAP_BASE, true);
  const end = view.getUint32(ctx + CTX_HEAP_END, true);
  const used = Math.min(view.getUint32(ctx + CTX_HEAP_PEAK, true), end);
  if (used > base) zeroer(memory)(base, used - base);
  view.setUint32(ctx + CTX_HEAP_PEAK, end, true);
  return end;
}

/**
 * After a call that did not return normally: the next call on the core clears the whole heap, up to `end` as the
 * host wrote it before the call (the kernel may have changed both the mark and the bounds in its context block).
 */
export function markWholeHeapUsed(views: MemoryViews, ctx: number, end: number): void {
  views.view(ctx + CTX_HEADER_BYTES).setUint32(ctx + CTX_HEAP_PEAK, end, true);
}
