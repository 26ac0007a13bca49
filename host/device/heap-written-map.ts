// Sanitize mode's initcheck of the kernel heap (host/checks/sanitizer.ts,
// sanitizer-fast-path.ts) keeps, for each core, which heap bytes the running
// call has written: a bit per heap byte, in device memory just past the heap
// (kernel accesses never reach it: it is outside the core's heap in every
// mode). Its first word is the highest heap address a store marked (the
// marked end), so that a run clears only the bits the run before it set; the
// next two words are the host's, in every mode (HEAP_UNTOUCHED_LO).

/** Offset in the map of the marked end (u32: a heap address; the heap's base or less when no bit is set). */
export const HEAP_MARKED_END = 0;
/**
 * Offsets in the map of [lo, hi): heap bytes the last call on the core did not touch (the C++ stack below its
 * low-water mark), which the host need not clear before the next call (host/cores/heap-hygiene.ts); 0, 0 for none.
 */
export const HEAP_UNTOUCHED_LO = 4, HEAP_UNTOUCHED_HI = 8;
/** Offset in the map of the first bit byte: bit (p - heap base) & 7 of byte (p - heap base) >> 3 is heap byte p's. */
export const HEAP_WRITTEN_BITS = 16;

/** Where the map of a heap that ends at heapEnd starts (16-byte aligned, past the heap). */
export function heapWrittenMapAt(heapEnd: number): number {
  return ((heapEnd + 15) & ~15) >>> 0; // unsigned: device addresses reach 4 GiB
}

/** Bytes from heapEnd to the end of its map: alignment, header, the bits, and a word of slack for 32-bit updates. */
export function heapWrittenMapBytes(heapEnd: number, heapBytes: number): number {
  return heapWrittenMapAt(heapEnd) - heapEnd + HEAP_WRITTEN_BITS + Math.ceil(heapBytes / 8) + 4;
}
