// The output tensor is not initialised (as on the device): with checks on, a
// single-core kernel that leaves part of it unwritten fails, naming the ranges
// (and the write before the gap: test/errors/unwritten-output-line.test.ts).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { custom_op, ops, randn, tensor, kInt, shutdown, UnwrittenOutputError, type Library } from "gpsimd";
import { Rng } from "gpsimd";

const here = path.dirname(fileURLToPath(import.meta.url));
const KERNELS = path.join(here, "fixtures", "output", "kernels.ts");
let lib: Library;

beforeAll(() => {
  const dir = path.join(here, "fixtures", "output");
  lib = custom_op.load({
    name: "output_fixtures", compute_srcs: [KERNELS], shape_srcs: [path.join(dir, "register.ts")],
    build_directory: path.join(here, "..", "build", "out"),
  });
});
afterAll(async () => { lib.unload(); await shutdown(); });

describe("output coverage (single core)", () => {
  it("passes when every element is written", () => {
    const x = randn([3000]);
    expect(ops.output_fixtures.copy_prefix(x, 3000).data()).toEqual(x.data());
  });

  it("names the elements a TCM kernel never wrote", () => {
    const e = catchError(() => ops.output_fixtures.copy_prefix(randn([3000]), 2500));
    expect(e).toBeInstanceOf(UnwrittenOutputError);
    const [what, nearest, ...more] = e.message.split("\n");
    expect(what).toBe("output_fixtures::copy_prefix: 500 output elements were never written: [2500, 3000) of float32[3000]; the output is not initialised (as on the device): the kernel must write every element of get_dst_tensor()");
    // The copies are 1024 elements each: the third, [2048, 2500), ends where the gap starts (copy_prefix's tcm_to_tensor).
    const line = readFileSync(KERNELS, "utf8").split("\n").findIndex((l) => l.includes("out.tcm_accessor().tcm_to_tensor<f32>(buf, i, m)")) + 1;
    expect(line).toBeGreaterThan(0);
    const [text, column] = /^(.*):(\d+)\)$/.exec(nearest)!.slice(1);
    expect(text).toBe(`the last write before [2500, 3000): the kernel wrote [2048, 2500) at copy_prefix (${KERNELS}:${line}`);
    expect(Number(column)).toBeGreaterThan(0);
    expect(more).toEqual([]);
  });

  it("names the gaps an element-wise kernel left", () => {
    const e = catchError(() => ops.output_fixtures.every_other(randn([6])));
    expect(e).toBeInstanceOf(UnwrittenOutputError);
    expect(e.message).toContain("3 output elements were never written: [1, 2), [3, 4), [5, 6)");
  });

  it("does not check with checks off", () => {
    lib.configure({ checks: false });
    try {
      expect(() => ops.output_fixtures.copy_prefix(randn([3000]), 2500)).not.toThrow();
    } finally {
      lib.configure({ checks: true });
    }
  });

  it("copies a tensor the kernel returned into the output, also when called asynchronously", async () => {
    const x = randn([5, 7]);
    const expected = Float32Array.from(x.data() as Float32Array, (v) => v + 1);
    expect(ops.output_fixtures.plus_one(x).data()).toEqual(expected);
    expect((await ops.output_fixtures.plus_one.async(x)).data()).toEqual(expected);
  });

  it("checks asynchronous calls the same way", async () => {
    const e = await ops.output_fixtures.copy_prefix.async(randn([3000]), 2500).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnwrittenOutputError);
  });
});

describe("output coverage of element-wise writes in any order", () => {
  /** A random subset of [0, n) in random order, and the gaps it leaves (the independent reference). */
  function scattered(rng: Rng, n: number, keep: number): { idx: Int32Array; gaps: [number, number][]; unwritten: number } {
    const order = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) { const j = rng.int(0, i); [order[i], order[j]] = [order[j], order[i]]; }
    const written = new Set(order.filter(() => rng.uniform() < keep));
    const idx = Int32Array.from(order.filter((i) => written.has(i)));
    const gaps: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      if (written.has(i)) continue;
      if (gaps.length && gaps[gaps.length - 1][1] === i) gaps[gaps.length - 1][1] = i + 1;
      else gaps.push([i, i + 1]);
    }
    return { idx, gaps, unwritten: n - written.size };
  }

  function check(call: (x: ReturnType<typeof randn>, idx: ReturnType<typeof tensor>) => unknown, n: number, keep: number, seed: number): void {
    const rng = new Rng(seed);
    const { idx, gaps, unwritten } = scattered(rng, n, keep);
    const x = randn([n], { seed });
    const e = catchError(() => { const out = call(x, tensor(idx, [idx.length], kInt)) as { data(): Float32Array }; if (unwritten === 0) { expect(out.data()).toEqual(x.data()); throw new Error("ok"); } });
    if (unwritten === 0) { expect(e.message).toBe("ok"); return; }
    expect(e).toBeInstanceOf(UnwrittenOutputError);
    const details = (e as UnwrittenOutputError).details as { gaps: [number, number][]; unwritten: number };
    expect(details.unwritten).toBe(unwritten);
    expect(details.gaps).toEqual(gaps.slice(0, details.gaps.length));
    expect(details.gaps.length).toBe(Math.min(gaps.length, 8));
  }

  it("finds exactly the unwritten elements, whatever the write order (sizes across word boundaries)", () => {
    const sizes = [1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 4097];
    sizes.forEach((n, k) => {
      for (const keep of [1, 0.999, 0.9, 0.5]) check((x, idx) => ops.output_fixtures.scatter(x, idx), n, keep, 1000 * k + Math.round(keep * 1000));
    });
  });

  it("is exact when the kernel heap is too full for a coverage bitmap", () => {
    for (const keep of [1, 0.99]) check((x, idx) => ops.output_fixtures.scatter_full_heap(x, idx, 16 * 1024), 60_000, keep, 7 + Math.round(keep * 100));
  });
});

function catchError(fn: () => unknown): Error {
  try { fn(); } catch (e) { return e as Error; }
  throw new Error("expected an error");
}
