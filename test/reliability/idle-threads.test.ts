// Core threads and async calls (issue 24): a core thread that dies while idle never fails a later call (it was
// given the next launch before its death was seen, and the call failed with WorkerCrashError, 1 run in 2 here);
// and an async call's timeout_ms counts the kernel's time, not a thread taking the library in (the first async call
// of a single-core library failed "not started within 10 ms", 3 runs in 8 here).
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, randn, shutdown, type Library, type LoadTimeOptions } from "gpsimd";
import { corePool } from "../../dist/host/cores/pool.js";
import { TEST_BUILD_DIR, fixturePath } from "../helpers.js";

const KERNELS = fixturePath("reliability/hangs", "kernels.ts");
const load = (register: string, options: LoadTimeOptions & { multicore?: boolean } = {}): Library => custom_op.load({
  name: register === "register-single.ts" ? "idle_single" : "idle_multi", compute_srcs: [KERNELS],
  shape_srcs: [fixturePath("reliability/idle-threads", register)], build_directory: TEST_BUILD_DIR, ...options,
});
/** What core_ids writes on `cores` cores: core k's part holds k + 1. */
function coreIds(n: number, cores: number): number[] {
  const part = Math.floor(n / cores);
  return Array.from({ length: n }, (_, i) => Math.min(Math.floor(i / part), cores - 1) + 1);
}
const values = (t: { data(): unknown }) => Array.from(t.data() as Float32Array);

afterAll(async () => { await shutdown(); });

describe("a core thread killed while idle", () => {
  it("single-core async calls: its only thread, killed before each call, is replaced and every call works", async () => {
    const lib = load("register-single.ts");
    try {
      expect(values(await ops.idle_single.core_ids.async(randn([16])))).toEqual(coreIds(16, 1));
      for (let i = 0; i < 10; i++) {
        corePool().killThreadForTest(0);
        expect(values(await ops.idle_single.core_ids.async(randn([16])))).toEqual(coreIds(16, 1));
      }
    } finally {
      lib.unload();
    }
  });

  it("multicore async and sync calls on 2 threads: one killed before each call, every call works", async () => {
    const lib = load("register-multi.ts", { multicore: true, threads: 2 });
    try {
      for (let i = 0; i < 10; i++) {
        corePool().killThreadForTest(i % 2);
        expect(values(await ops.idle_multi.core_ids.async(randn([64])))).toEqual(coreIds(64, 8));
        corePool().killThreadForTest(0);
        expect(values(ops.idle_multi.core_ids(randn([64])))).toEqual(coreIds(64, 8));
      }
    } finally {
      lib.unload();
    }
  });
});

describe("an async call's timeout_ms", () => {
  it("does not count a new thread's start or its taking the library in: the first async call of a fresh library works with timeout_ms: 10", async () => {
    for (let i = 0; i < 6; i++) {
      if (i % 2 === 0) await shutdown(); // no thread yet: the call starts one; otherwise the thread exists and takes the library in
      const lib = load("register-single.ts", { timeout_ms: 10 });
      try {
        expect(values(await ops.idle_single.core_ids.async(randn([16])))).toEqual(coreIds(16, 1));
      } finally {
        lib.unload();
      }
    }
  });
});
