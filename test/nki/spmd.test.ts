// SPMD grids on the core threads: the same bytes on 1, 2 and 4 threads, the
// error of the lowest-numbered failing instance whatever the thread count,
// overlapping stores of two instances found across threads, device_print text
// in instance order, .async, private_hbm on the calling thread, and a runaway
// kernel stopped with KernelTimeoutError.
import { describe, it, expect, afterAll } from "vitest";
import path from "node:path";
import { nki, randn, setOutput, KernelAbortError, KernelTimeoutError, CrossCoreWriteError, WorkerCrashError, GpsimdError, type Tensor } from "gpsimd";
import { REPO } from "../helpers.js";
import { spmdPool } from "../../dist/nki/spmd/pool.js";

const ADD = path.join(REPO, "examples", "seeds-nki", "tensor_add.py");
afterAll(() => nki.shutdown());

const bytesOf = (t: Tensor) => Buffer.from(new Uint8Array((t.data() as Float32Array).buffer));

/** a + b computed in float32 by plain TypeScript. */
function plainAdd(a: Tensor, b: Tensor): Float32Array {
  const x = a.data() as Float32Array, y = b.data() as Float32Array;
  return x.map((v, i) => Math.fround(v + y[i]));
}

const TILE_COPY = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def tiles(x, fail_a, fail_b):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    assert i != fail_a and i != fail_b, "instance refuses"
    nl.device_print("instance", i)
    t = nl.load(x[i * 128 + nl.arange(128)[:, None], nl.arange(32)[None, :]])
    nl.store(out[i * 128 + nl.arange(128)[:, None], nl.arange(32)[None, :]], value=t * 2.0)
    return out
`;

/** Each instance goes through a private_hbm scratch tensor, which only the calling thread can allocate. */
const PRIVATE_SCRATCH = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def scratchy(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    tmp = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.private_hbm)
    nl.store(tmp, value=nl.load(x[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]]))
    nl.store(out[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]], value=nl.load(tmp))
    return out
`;

/** Instance i stores rows [96 i, 96 i + 128): consecutive instances overlap by 32 rows. */
const OVERLAPPING = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def sloppy(x):
    out = nl.ndarray((512, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    t = nl.load(x[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]])
    nl.store(out[i * 96 + nl.arange(128)[:, None], nl.arange(64)[None, :]], value=t)
    return out
`;

/** Instance i stores rows [128 i, 128 i + 96) of its 128: every instance leaves 32 rows unwritten. */
const GAPPY = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def gappy(x):
    out = nl.ndarray((512, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    t = nl.load(x[i * 128 + nl.arange(96)[:, None], nl.arange(64)[None, :]])
    nl.store(out[i * 128 + nl.arange(96)[:, None], nl.arange(64)[None, :]], value=t)
    return out
`;

/** Instances [1] and up carry acc through an affine_range loop (a race); instance [0] runs its loop once. */
const RACY_AFTER_FIRST = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def racy(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    acc = nl.load(x[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]])
    for j in nl.affine_range(1 if i == 0 else 2):
        t = nl.load(x[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]])
        acc[...] = nl.multiply(acc, t)
    nl.store(out[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]], value=acc)
    return out
`;

/** Instance 0 returns at once; the others spin until stopped. */
const SPIN_AFTER_FIRST = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def spin_rest(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n = 0
    while nl.program_id(0) > 0:
        n += 1
    return out
`;

