// What the synchronous call path keeps between calls (host/library/library.ts, ops.ts, host/cores/descriptors.ts,
// host/device/tensor.ts, hbm.ts) must never stand in for what a new call needs: another input's sizes or dtype,
// another library loaded under the same name, a tensor nobody disposed, memory grown since.
import { describe, it, expect, afterAll } from "vitest";
import v8 from "node:v8";
import vm from "node:vm";
import { hbm, ops, tensor, zeros, kFloat, kInt32, RegistryError, type Library, type Tensor } from "gpsimd";
import { DeviceMemory } from "../dist/host/device/hbm.js";
import { loadFixture, expectGpsimdError } from "./helpers.js";

const fixture = { group: "call-path", name: "call_path", compute: ["kernels.ts"], shape: ["register.ts"] };
let lib: Library = loadFixture(fixture);
afterAll(() => lib.unload());

type PlusOne = (t: Tensor) => Tensor;
const plusOne = () => (ops as unknown as Record<string, Record<string, PlusOne>>).call_path.plus_one;

/** The reference: every element plus one, as nested lists (what tolist() gives). */
function plusOneList(values: unknown): unknown {
  return Array.isArray(values) ? values.map(plusOneList) : (values as number) + 1;
}

describe("calls of one operator with other sizes and dtypes", () => {
  it("each call's output has its own input's sizes, dtype and values, in any order of shapes and dtypes", () => {
    const inputs = [
      tensor([1.5, -2, 3, 4.25]),
      tensor([[1, 2, 3], [4, 5, 6]]),
      tensor([7, -8, 9, 10, 11], undefined, kInt32),
      tensor([[0.5], [1.5]]),
      tensor([1.5, -2, 3, 4.25]),
      tensor([[100, 200], [300, 400]], undefined, kInt32),
      tensor([[[1, 2]], [[3, 4]], [[5, 6]]]),
    ];
    for (const x of inputs) {
      const y = plusOne()(x);
      expect({ sizes: y.sizes(), dtype: y.dtype }).toEqual({ sizes: x.sizes(), dtype: x.dtype });
      expect(y.tolist()).toEqual(plusOneList(x.tolist()));
      y.dispose();
    }
  });

  it("the same input tensor called again after others still gets its own sizes", () => {
    const a = tensor([1, 2, 3]), b = tensor([[1, 2], [3, 4]], undefined, kInt32);
    for (let i = 0; i < 3; i++) {
      expect(plusOne()(a).tolist()).toEqual([2, 3, 4]);
      expect(plusOne()(b).tolist()).toEqual([[2, 3], [4, 5]]);
    }
  });
});

describe("ops.<lib>.<op>", () => {
  it("ops.<lib> lists its operators and refuses any other name, naming those it has", () => {
    const ns = (ops as unknown as Record<string, object>).call_path;
    expect(Object.keys(ns)).toEqual(["plus_one"]);
    expect("plus_one" in ns).toBe(true);
    expect("plus_two" in ns).toBe(false);
    expectGpsimdError(() => (ns as Record<string, unknown>).plus_two, RegistryError, "E_UNKNOWN_OP", ["ops.call_path.plus_two: library call_path has no operator plus_two; it has plus_one"]);
    expectGpsimdError(() => (ns as Record<string, unknown>).toString, RegistryError, "E_UNKNOWN_OP", ["ops.call_path.toString: library call_path has no operator toString"]);
  });

  it("is one function per operator, which calls whichever library is loaded under the name when it is called", () => {
    const f = plusOne();
    expect(plusOne()).toBe(f);
    expect(f(tensor([1, 2])).tolist()).toEqual([2, 3]);
    lib.unload();
    expectGpsimdError(() => f(tensor([1, 2])), RegistryError, "E_UNKNOWN_LIBRARY", ["ops.call_path: no library call_path is loaded"]);
    lib = loadFixture(fixture);
    expect(f(tensor([1, 2])).tolist()).toEqual([2, 3]);
    expect(plusOne()(tensor([5], undefined, kInt32)).tolist()).toEqual([6]);
  });
});

describe("outputs nobody disposes", () => {
  it("are freed once garbage collected, also when a long synchronous loop made them", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const collect = async () => {
      gc();
      await new Promise((r) => setTimeout(r, 10)); // finalizers run as tasks after a collection
    };
    const x = zeros([1024], kFloat);
    plusOne()(x).dispose(); // the core's region and the launch state are made once, at the first call
    // What the tests before left for the collector goes first.
    for (let round = 0, before = -1; round < 20 && hbm().bytesInUse !== before; round++) {
      before = hbm().bytesInUse;
      await collect();
    }
    const baseline = hbm().bytesInUse;
    // More outputs than the tensors that wait for their finalizer registration until the turn ends (tensor.ts).
    (() => { for (let i = 0; i < 3000; i++) plusOne()(x); })();
    expect(hbm().bytesInUse).toBeGreaterThanOrEqual(baseline + 3000 * 4096);
    for (let round = 0; round < 20 && hbm().bytesInUse > baseline; round++) await collect();
    expect(hbm().bytesInUse).toBe(baseline);
    x.dispose();
  });

  it("disposed in the turn that made them, leave device memory as it was", () => {
    const x = zeros([256], kFloat);
    plusOne()(x).dispose();
    const baseline = hbm().bytesInUse;
    for (let i = 0; i < 2000; i++) plusOne()(x).dispose();
    expect(hbm().bytesInUse).toBe(baseline);
    x.dispose();
  });
});

describe("views of device memory across allocations", () => {
  it("words() and view() stay the same objects while the blocks handed out lie inside them, and are remade for one past them", () => {
    const m = new DeviceMemory();
    const first = m.alloc(1024);
    const words = m.words(), view = m.view();
    for (let i = 0; i < 100; i++) m.release(m.alloc(4096)); // the top moves up and back
    expect(m.words()).toBe(words);
    expect(m.view()).toBe(view);
    const size = m.byteLength;
    const big = m.alloc(size); // past the memory as it was: it grows
    expect(m.words()).not.toBe(words);
    const last = big + size - 4;
    m.words()[last >>> 2] = 0xC0FFEE;
    expect(m.view().getUint32(last, true)).toBe(0xC0FFEE);
    m.release(big);
    m.release(first);
  });
});
