// Where a core's heap written-map lies, for heaps anywhere in 4 GiB of device memory: addresses past 2^31 stay
// unsigned (a signed `& ~15` made them negative, and the first call above 2 GiB failed with a RangeError).
import { describe, it, expect } from "vitest";
import { heapWrittenMapAt, heapWrittenMapBytes, HEAP_WRITTEN_BITS } from "../host/device/heap-written-map.js";

describe("heapWrittenMapAt", () => {
  it("rounds a heap's end up to 16 bytes, below and above 2 GiB", () => {
    expect(heapWrittenMapAt(0x1000)).toBe(0x1000);
    expect(heapWrittenMapAt(0x1001)).toBe(0x1010);
    expect(heapWrittenMapAt(0x8000_0000)).toBe(0x8000_0000);
    expect(heapWrittenMapAt(0x8000_0001)).toBe(0x8000_0010);
    expect(heapWrittenMapAt(0xffff_ff01)).toBe(0xffff_ff10);
  });

  it("covers the header, a bit per heap byte and a word of slack", () => {
    expect(heapWrittenMapBytes(0x8000_0004, 64)).toBe(12 + HEAP_WRITTEN_BITS + 8 + 4);
  });
});
