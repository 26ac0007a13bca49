// Runaway kernels always stop: on the calling thread or a worker, sync or async,
// single-core or multicore, in loops, recursion or closures; dying threads,
// long messages and bad options give typed errors; the process exits promptly.
import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  custom_op, ops, randn, shutdown, type Library, type LoadTimeOptions,
  KernelTimeoutError, KernelAbortError, WorkerCrashError, BuildError, OptionError,
} from "gpsimd";
import { corePool } from "../../dist/host/cores/pool.js";
import { REPO, TEST_BUILD_DIR, fixturePath, thrown } from "../helpers.js";

const GROUP = "reliability/hangs";
/** How much later than timeout_ms a runaway may stop (thread wake-ups on a busy 2-CPU machine). */
const GRACE_MS = 1500;

function loadMulticore(options: LoadTimeOptions = {}): Library {
  return custom_op.load({
    name: "hangs_fixtures", compute_srcs: [fixturePath(GROUP, "kernels.ts")], shape_srcs: [fixturePath(GROUP, "register.ts")],
    build_directory: TEST_BUILD_DIR, multicore: true, ...options,
  });
}

function loadSingle(options: LoadTimeOptions = {}): Library {
  return custom_op.load({
    name: "hangs_single", compute_srcs: [fixturePath(GROUP, "kernels.ts")], shape_srcs: [fixturePath(GROUP, "register-single.ts")],
    build_directory: TEST_BUILD_DIR, ...options,
  });
}

/** What core_ids writes on `cores` cores: core k's part holds k + 1. */
function coreIds(n: number, cores: number): number[] {
  const part = Math.floor(n / cores);
  return Array.from({ length: n }, (_, i) => Math.min(Math.floor(i / part), cores - 1) + 1);
}

/** Runs fn, which must throw; returns the error and how long it took. */
function timed(fn: () => unknown): { error: unknown; ms: number } {
  const start = performance.now();
  const error = thrown(fn);
  return { error, ms: performance.now() - start };
}

afterAll(async () => { await shutdown(); });

describe("runaway kernels stop", () => {
  it("a sync multicore call where every core loops forever, on 2 threads (one of them the caller)", () => {
    const lib = loadMulticore({ timeout_ms: 300, threads: 2 });
    try {
      const { error, ms } = timed(() => ops.hangs_fixtures.spin_all(randn([64])));
      expect(error).toBeInstanceOf(KernelTimeoutError);
      const e = error as KernelTimeoutError;
      expect(e.message).toMatch(/^hangs_fixtures::spin_all: still running after 300 ms on cores? [\d, ]+; stopped by the watchdog/);
      expect((e.details as { running: number[] }).running.length).toBeGreaterThan(0);
      expect(ms).toBeGreaterThanOrEqual(300);
      expect(ms).toBeLessThan(300 + GRACE_MS);
      expect(Array.from(ops.hangs_fixtures.core_ids(randn([64])).data() as Float32Array)).toEqual(coreIds(64, 8));
    } finally {
      lib.unload();
    }
  });

  it("a sync multicore call whose cores run away without a loop: exponential recursion, a loop in a function expression", () => {
    const lib = loadMulticore({ timeout_ms: 300, threads: 2 });
    try {
      for (const op of ["recurse_all", "closure_all"] as const) {
        const { error, ms } = timed(() => ops.hangs_fixtures[op](randn([64])));
        expect(error, op).toBeInstanceOf(KernelTimeoutError);
        expect((error as Error).message).toMatch(new RegExp(`^hangs_fixtures::${op}: still running after 300 ms on cores? [\\d, ]+; stopped by the watchdog`));
        expect(ms, op).toBeLessThan(300 + GRACE_MS);
        expect(Array.from(ops.hangs_fixtures.core_ids(randn([64])).data() as Float32Array)).toEqual(coreIds(64, 8));
      }
    } finally {
      lib.unload();
    }
  });

  it("a sync single-core call (it runs on the calling thread), looping or recursing", () => {
    const lib = loadSingle({ timeout_ms: 200 });
    try {
      for (const op of ["spin_all", "recurse_all"] as const) {
        const { error, ms } = timed(() => ops.hangs_single[op](randn([16])));
        expect(error, op).toBeInstanceOf(KernelTimeoutError);
        expect((error as Error).message).toBe(`hangs_single::${op}: still running after 200 ms on core 0; stopped by the watchdog (raise timeout_ms if the kernel is just slow)`);
        expect(ms, op).toBeGreaterThanOrEqual(200);
        expect(ms, op).toBeLessThan(200 + GRACE_MS);
        expect(Array.from(ops.hangs_single.core_ids(randn([16])).data() as Float32Array)).toEqual(coreIds(16, 1));
      }
    } finally {
      lib.unload();
    }
  });

  it("an async single-core call, and thread start-up does not count against timeout_ms", async () => {
    await shutdown(); // no core thread yet: the call below starts one
    const lib = loadSingle({ timeout_ms: 100 });
    try {
      expect(Array.from((await ops.hangs_single.core_ids.async(randn([16]))).data() as Float32Array)).toEqual(coreIds(16, 1));
      const error = await ops.hangs_single.spin_all.async(randn([16])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KernelTimeoutError);
    } finally {
      lib.unload();
    }
  });

  it("refuses memory.atomic.wait in a kernel at build, naming the function", () => {
    const e = thrown(() => custom_op.load({
      name: "hangs_atomic_wait", compute_srcs: [fixturePath(GROUP, "atomic-wait.ts")], shape_srcs: [fixturePath(GROUP, "register-atomic-wait.ts")],
      build_directory: TEST_BUILD_DIR,
    }));
    expect(e).toBeInstanceOf(BuildError);
    expect((e as Error).message).toMatch(/memory\.atomic\.wait in kernel code \(waits\): a kernel may not block its core/);
  });
});

