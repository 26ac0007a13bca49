// Device memory is usable to its full 4 GiB: with 2.5 GiB allocated before
// the first call, core regions, libraries and tensors all lie above 2^31,
// and every kind of call works (addresses are unsigned everywhere), also
// after the big block is freed.
import { describe, it, expect, afterAll } from "vitest";
import { empty, randn, hbm, shutdown, kByte, custom_op } from "gpsimd";
import { loadShipped, unloadShipped, runShippedSync, runShippedAsync, GROUP } from "./memory-world.js";
import { fixturePath, TEST_BUILD_DIR, captureOutput, values } from "../helpers.js";

const GIB = 2 ** 30;
// Before any library loads or any call runs in this file's process: everything after lies above 2 GiB.
const big = empty([2.5 * GIB], kByte);
const shipped = loadShipped();
const printing = custom_op.load({
  name: "memory_ctx_attacks", compute_srcs: ["ctx-attacks.ts", "good.ts"].map((f) => fixturePath(GROUP, f)),
  shape_srcs: ["register-ctx.ts", "shape.ts"].map((f) => fixturePath(GROUP, f)), build_directory: TEST_BUILD_DIR,
});
afterAll(async () => { unloadShipped(shipped); printing.unload(); await shutdown(); });

describe("addresses above 2 GiB", () => {
  it("the test really places tensors and libraries above 2^31", () => {
    expect(big.address).toBeLessThan(2 ** 31);
    const x = randn([16], { seed: 1 });
    expect(x.address).toBeGreaterThan(2 ** 31);
    expect(shipped.reluTcm.placed.staticBase).toBeGreaterThan(2 ** 31);
    x.dispose();
  });

  it("single-core and multicore calls, sync and async, with printf, work above 2 GiB and after the big block is freed", async () => {
    runShippedSync(shipped, 1);
    await runShippedAsync(shipped, 2);
    const x = randn([3000], { seed: 3 });
    const printed = captureOutput(() => printing.call("hello", [x]));
    expect(printed.printf.join("")).toContain("hello from a correct kernel");
    expect(values(await printing.callAsync("negate", [x]))).toEqual(values(x).map((v) => -v));
    big.dispose();
    runShippedSync(shipped, 4);
    await runShippedAsync(shipped, 5);
    expect(hbm().byteLength).toBeGreaterThan(2.5 * GIB);
  });
});
