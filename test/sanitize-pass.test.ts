// The sanitizer's Binaryen pass on a hand-written module (as a C++ kernel's
// clang output would reach it): every memory instruction form calls the right
// check with its address, static offset and size (the run-time length for
// bulk instructions) before it runs, the operands still evaluate once and in
// order, and the instrumented module computes what the original did.
import { describe, it, expect } from "vitest";
import binaryen from "binaryen";
import { instrumentMemory } from "../dist/build/sanitize-pass.js";

const WAT = `(module
  (import "env" "memory" (memory 1 1 shared))
  (import "env" "order" (func $order (param i32 i32) (result i32)))
  (data $abcd "abcd")
  (func (export "load") (param $p i32) (result i32) (i32.load offset=4 (local.get $p)))
  (func (export "store8") (param $p i32) (i32.store8 offset=2 (local.get $p) (i32.const 7)))
  (func (export "rmw64") (param $p i32) (result i64) (i64.atomic.rmw.add offset=8 (local.get $p) (i64.const 1)))
  (func (export "cmpxchg16") (param $p i32) (result i32) (i32.atomic.rmw16.cmpxchg_u offset=2 (local.get $p) (i32.const 0) (i32.const 1)))
  (func (export "wait64") (param $p i32) (result i32) (memory.atomic.wait64 offset=16 (local.get $p) (i64.const 5) (i64.const 0)))
  (func (export "notify") (param $p i32) (result i32) (memory.atomic.notify offset=4 (local.get $p) (i32.const 0)))
  (func (export "splat32") (param $p i32) (result i32) (i32x4.extract_lane 0 (v128.load32_splat offset=1 (local.get $p))))
  (func (export "load16x4") (param $p i32) (result i32) (i32x4.extract_lane 0 (v128.load16x4_u (local.get $p))))
  (func (export "zero64") (param $p i32) (result i32) (i32x4.extract_lane 0 (v128.load64_zero (local.get $p))))
  (func (export "lane8") (param $p i32) (result i32) (i32x4.extract_lane 0 (v128.load8_lane 3 (local.get $p) (v128.const i32x4 0 0 0 0))))
  (func (export "storelane16") (param $p i32) (v128.store16_lane offset=2 5 (local.get $p) (v128.const i32x4 0 0 0 0)))
  (func (export "copy") (param $d i32) (param $s i32) (param $n i32)
    (memory.copy (call $order (local.get $d) (i32.const 1)) (call $order (local.get $s) (i32.const 2)) (call $order (local.get $n) (i32.const 3))))
  (func (export "fill") (param $d i32) (param $n i32) (memory.fill (local.get $d) (i32.const 9) (local.get $n)))
  (func (export "init") (param $d i32) (memory.init $abcd (local.get $d) (i32.const 1) (i32.const 3)))
  (func (export "grow") (param $n i32) (result i32) (memory.grow (local.get $n)))
  (func $rt/bookkeeping (export "runtime") (param $p i32) (i32.store (local.get $p) (i32.const 1)))
  (func $~lib/rt/stub/__alloc (export "alloc") (param $n i32) (result i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 64))))
    (i32.add (local.get $n) (i32.const 1000)))
)`;

type Call = [string, number, number, number];

/** The test module, instrumented and compiled (functions named rt/... are the runtime). */
function compiledWat(): WebAssembly.Module {
  const module = binaryen.parseText(WAT);
  module.setFeatures(binaryen.Features.All);
  instrumentMemory(module, { isRuntime: (name) => name.startsWith("rt/") });
  expect(module.validate()).toBeTruthy();
  const binary = module.emitBinary() as Uint8Array<ArrayBuffer>;
  module.dispose();
  return new WebAssembly.Module(binary);
}

/** An instance whose checks record their calls and accept everything. */
function instrumented(): { exports: Record<string, (...a: number[]) => number>; calls: Call[]; memory: WebAssembly.Memory } {
  const calls: Call[] = [];
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  const check = (name: string) => (addr: number, offset: number, bytes: number) => { calls.push([name, addr, offset, bytes >>> 0]); return addr; };
  const instance = new WebAssembly.Instance(compiledWat(), {
    env: { memory, order: (x: number, tag: number) => { calls.push(["order", tag, x, 0]); return x; } },
    sanitize: {
      load: check("load"), store: check("store"), runtime_load: check("runtime_load"), runtime_store: check("runtime_store"),
      bulk_load: check("bulk_load"), bulk_store: check("bulk_store"),
      heap_alloc: (ptr: number) => { calls.push(["heap_alloc", ptr, 0, 0]); return ptr; },
      memory_grow: (delta: number) => { calls.push(["memory_grow", delta, 0, 0]); throw new Error("grow refused"); },
    },
  });
  return { exports: instance.exports as Record<string, (...a: number[]) => number>, calls, memory };
}

