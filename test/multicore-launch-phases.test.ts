// A traced multicore launch records the calling thread's steps (host/profiling/trace.ts LaunchPhases), which the
// multicore breakdown (bench/multicore-breakdown.ts) sets beside the cores' spans: they must come in the order the
// launch makes them, and frame every core's span.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, shutdown, type LaunchTrace } from "gpsimd";
import { loadOp } from "../ops/index.js";

/** The steps in the order a launch takes them, with the call's own start and end around them. */
function expectOrdered(t: LaunchTrace, sync: boolean): void {
  const h = t.host!;
  expect(h).toBeDefined();
  const steps = [t.callStart, h.publishStart, h.published, h.claimsDone, h.completeSeen, h.reportsRead, h.descriptorsVerified, h.checked, t.callEnd];
  for (let i = 1; i < steps.length; i++) expect(steps[i], `step ${i}`).toBeGreaterThanOrEqual(steps[i - 1]);
  if (!sync) expect(h.claimsDone).toBe(h.published); // an async launch runs no core on the calling thread
  expect(t.cores).toHaveLength(8);
  for (const c of t.cores) {
    // A core starts once the launch is published and ends before the calling thread sees the launch complete.
    expect(c.start).toBeGreaterThanOrEqual(h.published);
    expect(c.end).toBeLessThanOrEqual(h.completeSeen);
    expect(c.end).toBeGreaterThanOrEqual(c.start);
  }
  // Only the calling thread's cores end before it has no core left to claim.
  if (sync) for (const c of t.cores.filter((x) => x.thread === -1)) expect(c.end).toBeLessThanOrEqual(h.claimsDone);
}

describe("traced multicore launches: the calling thread's steps", () => {
  const lib = loadOp("relu_multicore");
  afterAll(async () => { lib.configure({ trace: false }); lib.unload(); await shutdown(); });
  const x = randn([64, 1024], { seed: 3 });

  it("a synchronous call's steps come in order and frame every core's span", () => {
    lib.configure({ trace: true });
    for (let i = 0; i < 5; i++) {
      ops.relu_multicore.relu_forward(x).dispose();
      expectOrdered(lib.lastTrace!, true);
    }
  });

  it("an asynchronous call's too, with no core on the calling thread", async () => {
    lib.configure({ trace: true });
    (await ops.relu_multicore.relu_forward.async(x)).dispose();
    const t = lib.lastTrace!;
    expectOrdered(t, false);
    expect(t.cores.every((c) => c.thread >= 0)).toBe(true);
  });

  it("untraced calls take no steps, and a single-core traced call has none", () => {
    lib.configure({ trace: true });
    ops.relu_multicore.relu_forward(x).dispose();
    const traced = lib.lastTrace;
    lib.configure({ trace: false });
    ops.relu_multicore.relu_forward(x).dispose();
    expect(lib.lastTrace).toBe(traced); // lastTrace is the last traced call's
    const single = loadOp("relu_tcm");
    try {
      single.configure({ trace: true });
      ops.relu_tcm.relu_forward(x).dispose();
      expect(single.lastTrace!.host).toBeUndefined();
    } finally {
      single.configure({ trace: false });
    }
  });
});
