// Soak: a few hundred steps, in an order drawn from a seeded generator, that
// interleave correct calls of the shipped operators (sync, and async batches
// in which correct and failing calls are in flight together) with every kind
// of failing kernel: traps, accessor and TCM errors, aborts, context-block
// attacks, tampered and forged descriptors, single-core and multicore. Every
// correct output is checked bit for bit against the TypeScript references;
// at the end no bystander tensor changed and device memory is back to baseline.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { randn, hbm, shutdown, GpsimdError, KernelTamperError, type Library, type Tensor } from "gpsimd";
import { loadShipped, unloadShipped, loadAttacks, loadFaults, runShippedSync, runShippedAsync, Bystanders, attempt, type Shipped, type Attacks } from "./memory-world.js";
import { floats, bitDifference } from "../helpers.js";
import { reluForward } from "../../ops/relu/reference.js";
import { negate } from "../../ops/negate/reference.js";

const STEPS = 240;
const FAULTS = ["trap", "accessor_past_end", "tcm_past_end", "double_free", "aborts"];
const CTX_ATTACKS = ["set_tcm_base", "set_heap", "set_printf", "set_printf_head", "set_wlog_count", "set_stop", "set_counts"];
const DESC_ATTACKS = ["clear_read_only", "redirect_output", "grow_input", "forge_return", "forge_raw"];
const MC_ATTACKS = ["mc_set_ctx", "mc_trap", "mc_accessor"];

/** A small seeded generator (xorshift32), independent of gpsimd's own. */
function generator(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s % n; };
}

let shipped: Shipped, attacks: Attacks, faults: Library;
beforeAll(() => { shipped = loadShipped(); attacks = loadAttacks(false); faults = loadFaults(); });
afterAll(async () => {
  unloadShipped(shipped);
  for (const lib of [...Object.values(attacks), faults]) lib.unload();
  await shutdown();
});

describe("soak", () => {
  it(`${STEPS} steps of correct and failing calls: correct outputs exact, bystanders untouched, memory back to baseline`, async () => {
    // Warm up: core regions (sized by the largest kernel heap) and threads exist before the baseline.
    runShippedSync(shipped, 0);
    await runShippedAsync(shipped, 0);
    const baseline = hbm().bytesInUse;
    const bystanders = new Bystanders(8, 99);
    const pick = generator(2026);
    const failed = new Map<string, number>();
    const expectFailure = (e: unknown, what: string) => {
      expect(e, `${what} returned normally`).toBeInstanceOf(GpsimdError);
      failed.set(what, (failed.get(what) ?? 0) + 1);
    };
    const settle = (p: Promise<Tensor>) => p.then((t) => { t.dispose(); return null; }, (e: unknown) => e);

    for (let step = 0; step < STEPS; step++) {
      const x = randn([4096], { seed: step }), other = randn([4096], { seed: step + 7 });
      const target = bystanders.address(pick(8));
      switch (pick(7)) {
        case 0: runShippedSync(shipped, step); break;
        case 1: { // a fault, sync or async
          const name = FAULTS[pick(FAULTS.length)];
          expectFailure(pick(2) ? attempt(() => faults.call(name, [x])) : await settle(faults.callAsync(name, [x])), name);
          break;
        }
        case 2: { // a context-block attack: it may succeed; nothing may come of it later
          const name = CTX_ATTACKS[pick(CTX_ATTACKS.length)];
          const e = pick(2) ? attempt(() => attacks.ctx.call(name, [x, target])) : await settle(attacks.ctx.callAsync(name, [x, target]));
          if (e) expectFailure(e, name);
          break;
        }
        case 3: { // a descriptor attack: always detected
          const name = DESC_ATTACKS[pick(DESC_ATTACKS.length)];
          const e = pick(2) ? attempt(() => attacks.desc.call(name, [x, other])) : await settle(attacks.desc.callAsync(name, [x, other]));
          expect(e, `${name}: ${String(e)}`).toBeInstanceOf(KernelTamperError);
          expectFailure(e, name);
          break;
        }
        case 4: { // a multicore attack or fault
          const name = MC_ATTACKS[pick(MC_ATTACKS.length)];
          const big = randn([8 * 1024], { seed: step });
          const e = pick(2) ? attempt(() => attacks.mc.call(name, [big, target])) : await settle(attacks.mc.callAsync(name, [big, target]));
          if (name !== "mc_set_ctx") expectFailure(e, name); else if (e) expectFailure(e, name);
          big.dispose();
          break;
        }
        case 5: { // an async batch: correct and failing calls in flight together
          const correct: [Promise<Tensor>, Float32Array][] = [
            [shipped.reluTcm.callAsync("relu_forward", [x]), reluForward(floats(x))],
            [shipped.negateStream.callAsync("tensor_negate", [x]), negate(floats(x))],
            [shipped.reluMulticore.callAsync("relu_forward", [x]), reluForward(floats(x))],
          ];
          const failing = [faults.callAsync(FAULTS[pick(FAULTS.length)], [x]), attacks.desc.callAsync(DESC_ATTACKS[pick(DESC_ATTACKS.length)], [x, other])];
          for (const [p, want] of correct) { const got = await p; expect(bitDifference(floats(got), want)).toBeNull(); got.dispose(); }
          for (const p of failing) expectFailure(await settle(p), "async batch");
          break;
        }
        default: await runShippedAsync(shipped, step);
      }
      x.dispose(); other.dispose();
    }
    runShippedSync(shipped, STEPS);
    await runShippedAsync(shipped, STEPS);
    expect(bystanders.changed()).toBe(0);
    bystanders.dispose();
    expect(hbm().bytesInUse).toBe(baseline);
    // Every kind of failure came up.
    for (const name of [...FAULTS, ...DESC_ATTACKS, "mc_trap", "mc_accessor"]) expect(failed.get(name) ?? 0, name).toBeGreaterThan(0);
  });
});
