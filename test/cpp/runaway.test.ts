// Runaway C++ kernels stop like AssemblyScript ones: the kernel's own code is
// stop-polled (build/stop-polls.ts on the linked kernel, reading the device
// runtime's stop word), so a synchronous single-core call runs on the calling
// thread and the watchdog stops it there; multicore and .async calls stop on
// the core threads. A loop, an exponential call tree and a loop in a called
// helper each stop with KernelTimeoutError, and the library then runs a
// correct call.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, KernelTimeoutError, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/runaway", name);
const TIMEOUT_MS = 300;
/** How much later than timeout_ms a runaway may stop (thread wake-ups on a busy 2-CPU machine). */
const GRACE_MS = 1500;
const load = (name: string, register: string, multicore: boolean): Library => custom_op.load({
  name, compute_srcs: [file("loop.cpp")], shape_srcs: [file("shape.ts"), file(register)], build_directory: TEST_BUILD_DIR, timeout_ms: TIMEOUT_MS, multicore,
});
const single = load("cpp_runaway", "register.ts", false);
const multicore = load("cpp_runaway_multicore", "register-multicore.ts", true);
afterAll(async () => {
  single.unload();
  multicore.unload();
  await shutdown();
});

const RUNAWAYS = ["spin", "recurse", "helper_loop"] as const;
type Ops = Record<string, ((...a: unknown[]) => { tolist(): unknown }) & { async(...a: unknown[]): Promise<{ tolist(): unknown }> }>;
const lib = (name: "cpp_runaway" | "cpp_runaway_multicore") => ops[name] as unknown as Ops;

/** What core_ids writes on `cores` cores: core k's part holds k + 1. */
function coreIds(n: number, cores: number): number[] {
  const part = Math.floor(n / cores);
  return Array.from({ length: n }, (_, i) => Math.min(Math.floor(i / part), cores - 1) + 1);
}

describe("a runaway C++ kernel", () => {
  it.each(RUNAWAYS)("%s: a sync single-core call stops on the calling thread with KernelTimeoutError, and the next call works", (op) => {
    const x = tensor(new Float32Array(16), [16]);
    const start = performance.now();
    const e = thrown(() => lib("cpp_runaway")[op](x));
    const ms = performance.now() - start;
    expect(e, String(e)).toBeInstanceOf(KernelTimeoutError);
    expect((e as Error).message).toBe(`cpp_runaway::${op}: still running after ${TIMEOUT_MS} ms on core 0; stopped by the watchdog (raise timeout_ms if the kernel is just slow)`);
    expect(ms).toBeLessThan(TIMEOUT_MS + GRACE_MS);
    expect(single.pooled).toBe(false); // never handed to the core threads: the calling thread ran it
    expect(lib("cpp_runaway").core_ids(x).tolist()).toEqual(coreIds(16, 1));
  });

  it.each(RUNAWAYS)("%s: a sync multicore call stops with KernelTimeoutError, and the next call works", (op) => {
    const x = tensor(new Float32Array(64), [64]);
    const e = thrown(() => lib("cpp_runaway_multicore")[op](x));
    expect(e, String(e)).toBeInstanceOf(KernelTimeoutError);
    expect((e as Error).message).toMatch(new RegExp(`^cpp_runaway_multicore::${op}: still running after ${TIMEOUT_MS} ms on cores? [\\d, ]+; stopped by the watchdog`));
    expect(lib("cpp_runaway_multicore").core_ids(x).tolist()).toEqual(coreIds(64, 8));
  });

  it.each(RUNAWAYS)("%s: an .async call stops with KernelTimeoutError, and the next call works", async (op) => {
    const x = tensor(new Float32Array(16), [16]);
    const e = await lib("cpp_runaway")[op].async(x).catch((err: unknown) => err);
    expect(e, String(e)).toBeInstanceOf(KernelTimeoutError);
    expect((await lib("cpp_runaway").core_ids.async(x)).tolist()).toEqual(coreIds(16, 1));
  });
});
