// The stop-poll pass on a module that is not AssemblyScript (as the C++ pipeline will hand it):
// every loop head and every calling function polls the stop word; atomic waits are named.
import { describe, it, expect } from "vitest";
import binaryen from "binaryen";
import { insertStopPolls, STOP_IMPORT, SET_STOP_WORD_EXPORT, STOP_WORD_GLOBAL } from "../../dist/build/stop-polls.js";

const WAT = `(module
  (import "env" "memory" (memory 1 1 shared))
  (import "env" "log" (func $log (param i32)))
  (type $unary (func (param i32) (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $spin)
  (func $spin (export "spin") (param i32) (result i32)
    (loop $again (br_if $again (i32.const 1)))
    (local.get 0))
  (func $fib (export "fib") (param i32) (result i32)
    (if (result i32) (i32.lt_s (local.get 0) (i32.const 2))
      (then (local.get 0))
      (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1))) (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
  (func (export "indirect") (param i32) (result i32)
    (call_indirect (type $unary) (local.get 0) (i32.const 0)))
  (func (export "leaf") (param i32) (result i32)
    (call $log (local.get 0))
    (i32.add (local.get 0) (i32.const 1)))
  (func $blocks (export "blocks") (param i32) (result i32)
    (memory.atomic.wait32 (local.get 0) (i32.const 0) (i64.const -1))))`;

/** The module, instrumented and instantiated; `stops` counts calls of the stop import, which throws. */
function instrumented(source: string) {
  const module = binaryen.parseText(source);
  module.setFeatures(binaryen.Features.All);
  const report = insertStopPolls(module);
  expect(module.validate()).toBeTruthy();
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  let stops = 0;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(module.emitBinary() as Uint8Array<ArrayBuffer>), {
    env: { memory, log: () => undefined },
    [STOP_IMPORT.module]: { [STOP_IMPORT.name]: () => { stops++; throw new Error("stopped"); } },
  });
  module.dispose();
  const exports = instance.exports as Record<string, (...a: number[]) => number>;
  return { report, memory, exports, stops: () => stops };
}

describe("insertStopPolls", () => {
  it("stops a loop reached through call_indirect and exponential recursion once the stop word is set, and names atomic waits", () => {
    const { report, memory, exports, stops } = instrumented(WAT);
    expect(report.atomicWaits).toEqual(["blocks"]);
    expect(report.loops).toBe(1);
    expect(report.entries).toBe(2); // fib (calls itself) and the call_indirect; not the leaf that only calls an import
    exports[SET_STOP_WORD_EXPORT](64);
    expect(exports.fib(10)).toBe(55); // word 0: runs to the end
    expect(exports.leaf(1)).toBe(2);
    new Int32Array(memory.buffer)[16] = 7; // the word at byte 64
    expect(() => exports.fib(40)).toThrow("stopped");
    expect(() => exports.indirect(1)).toThrow("stopped");
    expect(() => exports.spin(1)).toThrow("stopped"); // at its loop head: it calls nothing
    expect(exports.leaf(1)).toBe(2); // no poll in a function that calls nothing but imports
    expect(stops()).toBe(3);
  });

  it("with stopWordFrom, polls the stop word of the module it names (a C++ kernel, merged into the runtime later): no word or setter of its own", () => {
    const module = binaryen.parseText(`(module
      (import "env" "memory" (memory 1 1 shared))
      (func (export "spin") (loop $again (br_if $again (i32.const 1)))))`);
    module.setFeatures(binaryen.Features.All);
    expect(insertStopPolls(module, { stopWordFrom: "runtime" }).loops).toBe(1);
    expect(module.validate()).toBeTruthy();
    const wasm = new WebAssembly.Module(module.emitBinary() as Uint8Array<ArrayBuffer>);
    module.dispose();
    expect(WebAssembly.Module.exports(wasm).map((e) => e.name)).toEqual(["spin"]);
    expect(WebAssembly.Module.imports(wasm)).toContainEqual({ module: "runtime", name: STOP_WORD_GLOBAL, kind: "global" });
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const word = new WebAssembly.Global({ value: "i32", mutable: true }, 64);
    new Int32Array(memory.buffer)[16] = 1; // the word at byte 64, which the imported global points at
    const instance = new WebAssembly.Instance(wasm, {
      env: { memory }, runtime: { [STOP_WORD_GLOBAL]: word },
      [STOP_IMPORT.module]: { [STOP_IMPORT.name]: () => { throw new Error("stopped"); } },
    });
    expect(() => (instance.exports.spin as () => void)()).toThrow("stopped");
  });
});
