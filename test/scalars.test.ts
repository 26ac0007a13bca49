// int64_t scalars reach shape functions as numbers whichever way the operator is called (a number or a bigint
// through ops.<lib>.<op>, and through profile), and a gpsimd error inside a shape function names the operator.
import { describe, it, expect, beforeAll } from "vitest";
import { ops, randn, profile, TensorShapeError, type Library } from "gpsimd";
import { loadFixture } from "./helpers.js";

let lib: Library;
beforeAll(() => {
  lib = loadFixture({ group: "tools", name: "tools_fixtures", compute: ["kernels.ts"], shape: ["register.ts"] });
}, 180_000);

describe("scalars as numbers", () => {
  it("ops.<lib>.<op> with a number or a bigint: the shape function gets a number", () => {
    const x = randn([4]);
    expect(Array.from(ops.tools_fixtures.bins(x, 5).data() as Int32Array)).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(ops.tools_fixtures.bins(x, 3n).data() as Int32Array)).toEqual([0, 1, 2]);
  });

  it("profile with a bigint scalar", () => {
    const r = profile(lib, "bins", [randn([4]), 6n], { runs: 1, traceRuns: 1, warmup: 0 });
    expect(r.op).toBe("tools_fixtures::bins");
  });

  it("a gpsimd error inside a shape function keeps its class and names the operator", () => {
    let caught: unknown;
    try { ops.tools_fixtures.bins(randn([4]), -1); } catch (e) { caught = e; }
    expect(caught).toBeInstanceOf(TensorShapeError);
    expect((caught as TensorShapeError).op).toBe("tools_fixtures::bins");
    expect((caught as Error).message).toBe("shape function of tools_fixtures::bins failed: tensor: size -1 of dimension 0 in [-1] is not a non-negative integer");
  });
});
