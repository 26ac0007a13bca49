// Device memory: the allocator reuses and coalesces freed blocks, aligns them
// (64 bytes; pages for 64 KB and more), rejects bad frees; tensors give their
// memory back on dispose() and when garbage collected, so device memory
// returns to its baseline after operator calls.
import { describe, it, expect } from "vitest";
import v8 from "node:v8";
import vm from "node:vm";
import { hbm, ops, zeros, randn, kFloat, DeviceMemoryError, shutdown, type Tensor } from "gpsimd";
import { DeviceMemory } from "../dist/host/device/hbm.js";
import { MemoryViews } from "../dist/host/device/memory-views.js";
import { loadOp } from "../ops/index.js";

describe("the allocator", () => {
  it("reuses a freed block and coalesces neighbours", () => {
    const m = new DeviceMemory();
    const a = m.alloc(1000), b = m.alloc(1000), c = m.alloc(1000);
    expect([a % 64, b - a, c - b]).toEqual([0, 1024, 1024]); // rounded up to 64
    m.release(b);
    expect(m.alloc(1000)).toBe(b); // best fit: the hole
    m.release(a); m.release(c);
    m.release(b);
    expect(m.bytesInUse).toBe(0);
    expect(m.alloc(3000)).toBe(a); // the three coalesced (and returned to the top)
  });

  it("puts blocks of 64 KB or more on 4 KB pages", () => {
    const m = new DeviceMemory();
    m.alloc(100);
    const big = m.alloc(65536);
    expect(big % 4096).toBe(0);
    const small = m.alloc(100); // the gap before the page is still usable
    expect(small).toBeLessThan(big);
  });

  it("rejects a double free and an address it never gave out", () => {
    const m = new DeviceMemory();
    const a = m.alloc(64);
    m.release(a);
    expect(() => m.release(a)).toThrow(DeviceMemoryError);
    expect(() => m.release(a + 64)).toThrow(/is not an allocated block/);
  });
});

describe("tensors and device memory", () => {
  it("returns to its baseline after tensors are disposed and operators called", async () => {
    const libs = [loadOp("relu_multicore"), loadOp("relu_tcm")];
    const step = (x: Tensor) => {
      const a = ops.relu_multicore.relu_forward(x);
      const b = ops.relu_tcm.relu_forward(a);
      a.dispose();
      return b;
    };
    const first = zeros([8, 8], kFloat);
    step(first).dispose(); // core regions and launch state are made once, at the first call
    first.dispose();
    const baseline = hbm().bytesInUse;
    for (let i = 0; i < 20; i++) {
      const x = randn([64, 1000], { seed: i });
      step(x).dispose();
      x.dispose();
    }
    expect(hbm().bytesInUse).toBe(baseline);
    libs.forEach((l) => l.unload());
    await shutdown();
  });

  it("frees a tensor nobody disposed once it is garbage collected", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const baseline = hbm().bytesInUse;
    (() => { for (let i = 0; i < 50; i++) zeros([256, 256], kFloat); })(); // 12.5 MB, no references kept
    expect(hbm().bytesInUse).toBeGreaterThan(baseline);
    for (let round = 0; round < 20 && hbm().bytesInUse > baseline; round++) {
      gc();
      await new Promise((r) => setTimeout(r, 10)); // finalizers run as tasks after a collection
    }
    expect(hbm().bytesInUse).toBe(baseline);
  });
});

describe("views of device memory", () => {
  it("hbm().words() and view() reach every block after the memory grows, and see what was written", () => {
    const m = new DeviceMemory();
    const before = m.words();
    m.view(); // both views made before the growth
    const big = m.alloc(m.byteLength + 4096); // past the end: the memory grows
    expect(m.byteLength).toBeGreaterThan(big);
    m.words()[(big + 4092) >>> 2] = 0xDEADBEEF;
    expect(m.view().getUint32(big + 4092, true)).toBe(0xDEADBEEF);
    expect(before.length).toBeLessThan(m.words().length); // a new view after the growth
  });

  it("a core thread's MemoryViews are remade only for an address past them", () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
    const views = new MemoryViews(memory);
    const first = views.view(100);
    expect(views.view(65536)).toBe(first);
    memory.grow(1);
    expect(views.view(65536)).toBe(first); // still reaches
    const grown = views.view(65537);
    expect(grown).not.toBe(first);
    expect(grown.byteLength).toBe(131072);
    new DataView(memory.buffer).setInt32(131068, -7, true);
    expect(Atomics.load(views.words(131072), 131068 >> 2)).toBe(-7);
  });
});