const RUNAWAY = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def spin(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n = 0
    while True:
        n += 1
    return out
`;

describe("a grid on several threads", () => {
  it("gives the same bytes on 1, 2 and 4 threads as plain TypeScript addition, worker threads taking part", async () => {
    const a = randn([1024, 1024], { seed: 7 }), b = randn([1024, 1024], { seed: 8 });
    const want = Buffer.from(plainAdd(a, b).buffer);
    for (const threads of [1, 2, 4]) {
      const launcher = nki.load(ADD, "nki_tensor_add_kernel_", { threads }).grid(8, 2);
      // A thread still starting, or slow to wake, runs none of the instances the calling thread claimed first: call until one took part.
      let workersRan = 0;
      for (let call = 0; call < 30 && (call === 0 || (threads > 1 && workersRan === 0)); call++) {
        if (call > 0) await new Promise((resolve) => setTimeout(resolve, 20));
        const c = launcher(a, b) as Tensor;
        expect(bytesOf(c).equals(want), `threads ${threads}, call ${call}`).toBe(true);
        c.dispose();
        workersRan += launcher.lastTimings?.instances.filter((i) => i.thread >= 0).length ?? 0;
      }
      expect(workersRan > 0, `threads ${threads}: instances run on worker threads`).toBe(threads > 1);
    }
  });

  it("reports the lowest-numbered failing instance, as the sequential run does", () => {
    const x = randn([8 * 128, 32], { seed: 9 });
    for (const threads of [1, 3]) {
      const k = nki.loadSource(TILE_COPY, { file: "tiles.py", kernel: "tiles", threads });
      let error: unknown;
      const restore = setOutput({ printf: () => undefined });
      try {
        k.grid(8)(x, 5, 3);
      } catch (e) {
        error = e;
      } finally {
        restore();
      }
      expect(error, `threads ${threads}`).toBeInstanceOf(KernelAbortError);
      expect((error as GpsimdError).details.instance, `threads ${threads}`).toEqual([3]);
    }
  });

  it("prints what the instances print in instance order", () => {
    const x = randn([8 * 128, 32], { seed: 10 });
    const k = nki.loadSource(TILE_COPY, { file: "tiles.py", kernel: "tiles", threads: 4 });
    let text = "";
    const restore = setOutput({ printf: (t) => { text += t; } });
    try {
      const out = k.grid(8)(x, -1, -1) as Tensor;
      expect(Array.from(out.data() as Float32Array)).toEqual(Array.from(x.data() as Float32Array, (v) => Math.fround(v * 2)));
    } finally {
      restore();
    }
    // Each line is tagged with its instance: "[instance [3]] instance 3".
    const lines = text.trim().split("\n");
    expect(lines).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `[instance [${i}]] instance ${i}`));
  });

  it("runs a grid with .async to the same result", async () => {
    const a = randn([256, 1024], { seed: 11 }), b = randn([256, 1024], { seed: 12 });
    const add = nki.load(ADD, "nki_tensor_add_kernel_", { threads: 4 });
    const pending = add.grid(2, 2).async(a, b);
    expect(pending).toBeInstanceOf(Promise);
    const c = await pending as Tensor;
    expect(bytesOf(c).equals(Buffer.from(plainAdd(a, b).buffer))).toBe(true);
  });

  it("runs instances that allocate private_hbm on the calling thread once a worker thread could not", async () => {
    const x = randn([8 * 128, 64], { seed: 13 });
    const launcher = nki.loadSource(PRIVATE_SCRATCH, { file: "scratchy.py", kernel: "scratchy", threads: 2 }).grid(8);
    let fellBack = false;
    for (let call = 0; call < 30 && !fellBack; call++) {
      if (call > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const y = launcher(x) as Tensor;
      expect(bytesOf(y).equals(bytesOf(x)), `call ${call}`).toBe(true);
      fellBack = launcher.lastTimings?.threads === 1;
    }
    // Once a worker tried, later calls stay on the calling thread (they run as one launch).
    if (fellBack) {
      expect(bytesOf(launcher(x) as Tensor).equals(bytesOf(x))).toBe(true);
      expect(launcher.lastTimings?.instances).toEqual([]);
    }
  });

  it("reports instances that store to the same output elements the same way on 1, 2 and 4 threads", () => {
    const x = randn([4 * 128, 64], { seed: 14 });
    const errors = [1, 2, 4].map((threads) => {
      try {
        nki.loadSource(OVERLAPPING, { file: "sloppy.py", kernel: "sloppy", threads }).grid(4)(x);
      } catch (e) {
        return e as GpsimdError;
      }
      throw new Error(`threads ${threads}: no error`);
    });
    for (const e of errors) {
      expect(e).toBeInstanceOf(CrossCoreWriteError);
      expect(e.code).toBe("E_NKI_INSTANCE_OVERLAP");
      expect(e.details.instances).toEqual([[0], [1]]);
      expect(e.details.range).toEqual({ lo: [96, 0], hi: [128, 64], flat: false });
      expect(e.message).toBe(errors[0].message);
    }
    expect(errors[0].message).toMatch(/^sloppy: SPMD instances \[0\] and \[1\] both write \[96:128, 0:64\] of the output HBM tensor 'out'/);
  });

  it("reports output elements no instance stored the same way on 1 and 2 threads, counting every instance's stores", () => {
    const x = randn([4 * 128, 64], { seed: 17 });
    const errors = [1, 2].map((threads) => {
      try {
        nki.loadSource(GAPPY, { file: "gappy.py", kernel: "gappy", threads }).grid(4)(x);
      } catch (e) {
        return e as GpsimdError;
      }
      throw new Error(`threads ${threads}: no error`);
    });
    for (const e of errors) {
      expect(e.code).toBe("E_NKI_UNWRITTEN");
      // 32 rows of 64 left by each of the 4 instances: the stores of the instances on the other thread count.
      expect(e.details).toMatchObject({ kernel: "gappy", count: 4 * 32 * 64, first: [96, 0], firstRunEnd: [127, 63] });
      expect(e.message).toBe(errors[0].message);
    }
  });

  it("checks: false (nki.load, loadSource or .with) turns the NKI checks off on every thread the call runs on", () => {
    const x = randn([4 * 128, 64], { seed: 18 });
    const xs = x.data() as Float32Array;
    const errors = [1, 2].map((threads) => {
      try {
        nki.loadSource(RACY_AFTER_FIRST, { file: "racy.py", kernel: "racy", threads }).grid(4)(x);
      } catch (e) {
        return e as GpsimdError;
      }
      throw new Error(`threads ${threads}: no error`);
    });
    for (const e of errors) {
      expect(e.code).toBe("E_NKI_RACE");
      expect(e.details.instance).toEqual([1]);
      expect(e.message).toBe(errors[0].message);
    }
    for (const threads of [1, 2, 4]) {
      const loaded = nki.loadSource(RACY_AFTER_FIRST, { file: "racy.py", kernel: "racy", threads, checks: false });
      const checked = nki.loadSource(RACY_AFTER_FIRST, { file: "racy.py", kernel: "racy", threads });
      for (const k of [loaded, checked.with({ checks: false })]) {
        const got = (k.grid(4)(x) as Tensor).data() as Float32Array;
        // Rows of instance 0: x * x; of the others: x * x * x (the loop ran twice).
        const want = xs.map((v, i) => (i < 128 * 64 ? Math.fround(v * v) : Math.fround(Math.fround(v * v) * v)));
        expect(Buffer.from(got.buffer).equals(Buffer.from(want.buffer)), `threads ${threads}`).toBe(true);
      }
      if (threads > 1) {
        // Racy instances ran on the SPMD threads too (a call is retried until one did), without an error.
        let onWorker = false;
        for (let tries = 0; tries < 20 && !onWorker; tries++) {
          const g = loaded.grid(16);
          g(randn([16 * 128, 64], { seed: 19 }));
          onWorker = g.lastTimings!.instances.some((i) => i.thread >= 0 && i.index > 0);
        }
        expect(onWorker, `threads ${threads}`).toBe(true);
      }
      // .with keeps the other options and can turn the checks back on.
      expect(() => loaded.with({ checks: true }).grid(4)(x)).toThrow(/iterations j = 0 and j = 1 of the nl.affine_range loop/);
    }
    expect(() => nki.loadSource(RACY_AFTER_FIRST, { kernel: "racy", checks: "no" as unknown as boolean })).toThrow(/checks must be true or false/);
  });

  it("fails the call with WorkerCrashError when a thread running an instance dies, and runs the next call on new threads", async () => {
    const x = randn([128, 8]);
    const k = nki.loadSource(SPIN_AFTER_FIRST, { file: "spin_rest.py", kernel: "spin_rest", threads: 2, timeout_ms: 20_000 });
    const t0 = Date.now();
    const pending = k.grid(2).async(x);
    // Wait until the thread is inside instance [1], then stop it from outside, as a crash would.
    const pool = spmdPool();
    for (let waited = 0; !pool.inJobForTest(0) && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await pool.threadForTest(0).terminate();
    await expect(pending).rejects.toThrow(WorkerCrashError);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const add = nki.load(ADD, "nki_tensor_add_kernel_", { threads: 2 });
    const a = randn([256, 1024], { seed: 15 }), b = randn([256, 1024], { seed: 16 });
    expect(bytesOf(add.grid(2, 2)(a, b) as Tensor).equals(Buffer.from(plainAdd(a, b).buffer))).toBe(true);
  });

  it("stops a runaway kernel at its timeout with KernelTimeoutError, on one thread and on several", () => {
    const x = randn([128, 8]);
    for (const threads of [1, 2]) {
      const k = nki.loadSource(RUNAWAY, { file: "spin.py", kernel: "spin", threads, timeout_ms: 300 });
      const t0 = Date.now();
      expect(() => k.grid(2)(x), `threads ${threads}`).toThrow(KernelTimeoutError);
      expect(Date.now() - t0).toBeLessThan(5000);
    }
  });
});
