// Lifetimes under asynchronous calls: unload() while calls of the library are
// queued or running lets them finish with its static data intact (freed when
// the last ends); dispose() of an input while its call runs frees the memory
// only when the call ends, so a new allocation cannot take it over.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { custom_op, randn, full, hbm, shutdown, RegistryError, ArgumentError, DisposedTensorError, type Library, type Tensor } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, values, expectGpsimdError } from "../helpers.js";
import { GROUP } from "./memory-world.js";

const TABLE = [1.5, -2.0, 3.25, 0.5, -1.0, 4.0, 0.125, 8.0];
const scaled = (t: Tensor) => values(t).map((v, i) => Math.fround(v * TABLE[i % 8]));

function loadLifetimes(): Library {
  return custom_op.load({
    name: "memory_lifetimes", compute_srcs: [fixturePath(GROUP, "static-table.ts")],
    shape_srcs: [fixturePath(GROUP, "register-lifetimes.ts"), fixturePath(GROUP, "shape.ts")], build_directory: TEST_BUILD_DIR,
  });
}

/** Allocations that cover the freed memory and scribble on it, as a program that goes on working would. */
function scribble(bytes: number): Tensor[] {
  return Array.from({ length: 8 }, () => full([Math.max(16, bytes / 4)], -7777, "float32"));
}

// The first calls make the core threads' private regions; later ones reuse them.
beforeAll(async () => {
  const lib = loadLifetimes();
  const x = randn([8], { seed: 1 });
  (await lib.callAsync("scale_by_table", [x])).dispose();
  lib.call("scale_by_table", [x]).dispose();
  x.dispose();
  lib.unload();
});
afterAll(async () => { await shutdown(); });

describe("unload() while calls are queued or in flight", () => {
  it("every call already started finishes with the right result; new calls fail; memory is freed after the last", async () => {
    const baseline = hbm().bytesInUse;
    const lib = loadLifetimes();
    const inputs = Array.from({ length: 6 }, (_, i) => randn([4096], { seed: i }));
    const calls = inputs.map((x) => lib.callAsync("scale_by_table", [x]));
    lib.unload();
    expectGpsimdError(() => lib.call("scale_by_table", [inputs[0]]), RegistryError, "E_UNLOADED", ["memory_lifetimes"]);
    const junk = scribble(lib.placed.staticBytes);
    const outs = await Promise.all(calls);
    outs.forEach((out, i) => expect(values(out), `call ${i}`).toEqual(scaled(inputs[i])));
    for (const t of [...outs, ...inputs, ...junk]) t.dispose();
    expect(hbm().bytesInUse).toBe(baseline);
  });

  it("a library unloaded with nothing in flight frees its memory at once, and its name can be loaded again", async () => {
    const baseline = hbm().bytesInUse;
    const lib = loadLifetimes();
    lib.unload();
    expect(hbm().bytesInUse).toBe(baseline);
    const again = loadLifetimes();
    const x = randn([100], { seed: 9 });
    const out = await again.callAsync("scale_by_table", [x]);
    expect(values(out)).toEqual(scaled(x));
    again.unload();
    for (const t of [x, out]) t.dispose();
    expect(hbm().bytesInUse).toBe(baseline);
  });
});

describe("dispose() of an input while its asynchronous call runs", () => {
  it("is deferred until the call ends: the call sees the input's data even when new allocations follow", async () => {
    const lib = loadLifetimes();
    const baseline = hbm().bytesInUse;
    const inputs = Array.from({ length: 4 }, (_, i) => randn([256, 256], { seed: 20 + i }));
    const want = inputs.map(scaled);
    const calls = inputs.map((x) => lib.callAsync("scale_by_table", [x]));
    for (const x of inputs) x.dispose();
    expect(inputs[0].disposed).toBe(true);
    expectGpsimdError(() => inputs[0].data(), DisposedTensorError, "E_DISPOSED");
    expectGpsimdError(() => lib.call("scale_by_table", [inputs[0]]), ArgumentError, "E_ARG_DISPOSED");
    const junk = scribble(inputs[0].nbytes());
    const outs = await Promise.all(calls);
    outs.forEach((out, i) => expect(values(out), `call ${i}`).toEqual(want[i]));
    for (const t of [...outs, ...junk]) t.dispose();
    expect(hbm().bytesInUse).toBe(baseline);
    lib.unload();
  });
});
