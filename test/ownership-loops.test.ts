// Counted loops whose accesses' ranges are tested once, before the loop (build/ownership-loops.ts), on hand-made
// modules whose runtime is JavaScript: what the slow path is asked (one query per group, each access's own check
// only when a query is refused), what a straight loop's stores mark (their whole range, once) and what a loop with a
// conditional store marks (each store's own bytes), and that an access a refused range holds is checked at its own
// address. The same loops on real kernels: test/errors/tcm-windows.test.ts, test/errors/tcm-loops.test.ts.
import { describe, it, expect } from "vitest";
import binaryen from "binaryen";
import { instrumentOwnership } from "../build/ownership-pass.js";
import { OWN_GLOBALS, OWN_FUNCTIONS } from "../build/ownership-names.js";
import { TCM_SHADOW_DELTA } from "../host/device/layout.js";

const RUNTIME = "gpsimd_runtime";
const TCM_LO = 4096, TCM_SPAN = 8192, PAGES = 2; // the written-map of TCM byte p at p + TCM_SHADOW_DELTA (32 KB on)

type Body = (m: binaryen.Module, get: (l: number) => number) => number[];

/**
 * kernel(p, n) with locals i (2) and t (3): for (i = 0; i < n; i += 1) { ...body }. Returns the instrumented module's
 * bytes; the ownership pass must find the loop counted (or not: conditional stores) and version it.
 */
function kernelModule(body: Body): Uint8Array {
  const m = new binaryen.Module();
  const { i32 } = binaryen;
  m.setFeatures(binaryen.Features.MutableGlobals | binaryen.Features.SIMD128);
  m.setMemory(PAGES, PAGES, "memory");
  const [n, i] = [1, 2];
  const get = (l: number) => m.local.get(l, i32);
  m.addFunction("kernel", binaryen.createType([i32, i32]), i32, [i32, i32], m.block(null, [
    m.local.set(3, m.i32.const(0)),
    m.loop("next", m.if(m.i32.lt_s(get(i), get(n)), m.block(null, [
      ...body(m, get),
      m.local.set(i, m.i32.add(get(i), m.i32.const(1))),
      m.br("next"),
    ]))),
    get(3),
  ], i32));
  m.addFunctionExport("kernel", "kernel");
  instrumentOwnership(m, { isRuntime: () => false, checkStores: true, importFrom: RUNTIME });
  if (!m.validate()) throw new Error("the instrumented module does not validate");
  const bytes = m.emitBinary();
  m.dispose();
  return bytes;
}

/** p + (i << 2), as AssemblyScript writes p + <usize>(i * 4) for an i32 counter. */
const element = (m: binaryen.Module, get: (l: number) => number) => m.i32.add(get(0), m.i32.shl(get(2), m.i32.const(2)));
/** t += load<i32>(p + 4 i) */
const sumLoads: Body = (m, get) => [m.local.set(3, m.i32.add(get(3), m.i32.load(0, 4, element(m, get))))];
/** store<i32>(p + 4 i, i) */
const storeIndex: Body = (m, get) => [m.i32.store(0, 4, element(m, get), get(2))];
/** if (i & 1) store<i32>(p + 4 i, i): odd elements only */
const storeOdd: Body = (m, get) => [m.if(m.i32.and(get(2), m.i32.const(1)), m.i32.store(0, 4, element(m, get), get(2)))];

interface Call { fn: "window" | "store"; addr: number; bytes: number; how?: number }

/**
 * Runs kernel(p, n) against a runtime whose slow path records its calls: TCM bytes [TCM_LO, fineEnd) are fine (a
 * query of a range reaching past them is refused; a single access past them throws, naming its address, as the real
 * slow path fails at the access).
 */
