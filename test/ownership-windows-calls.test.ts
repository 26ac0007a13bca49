// Which check windows a call drops (build/ownership-pass.ts): a window in the TCM arena must be dropped after every
// call (the callee may free or hand out TCM), a window outside it must not (a loop that calls the kernel library per
// element, as element-wise accessors do, would take the slow path at every access). Counted on a hand-made module
// whose runtime is JavaScript: the slow path's calls per loop of n loads, each followed by a call.
import { describe, it, expect } from "vitest";
import binaryen from "binaryen";
import { instrumentOwnership } from "../build/ownership-pass.js";
import { OWN_GLOBALS, OWN_FUNCTIONS } from "../build/ownership-names.js";

const RUNTIME = "gpsimd_runtime";
const TCM_LO = 4096, TCM_SPAN = 8192, MEMORY_BYTES = 65536;

/** kernel(p, n): for (i = 0; i < n; i++) { sum += load<i32>(p + 4 i); helper(); } return sum */
function kernelModule(): Uint8Array {
  const m = new binaryen.Module();
  const { i32, none } = binaryen;
  m.setFeatures(binaryen.Features.MutableGlobals);
  m.setMemory(1, 1, null);
  m.addFunctionImport("helper", "env", "helper", none, none);
  const [p, n, i, sum] = [0, 1, 2, 3];
  const get = (l: number) => m.local.get(l, i32);
  m.addFunction("kernel", binaryen.createType([i32, i32]), i32, [i32, i32], m.block(null, [
    m.loop("next", m.if(m.i32.lt_u(get(i), get(n)), m.block(null, [
      m.local.set(sum, m.i32.add(get(sum), m.i32.load(0, 4, m.i32.add(get(p), m.i32.shl(get(i), m.i32.const(2)))))),
      m.call("helper", [], none),
      m.local.set(i, m.i32.add(get(i), m.i32.const(1))),
      m.br("next"),
    ]))),
    get(sum),
  ], i32));
  m.addFunctionExport("kernel", "kernel");
  instrumentOwnership(m, { isRuntime: () => false, checkStores: true, importFrom: RUNTIME });
  if (!m.validate()) throw new Error("the instrumented module does not validate");
  const bytes = m.emitBinary();
  m.dispose();
  return bytes;
}

/** Runs kernel(p, n) against a runtime whose slow path counts its calls and returns the window a real one would. */
async function slowPathCalls(p: number, n: number): Promise<number> {
  const globals = Object.fromEntries(Object.values(OWN_GLOBALS).map((name) => [name, new WebAssembly.Global({ value: "i32", mutable: true }, 0)]));
  globals[OWN_GLOBALS.tcmLo].value = TCM_LO;
  globals[OWN_GLOBALS.tcmSpan].value = TCM_SPAN;
  let calls = 0;
  const setWindow = (lo: number, len: number, mark: number) => {
    globals[OWN_GLOBALS.winLo].value = lo;
    globals[OWN_GLOBALS.winLen].value = len;
    globals[OWN_GLOBALS.winMark].value = mark;
  };
  const runtime = {
    ...globals,
    [OWN_FUNCTIONS.window]: (addr: number) => {
      calls++;
      // Every TCM byte counts as written here: the arena is one window; outside it, memory below or above the arena.
      if (addr >= TCM_LO && addr < TCM_LO + TCM_SPAN) setWindow(TCM_LO, TCM_SPAN, 1);
      else if (addr < TCM_LO) setWindow(0, TCM_LO, 0);
      else setWindow(TCM_LO + TCM_SPAN, MEMORY_BYTES - TCM_LO - TCM_SPAN, 0);
    },
    [OWN_FUNCTIONS.store]: () => {},
    [OWN_FUNCTIONS.copy]: () => {},
    [OWN_FUNCTIONS.mark]: () => {},
  };
  const { instance } = await WebAssembly.instantiate(kernelModule() as Uint8Array<ArrayBuffer>, { env: { helper: () => {} }, [RUNTIME]: runtime });
  (instance.exports.kernel as (p: number, n: number) => number)(p, n);
  return calls;
}

describe("check windows across calls", () => {
  it("keeps a window outside the TCM arena: one slow-path call for a loop of 100 loads, each followed by a call", async () => {
    expect(await slowPathCalls(TCM_LO + TCM_SPAN + 64, 100)).toBe(1);
    expect(await slowPathCalls(64, 100)).toBe(1);
  });

  it("drops a window in the TCM arena after every call: a slow-path call per load", async () => {
    expect(await slowPathCalls(TCM_LO, 100)).toBe(100);
  });
});