describe("build/sanitize-pass.ts", () => {
  it("checks each static-size form with its address, offset and size", () => {
    const cases: [string, Call][] = [
      ["load", ["load", 100, 4, 4]], ["store8", ["store", 100, 2, 1]], ["rmw64", ["store", 96, 8, 8]], ["cmpxchg16", ["store", 100, 2, 2]],
      ["wait64", ["load", 96, 16, 8]], ["notify", ["load", 100, 4, 4]], ["splat32", ["load", 100, 1, 4]], ["load16x4", ["load", 96, 0, 8]],
      ["zero64", ["load", 96, 0, 8]], ["lane8", ["load", 100, 0, 1]], ["storelane16", ["store", 100, 2, 2]], ["runtime", ["runtime_store", 100, 0, 4]],
    ];
    for (const [fn, expected] of cases) {
      const { exports, calls } = instrumented();
      exports[fn](expected[1]);
      expect(calls, fn).toEqual([expected]);
    }
  });

  it("memory.copy evaluates its operands once, in order, then checks both ranges (as a bulk load and store) with the run-time length, and copies", () => {
    const { exports, calls, memory } = instrumented();
    const bytes = new Uint8Array(memory.buffer);
    bytes.set([1, 2, 3, 4, 5], 200);
    exports.copy(300, 200, 5);
    expect(calls).toEqual([["order", 1, 300, 0], ["order", 2, 200, 0], ["order", 3, 5, 0], ["bulk_load", 200, 0, 5], ["bulk_store", 300, 0, 5]]);
    expect(Array.from(bytes.subarray(300, 305))).toEqual([1, 2, 3, 4, 5]);
  });

  it("memory.fill and memory.init check the destination range (as a bulk store), then write", () => {
    const { exports, calls, memory } = instrumented();
    exports.fill(400, 6);
    exports.init(500);
    expect(calls).toEqual([["bulk_store", 400, 0, 6], ["bulk_store", 500, 0, 3]]);
    const bytes = new Uint8Array(memory.buffer);
    expect(Array.from(bytes.subarray(400, 407))).toEqual([9, 9, 9, 9, 9, 9, 0]);
    expect(new TextDecoder().decode(bytes.subarray(500, 503))).toBe("bcd");
  });

  it("a check that throws stops the access before it happens", () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const refuse = () => { throw new Error("refused"); };
    const { exports } = new WebAssembly.Instance(compiledWat(), {
      env: { memory, order: (x: number) => x }, sanitize: { load: refuse, store: refuse, runtime_load: refuse, runtime_store: refuse, bulk_load: refuse, bulk_store: refuse, memory_grow: refuse, heap_alloc: refuse },
    });
    expect(() => (exports.fill as (d: number, n: number) => void)(600, 4)).toThrow("refused");
    expect(Array.from(new Uint8Array(memory.buffer, 600, 4))).toEqual([0, 0, 0, 0]);
  });

  it("every block the kernel heap's allocator returns goes to the heap_alloc hook (through a return or the body's value)", () => {
    const { exports, calls } = instrumented();
    expect(exports.alloc(0)).toBe(64);
    expect(exports.alloc(24)).toBe(1024);
    expect(calls).toEqual([["heap_alloc", 64, 0, 0], ["heap_alloc", 1024, 0, 0]]);
  });

  it("memory.grow goes to the grow check", () => {
    const { exports, calls } = instrumented();
    expect(() => exports.grow(2)).toThrow("grow refused");
    expect(calls).toEqual([["memory_grow", 2, 0, 0]]);
  });

  it("refuses a module with an expression it does not know how to check", () => {
    const module = binaryen.parseText(`(module (memory 1) (type $s (struct (field i32))) (func (result i32) (struct.get $s 0 (struct.new $s (i32.const 1)))))`);
    module.setFeatures(binaryen.Features.All);
    expect(() => instrumentMemory(module, { isRuntime: () => false })).toThrow(/sanitize: cannot instrument a module with expression kind/);
    module.dispose();
  });
});