async function run(body: Body, p: number, n: number, fineEnd = TCM_LO + TCM_SPAN): Promise<{ calls: Call[]; memory: Uint8Array; error?: string }> {
  const globals = Object.fromEntries(Object.values(OWN_GLOBALS).map((name) => [name, new WebAssembly.Global({ value: "i32", mutable: true }, 0)]));
  globals[OWN_GLOBALS.tcmLo].value = TCM_LO;
  globals[OWN_GLOBALS.tcmSpan].value = TCM_SPAN;
  const calls: Call[] = [];
  const setWindow = (lo: number, len: number, mark: number) => {
    globals[OWN_GLOBALS.winLo].value = lo;
    globals[OWN_GLOBALS.winLen].value = len;
    globals[OWN_GLOBALS.winMark].value = mark;
  };
  const runtime = {
    ...globals,
    [OWN_FUNCTIONS.window]: (addr: number, bytes: number, how: number) => {
      calls.push({ fn: "window", addr, bytes, how });
      if (addr >= TCM_LO && addr + bytes <= fineEnd) return setWindow(TCM_LO, fineEnd - TCM_LO, 1);
      if (how & 2) return setWindow(0, 0, 0);
      throw new Error(`access [${addr}, ${addr + bytes}) refused`);
    },
    [OWN_FUNCTIONS.store]: (addr: number, bytes: number) => { calls.push({ fn: "store", addr, bytes }); },
    [OWN_FUNCTIONS.copy]: () => {},
    [OWN_FUNCTIONS.mark]: () => {},
  };
  const { instance } = await WebAssembly.instantiate(kernelModule(body) as Uint8Array<ArrayBuffer>, { [RUNTIME]: runtime });
  const memory = new Uint8Array((instance.exports as { memory?: WebAssembly.Memory }).memory?.buffer ?? new ArrayBuffer(0));
  try {
    (instance.exports.kernel as (p: number, n: number) => number)(p, n);
  } catch (e) {
    return { calls, memory, error: (e as Error).message };
  }
  return { calls, memory };
}

describe("counted loops: each group's range tested once, before the loop", () => {
  it("a loop of 100 loads asks one query over all 400 bytes, and nothing per iteration", async () => {
    const { calls } = await run(sumLoads, TCM_LO, 100);
    expect(calls).toEqual([{ fn: "window", addr: TCM_LO, bytes: 400, how: 2 }]);
  });

  it("a loop that runs no iteration asks nothing", async () => {
    expect((await run(sumLoads, TCM_LO, 0)).calls).toEqual([]);
  });

  it("a range reaching past what is fine is refused, and the loop checks each access at its own address: the first bad one fails", async () => {
    const { calls, error } = await run(sumLoads, TCM_LO, 100, TCM_LO + 40 * 4);
    expect(calls[0]).toEqual({ fn: "window", addr: TCM_LO, bytes: 400, how: 2 });
    // The checked copy: the first access finds the window [TCM_LO, TCM_LO + 160); access 40 is past it and fails.
    expect(calls.slice(1)).toEqual([{ fn: "window", addr: TCM_LO, bytes: 4, how: 0 }, { fn: "window", addr: TCM_LO + 160, bytes: 4, how: 0 }]);
    expect(error).toBe(`access [${TCM_LO + 160}, ${TCM_LO + 164}) refused`);
  });

  it("a straight loop of stores: one store query, then its whole range marked once (the runtime's marking), no per-store mark", async () => {
    const { calls, memory } = await run(storeIndex, TCM_LO + 64, 10);
    expect(calls).toEqual([{ fn: "window", addr: TCM_LO + 64, bytes: 40, how: 3 }, { fn: "store", addr: TCM_LO + 64, bytes: 40 }]);
    expect(Array.from(memory.subarray(TCM_LO + 64 + TCM_SHADOW_DELTA, TCM_LO + 64 + 40 + TCM_SHADOW_DELTA))).toEqual(new Array(40).fill(0));
    expect(new Int32Array(memory.buffer, TCM_LO + 64, 10)).toEqual(Int32Array.from({ length: 10 }, (_, i) => i));
  });

  it("a loop whose store is conditional marks each store's own bytes, not the range: the even elements stay unwritten", async () => {
    const { calls, memory } = await run(storeOdd, TCM_LO, 8);
    expect(calls).toEqual([{ fn: "window", addr: TCM_LO, bytes: 32, how: 3 }]);
    const map = Array.from(memory.subarray(TCM_LO + TCM_SHADOW_DELTA, TCM_LO + 32 + TCM_SHADOW_DELTA));
    expect(map).toEqual(Array.from({ length: 32 }, (_, b) => ((b >> 2) & 1 ? 1 : 0)));
  });

  it("a store range refused (past a block) goes back to each store's own check: the first store past it fails there", async () => {
    const { calls, error } = await run(storeIndex, TCM_LO, 10, TCM_LO + 24);
    expect(calls[0]).toEqual({ fn: "window", addr: TCM_LO, bytes: 40, how: 3 });
    expect(calls.some((c) => c.fn === "store")).toBe(false);
    expect(error).toBe(`access [${TCM_LO + 24}, ${TCM_LO + 28}) refused`);
  });
});
