// Shape functions know the launch's core count (get_cpu_count(), in TypeScript and C++ shape functions alike):
// a per-core-partials output [cores, 16] has 4 rows under cores: 4 and 8 under the default, and agrees with
// the kernel, which writes one row per core. Outside a shape function the host's get_cpu_count() refuses.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { custom_op, tensor, get_cpu_count, GpsimdError, type Library } from "gpsimd";
import path from "node:path";
import { FIXTURES_DIR, TEST_BUILD_DIR } from "./helpers.js";

const DIR = path.join(FIXTURES_DIR, "verdict", "partials");
const libs: Library[] = [];
const load = (name: string, compute: string, shapes: string[], cores?: number): Library => {
  const lib = custom_op.load({ name, compute_srcs: [path.join(DIR, compute)], shape_srcs: shapes.map((s) => path.join(DIR, s)), multicore: true, build_directory: TEST_BUILD_DIR, ...(cores ? { cores } : {}) });
  libs.push(lib);
  return lib;
};

/** Values 0..15 spread so every core's part holds several bins; the reference counts each core's part. */
const N = 1000;
const values = Float32Array.from({ length: N }, (_, i) => (i * 7) % 16);
function expectedPartials(cores: number): number[][] {
  const part = Math.ceil(N / cores);
  return Array.from({ length: cores }, (_, c) => {
    const row = new Array<number>(16).fill(0);
    for (let i = c * part; i < Math.min(N, (c + 1) * part); i++) row[values[i]]++;
    return row;
  });
}

let as4: Library, cpp4: Library;
beforeAll(() => {
  as4 = load("partials_as4", "partials.ts", ["register.ts"], 4);
  cpp4 = load("partials_cpp4", "partials.cpp", ["shape.cpp"], 4);
}, 180_000);
afterAll(() => { for (const l of libs) l.unload(); });

describe("get_cpu_count() in shape functions", () => {
  it.each([["TypeScript", () => as4], ["C++", () => cpp4]])("%s: [cores, 16] under cores: 4 agrees with the kernel's rows", (_lang, lib) => {
    const out = lib().call("partial_histogram", [tensor(values, [N], "float32")]) as ReturnType<typeof tensor>;
    expect(out.sizes()).toEqual([4, 16]);
    expect(out.tolist()).toEqual(expectedPartials(4));
    out.dispose();
  });

  it("the default launch (8 cores) gets 8 rows", () => {
    as4.unload(); // the same NEURON_LIBRARY, loaded again with the default core count
    libs.splice(libs.indexOf(as4), 1);
    const as8 = load("partials_as8", "partials.ts", ["register.ts"]);
    const out = as8.call("partial_histogram", [tensor(values, [N], "float32")]) as ReturnType<typeof tensor>;
    expect(out.sizes()).toEqual([8, 16]);
    expect(out.tolist()).toEqual(expectedPartials(8));
    out.dispose();
  });

  it("outside a shape function it refuses", () => {
    expect(() => get_cpu_count()).toThrow(GpsimdError);
    expect(() => get_cpu_count()).toThrow(/only inside a shape function/);
  });
});
