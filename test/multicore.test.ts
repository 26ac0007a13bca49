// Multicore libraries: identical results on any number of threads, the
// multicore rules as errors, printf from core 0 only, faults on one core,
// runaway kernels stopped by the timeout, dead threads replaced.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import path from "node:path";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  custom_op, ops, randn, shutdown, setOutput, type Library, type LoadTimeOptions,
  MulticoreRuleError, KernelTrapError, KernelTimeoutError, ReadOnlyTensorError, WorkerCrashError,
} from "gpsimd";
import { corePool } from "../dist/host/cores/pool.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, "fixtures", "multicore");

function load(options: LoadTimeOptions = {}): Library {
  return custom_op.load({
    name: "mc_fixtures", compute_srcs: [path.join(fixtures, "kernels.ts")], shape_srcs: [path.join(fixtures, "register.ts")],
    build_directory: path.join(here, "..", "build", "out"), multicore: true, ...options,
  });
}

/** What core_ids writes: in part k of n elements over c cores, element i is k * 1000 + c + i / 2. */
function expectedCoreIds(n: number, cores: number): Float32Array {
  const out = new Float32Array(n);
  const base = Math.floor(n / cores);
  for (let k = 0; k < cores; k++) {
    const end = k === cores - 1 ? n : base * (k + 1);
    for (let i = base * k; i < end; i++) out[i] = Math.fround(Math.fround(k * 1000 + cores) + Math.fround(i * 0.5));
  }
  return out;
}

afterAll(async () => { await shutdown(); });

describe("cores and threads", () => {
  it("gives the same result on 1, 2 and 8 threads, for sizes below 8, not divisible by 8, and large", () => {
    const results: Float32Array[][] = [];
    for (const threads of [1, 2, 8]) {
      const lib = load({ threads });
      try {
        results.push([[1], [5], [8], [999, 1001]].map((sizes) => ops.mc_fixtures.core_ids(randn(sizes)).data() as Float32Array));
      } finally {
        lib.unload();
      }
    }
    const sizes = [1, 5, 8, 999 * 1001];
    results.forEach((r) => r.forEach((data, i) => expect(data).toEqual(expectedCoreIds(sizes[i], 8))));
  });

  it("starts its worker threads when the library loads, not at its first call", async () => {
    await shutdown();
    expect(corePool().threadCount).toBe(0);
    const lib = load({ threads: 3 });
    try {
      expect(corePool().threadCount).toBe(2); // the calling thread runs cores beside threads - 1 workers
      expect(ops.mc_fixtures.core_ids(randn([9])).data()).toEqual(expectedCoreIds(9, 8));
    } finally {
      lib.unload();
    }
  });

  it("runs any number of logical cores (cores option)", () => {
    const lib = load({ cores: 3 });
    try {
      expect(ops.mc_fixtures.core_ids(randn([10])).data()).toEqual(expectedCoreIds(10, 3));
    } finally {
      lib.unload();
    }
  });
});

