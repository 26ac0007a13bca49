// The kernel heap: replaces AssemblyScript's stub runtime (--runtime stub) so
// that each core allocates from its own region of device memory. The region
// is set by __gpsimd_enter and emptied at every launch; memory is never grown
// (that would move device memory under the host's allocator).
import { AL_MASK, OBJECT, OBJECT_OVERHEAD, BLOCK_MAXSIZE, BLOCK_OVERHEAD, BLOCK, OBJECT_MAXSIZE } from "./common";

// Same code and meaning as E_HEAP_EXHAUSTED in assembly/errors.ts.
const E_HEAP_EXHAUSTED: i32 = 15;

@external("gpsimd", "fail")
declare function host_fail(code: i32, slot: i32, a: f64, b: f64, c: f64): void;

// @ts-ignore: decorator
@lazy let heapStart: usize = 0;
// @ts-ignore: decorator
@lazy let offset: usize = 0;
// @ts-ignore: decorator
@lazy let heapEnd: usize = 0;
// @ts-ignore: decorator
@lazy let heapPeak: usize = 0;

/** Points the heap at [start, end) and empties it. */
// @ts-ignore: decorator
@unsafe @global
export function __gpsimd_heap_reset(start: usize, end: usize): void {
  heapStart = ((start + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
  offset = heapStart;
  heapPeak = heapStart;
  heapEnd = end;
}

/**
 * Takes `bytes` (16-byte aligned) off the top of the heap for the kernel
 * library's own bookkeeping, only if that leaves at least three times as much
 * free below it; returns the address, or 0 when the heap is too full.
 */
// @ts-ignore: decorator
@unsafe @global
export function __gpsimd_heap_take_top(bytes: usize): usize {
  const size = (bytes + 15) & ~15;
  const top = (heapEnd - size) & ~15;
  if (heapEnd < offset || heapEnd - offset < size * 4) return 0;
  heapEnd = top;
  return top;
}

/** Highest address the heap reached since the last reset. */
// @ts-ignore: decorator
@unsafe @global
export function __gpsimd_heap_peak(): usize { return heapPeak; }

/** Fails as a full heap for a request of `bytes` (a size __alloc cannot take: 1 GiB or more). */
// @ts-ignore: decorator
@global
export function __gpsimd_heap_refuse(bytes: f64): void {
  host_fail(E_HEAP_EXHAUSTED, -3, bytes, <f64>(heapEnd - offset), <f64>(heapEnd - heapStart));
  unreachable();
}

function bump(newOffset: usize): void {
  if (newOffset > heapEnd) {
    host_fail(E_HEAP_EXHAUSTED, -3, <f64>(newOffset - offset), <f64>(heapEnd - offset), <f64>(heapEnd - heapStart));
    unreachable();
  }
  offset = newOffset;
  if (newOffset > heapPeak) heapPeak = newOffset;
}

// @ts-ignore: decorator
@inline function computeSize(size: usize): usize {
  return ((size + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
export function __alloc(size: usize): usize {
  if (size > BLOCK_MAXSIZE) bump(<usize>-1);
  let block = changetype<BLOCK>(offset);
  let ptr = offset + BLOCK_OVERHEAD;
  let payloadSize = computeSize(size);
  bump(ptr + payloadSize);
  block.mmInfo = payloadSize;
  return ptr;
}

// @ts-ignore: decorator
@unsafe @global
export function __realloc(ptr: usize, size: usize): usize {
  let block = changetype<BLOCK>(ptr - BLOCK_OVERHEAD);
  let actualSize = block.mmInfo;
  let isLast = ptr + actualSize == offset;
  let payloadSize = computeSize(size);
  if (size > actualSize) {
    if (isLast) {
      bump(ptr + payloadSize);
      block.mmInfo = payloadSize;
    } else {
      let newPtr = __alloc(max<usize>(payloadSize, actualSize << 1));
      memory.copy(newPtr, ptr, actualSize);
      block = changetype<BLOCK>((ptr = newPtr) - BLOCK_OVERHEAD);
    }
  } else if (isLast) {
    offset = ptr + payloadSize;
    block.mmInfo = payloadSize;
  }
  return ptr;
}

// @ts-ignore: decorator
@unsafe @global
export function __free(ptr: usize): void {
  let block = changetype<BLOCK>(ptr - BLOCK_OVERHEAD);
  if (ptr + block.mmInfo == offset) offset = changetype<usize>(block);
}

// @ts-ignore: decorator
@unsafe @global
export function __reset(): void { offset = heapStart; }

// @ts-ignore: decorator
@unsafe @global
export function __new(size: usize, id: u32): usize {
  if (size > OBJECT_MAXSIZE) bump(<usize>-1);
  let ptr = __alloc(OBJECT_OVERHEAD + size);
  let object = changetype<OBJECT>(ptr - BLOCK_OVERHEAD);
  object.gcInfo = 0;
  object.gcInfo2 = 0;
  object.rtId = id;
  object.rtSize = <u32>size;
  return ptr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
export function __renew(oldPtr: usize, size: usize): usize {
  if (size > OBJECT_MAXSIZE) bump(<usize>-1);
  let newPtr = __realloc(oldPtr - OBJECT_OVERHEAD, OBJECT_OVERHEAD + size);
  changetype<OBJECT>(newPtr - BLOCK_OVERHEAD).rtSize = <u32>size;
  return newPtr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@global @unsafe
export function __link(parentPtr: usize, childPtr: usize, expectMultiple: bool): void {}

// @ts-ignore: decorator
@global @unsafe
export function __pin(ptr: usize): usize { return ptr; }

// @ts-ignore: decorator
@global @unsafe
export function __unpin(ptr: usize): void {}

// @ts-ignore: decorator
@global @unsafe
function __visit(ptr: usize, cookie: u32): void {} // eslint-disable-line @typescript-eslint/no-unused-vars

// @ts-ignore: decorator
@global @unsafe
export function __collect(): void {}