describe("faults give typed errors and the next call works", () => {
  it("an abort message over 64 KiB, from the last core or the first: cut with a note, next call prompt", () => {
    const lib = loadMulticore({ timeout_ms: 10_000, threads: 2 });
    try {
      for (const core of [7, 0]) {
        const e = thrown(() => ops.hangs_fixtures.long_abort(randn([64]), core, 100_000));
        expect(e, String(e)).toBeInstanceOf(KernelAbortError);
        expect((e as Error).message).toMatch(new RegExp(`^hangs_fixtures::long_abort \\(core ${core}\\): abort: x{100}`));
        expect((e as Error).message).toMatch(/more characters cut: the text was \d+ characters long/);
        const start = performance.now();
        expect(Array.from(ops.hangs_fixtures.core_ids(randn([64])).data() as Float32Array)).toEqual(coreIds(64, 8));
        expect(performance.now() - start).toBeLessThan(2000); // not the earlier call's timeout
      }
    } finally {
      lib.unload();
    }
  });

  it("a core thread that dies during a sync call is WorkerCrashError at once, not a timeout", () => {
    const lib = loadMulticore({ timeout_ms: 20_000, threads: 2 });
    try {
      ops.hangs_fixtures.core_ids(randn([64])); // the worker is up
      corePool().injectFaultForTest(0);
      const { error, ms } = timed(() => ops.hangs_fixtures.spin_all(randn([64])));
      expect(error, String(error)).toBeInstanceOf(WorkerCrashError);
      expect((error as Error).message).toMatch(/^hangs_fixtures::spin_all: core thread 0 died \(fault injected into core thread 0\)/);
      expect(ms).toBeLessThan(20_000);
      expect(Array.from(ops.hangs_fixtures.core_ids(randn([64])).data() as Float32Array)).toEqual(coreIds(64, 8));
    } finally {
      lib.unload();
    }
  });

  it("over 1 MiB of compile errors is a BuildError, cut with a note", () => {
    const dir = path.join(TEST_BUILD_DIR, "hangs-long-errors");
    mkdirSync(dir, { recursive: true });
    const source = path.join(dir, "kernel.ts");
    const name = `undefined_${"x".repeat(1_200_000)}`;
    writeFileSync(source, `import { Tensor, get_dst_tensor } from "gpsimd";\nexport function k(t_in: Tensor): Tensor { const v: i32 = ${name}; return get_dst_tensor(); }\n`);
    // The registration must be right: library-level mistakes are reported before anything compiles.
    const shape = path.join(dir, "register.ts");
    writeFileSync(shape, `import { NEURON_LIBRARY, zeros, kFloat, type Tensor } from "gpsimd";\nNEURON_LIBRARY("hangs_long_errors", (m) => { m.def("k", (t: Tensor) => zeros(t.sizes(), kFloat), "k"); });\n`);
    const e = thrown(() => custom_op.load({ name: "hangs_long_errors", compute_srcs: [source], shape_srcs: [shape], build_directory: dir }));
    expect(e, String(e)).toBeInstanceOf(BuildError);
    expect((e as Error).message).toMatch(/Cannot find name 'undefined_x{100}/);
    expect((e as Error).message).toMatch(/more characters cut/);
  });

  it("a build_directory that cannot be made (under /proc, where Node's recursive mkdir never returns) is a BuildError at once", () => {
    const start = performance.now();
    const e = thrown(() => custom_op.load({
      name: "hangs_proc", compute_srcs: [fixturePath(GROUP, "kernels.ts")], shape_srcs: [fixturePath(GROUP, "register-single.ts")],
      build_directory: "/proc/gpsimd-hangs-test/out",
    }));
    expect(e, String(e)).toBeInstanceOf(BuildError);
    expect((e as Error).message).toMatch(/^custom_op\.load\(hangs_proc\): cannot create build_directory \/proc\/gpsimd-hangs-test\/out: ENOENT/);
    expect(performance.now() - start).toBeLessThan(5000);
  });

  it("timeout_ms beyond what timers support is an OptionError, at load and in configure", () => {
    for (const bad of [2 ** 31 - 1, 2 ** 31 - 1 - 1999, 2 ** 40]) {
      expect(thrown(() => loadSingle({ timeout_ms: bad }))).toBeInstanceOf(OptionError);
    }
    const lib = loadSingle({ timeout_ms: 2 ** 31 - 1 - 2000 });
    try {
      const e = thrown(() => lib.configure({ timeout_ms: 2 ** 31 - 1 }));
      expect(e).toBeInstanceOf(OptionError);
      expect((e as Error).message).toBe("option timeout_ms: 2147483647 is not valid; expected an integer from 1 to 2147481647");
    } finally {
      lib.unload();
    }
  });
});

describe("the process exits promptly", () => {
  it("a script that makes async calls (single-core and multicore) exits within 1 s of its last await", () => {
    const script = `
      import { custom_op, ops, randn } from "gpsimd";
      const fixture = (f) => ${JSON.stringify(path.join(REPO, "test", "fixtures", GROUP))} + "/" + f;
      custom_op.load({ name: "hangs_fixtures", compute_srcs: [fixture("kernels.ts")], shape_srcs: [fixture("register.ts")], build_directory: ${JSON.stringify(TEST_BUILD_DIR)}, multicore: true });
      custom_op.load({ name: "hangs_single", compute_srcs: [fixture("kernels.ts")], shape_srcs: [fixture("register-single.ts")], build_directory: ${JSON.stringify(TEST_BUILD_DIR)} });
      // The delay came from a race (a launch completing before its watcher was set up), so many calls, in several patterns.
      for (let i = 0; i < 200; i++) {
        await ops.hangs_fixtures.core_ids.async(randn([64]));
        await ops.hangs_single.core_ids.async(randn([16]));
        const pending = ops.hangs_fixtures.core_ids.async(randn([64]));
        ops.hangs_single.core_ids(randn([16]));
        await Promise.all([pending, ops.hangs_single.core_ids.async(randn([16]))]);
      }
      process.stdout.write(String(Date.now()));
    `;
    mkdirSync(TEST_BUILD_DIR, { recursive: true });
    const file = path.join(TEST_BUILD_DIR, "hangs-exit.mjs");
    writeFileSync(file, script);
    const result = spawnSync(process.execPath, [file], { cwd: REPO, encoding: "utf8", timeout: 60_000 });
    const exited = Date.now();
    expect(result.status, result.stderr).toBe(0);
    expect(exited - Number(result.stdout)).toBeLessThan(1000);
  });
});