describe("multicore rules", () => {
  let lib: Library;
  beforeAll(() => { lib = load(); });
  afterAll(() => lib.unload());

  it("rejects element-wise accessors, naming the rule and the core", () => {
    const e = catchError(() => ops.mc_fixtures.uses_accessor(randn([16])));
    expect(e).toBeInstanceOf(MulticoreRuleError);
    expect(e.message).toMatch(/^mc_fixtures::uses_accessor \(cores 0-7, alike; the details are core 0's\): element-wise accessor on argument 0 't_in' \(float32\[16\]\) in a multicore kernel; only TCM accessors are allowed/);
    // the kernel function (Binaryen inlines the opening into its first statement, where none of its own lines map)
    expect(e.message.split("\n")[0]).toMatch(/ at uses_accessor( \(.*\))?$/);
  });

  it("rejects stream accessors", () => {
    const e = catchError(() => ops.mc_fixtures.uses_stream(randn([16])));
    expect(e).toBeInstanceOf(MulticoreRuleError);
    expect(e.message).toContain("read stream accessor on argument 0 't_in'");
  });

  it("rejects writes into an input, naming the core", () => {
    const x = randn([16]);
    const before = x.data();
    const e = catchError(() => ops.mc_fixtures.writes_input(x));
    expect(e).toBeInstanceOf(ReadOnlyTensorError);
    expect(e.message).toMatch(/\(core 2\).*argument 0 't_in'.*read-only/);
    // the kernel statement, found on a worker thread's stack
    const kernels = path.join(fixtures, "kernels.ts");
    const line = readFileSync(kernels, "utf8").split("\n").findIndex((l) => l.includes("t_in.tcm_accessor().tcm_to_tensor<f32>(buf, 0, 1);")) + 1;
    expect(e.message).toContain(` at writes_input (${kernels}:${line}:`);
    expect((e as ReadOnlyTensorError).details).toMatchObject({ file: kernels, line });
    expect(x.data()).toEqual(before);
  });

  it("keeps only core 0's printf and warns about the others", () => {
    const printed: string[] = [], warned: string[] = [];
    const restore = setOutput({ printf: (t) => printed.push(t), warn: (t) => warned.push(t) });
    try {
      ops.mc_fixtures.prints(randn([16]));
    } finally {
      restore();
    }
    expect(printed.join("")).toContain("Printing stdout from GPSIMD (mc_fixtures::prints, core 0)");
    expect(printed.join("")).toContain("hello from core 0 of 8");
    expect(printed.join("")).not.toContain("hello from core 1");
    expect(warned).toEqual(["mc_fixtures::prints: 7 printf calls on cores other than 0 dropped: core 1 (1), core 2 (1), core 3 (1), core 4 (1), core 5 (1), core 6 (1), core 7 (1) (in multicore mode only core 0 may print; load with print_all_cores: true to see every core's output)"]);
  });

  it("shows every core's printf, tagged, with print_all_cores", () => {
    const printed: string[] = [];
    const restore = setOutput({ printf: (t) => printed.push(t) });
    lib.configure({ print_all_cores: true });
    try {
      ops.mc_fixtures.prints(randn([16]));
    } finally {
      restore();
      lib.configure({ print_all_cores: false });
    }
    for (let k = 0; k < 8; k++) expect(printed.join("")).toContain(`[core ${k}] hello from core ${k} of 8`);
  });
});

describe("faults", () => {
  it("fails the whole call on a trap on one core, naming it, and the next call works", () => {
    const lib = load();
    try {
      const e = catchError(() => ops.mc_fixtures.trap_on(randn([64]), 5));
      expect(e).toBeInstanceOf(KernelTrapError);
      expect(e.core).toBe(5);
      expect(e.message).toMatch(/^mc_fixtures::trap_on \(core 5\): trap: unreachable/);
      expect(e.message).toMatch(/kernels\.ts:\d+/);
      expect(ops.mc_fixtures.core_ids(randn([64])).data()).toEqual(expectedCoreIds(64, 8));
    } finally {
      lib.unload();
    }
  });

  it("stops a runaway kernel after the timeout without killing a thread, and the next call works", () => {
    for (const threads of [1, 2]) { // with 1 thread the main thread runs the runaway core itself; the watchdog thread stops it
      const lib = load({ timeout_ms: 300, threads });
      try {
        const before = corePool().threadCount;
        const e = catchError(() => ops.mc_fixtures.spin_on(randn([64]), 3));
        expect(e).toBeInstanceOf(KernelTimeoutError);
        expect(e.message, e.message).toMatch(/^mc_fixtures::spin_on: still running after 300 ms on core 3; stopped by the watchdog( \(cores? [\d, ]+ not started\))? \(raise timeout_ms if the kernel is just slow\)$/);
        expect(corePool().threadCount).toBe(before);
        expect(ops.mc_fixtures.core_ids(randn([64])).data()).toEqual(expectedCoreIds(64, 8));
      } finally {
        lib.unload();
      }
    }
  });

  it("times out an asynchronous call too, without blocking the event loop", async () => {
    const lib = load({ timeout_ms: 300 });
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      const e = await ops.mc_fixtures.spin_on.async(randn([64]), 0).catch((x: unknown) => x);
      clearInterval(timer);
      expect(e).toBeInstanceOf(KernelTimeoutError);
      expect(ticks, String((e as Error).message)).toBeGreaterThan(5); // the event loop kept running while the kernel spun
      expect((await ops.mc_fixtures.core_ids.async(randn([64]))).data()).toEqual(expectedCoreIds(64, 8));
    } finally {
      lib.unload();
    }
  });

  it("rejects the call in flight when a thread dies, and replaces the thread", async () => {
    const lib = load({ timeout_ms: 10_000 });
    try {
      await ops.mc_fixtures.core_ids.async(randn([64])); // the threads are up: the call below starts at once
      const pending = ops.mc_fixtures.spin_on.async(randn([64]), 1);
      await new Promise((r) => setTimeout(r, 100));
      // Every thread, so the one running the spinning core among them (an idle thread's death alone fails no call:
      // it is replaced, test/reliability/idle-threads.test.ts).
      for (let i = 0; i < corePool().threadCount; i++) corePool().killThreadForTest(i);
      const e = await pending.catch((x: unknown) => x);
      expect(e).toBeInstanceOf(WorkerCrashError);
      expect((e as Error).message).toMatch(/^mc_fixtures::spin_on: a core thread died/);
      expect(ops.mc_fixtures.core_ids(randn([64])).data()).toEqual(expectedCoreIds(64, 8));
    } finally {
      lib.unload();
    }
  });
});

function catchError(fn: () => unknown): Error & { core?: number; code?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}
