// A call cannot change what a later call sees: kernels that overwrite the
// trusted fields of their context block (TCM base, heap bounds, printf ring,
// write-log count, stop word, counts), tamper with their tensor descriptors
// or return forged ones, followed by the shipped operators on fresh tensors.
// Zero elements of any tensor outside the bad call may change, in default
// and sanitize mode, sync and async, single-core and multicore.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { randn, hbm, shutdown, GpsimdError, KernelTamperError, type Tensor } from "gpsimd";
import { loadShipped, unloadShipped, loadAttacks, runShippedSync, runShippedAsync, Bystanders, attempt, type Shipped, type Attacks } from "./memory-world.js";
import { captureOutput, values } from "../helpers.js";

const CTX_ATTACKS = ["set_tcm_base", "set_heap", "set_printf", "set_printf_head", "set_wlog_count", "set_stop", "set_counts"];

let shipped: Shipped;
beforeAll(() => { shipped = loadShipped(); });
afterAll(async () => { unloadShipped(shipped); await shutdown(); });

describe.each([false, true])("sanitize: %s", (sanitize) => {
  let attacks: Attacks;
  beforeAll(() => { attacks = loadAttacks(sanitize); });
  afterAll(() => { for (const lib of Object.values(attacks)) lib.unload(); });

  /** The correct calls after an attack: shipped operators (sync and async), and a fixture kernel that prints and one that uses TCM. */
  async function laterCallsWork(seed: number): Promise<void> {
    runShippedSync(shipped, seed);
    await runShippedAsync(shipped, seed + 100);
    const x = randn([3000], { seed });
    const neg = attacks.ctx.call("negate", [x]);
    expect(values(neg)).toEqual(values(x).map((v) => -v));
    const printed = captureOutput(() => attacks.ctx.call("hello", [x]));
    expect(printed.printf.join("")).toContain("hello from a correct kernel");
    expect(values(printed.result)).toEqual(new Array(3000).fill(0));
    for (const t of [x, neg, printed.result]) t.dispose();
  }

  it.each(CTX_ATTACKS)("%s, sync and async, reaches no later call and no other tensor", async (name) => {
    const bystanders = new Bystanders(6, 7);
    for (let target = 0; target < 6; target += 2) {
      const x = randn([4096], { seed: target });
      const sync = attempt(() => attacks.ctx.call(name, [x, bystanders.address(target)]));
      if (sync) expect(sync, String(sync)).toBeInstanceOf(GpsimdError);
      await laterCallsWork(target);
      const async = await attacks.ctx.callAsync(name, [x, bystanders.address(target + 1)]).then(() => null, (e: unknown) => e);
      if (async) expect(async, String(async)).toBeInstanceOf(GpsimdError);
      await laterCallsWork(target + 1);
      x.dispose();
    }
    expect(bystanders.changed()).toBe(0);
    bystanders.dispose();
  });

  it("a multicore kernel that overwrites its core's trusted fields reaches no later call", async () => {
    const bystanders = new Bystanders(6, 17);
    const x = randn([8 * 1024], { seed: 3 });
    for (let target = 0; target < 4; target++) {
      const err = attempt(() => attacks.mc.call("mc_set_ctx", [x, bystanders.address(target)]));
      if (err) expect(err, String(err)).toBeInstanceOf(GpsimdError);
      await laterCallsWork(target);
    }
    const err = await attacks.mc.callAsync("mc_set_ctx", [x, bystanders.address(5)]).then(() => null, (e: unknown) => e);
    if (err) expect(err, String(err)).toBeInstanceOf(GpsimdError);
    await laterCallsWork(9);
    expect(bystanders.changed()).toBe(0);
    x.dispose();
    bystanders.dispose();
  });

  /**
   * Descriptor attacks: each must fail (default mode: with the tamper error naming the tensor), and nothing outside the
   * call may change. With checks on, a raw store into a descriptor (in the context block) is refused before it happens;
   * with checks off (checksOff) it lands, and the host finds the changed descriptor after the kernel returns.
   */
  const CONTEXT_STORE = /store of \d+ bytes at 0x[0-9a-f]+ into core 0's context block/;
  const DESC_ATTACKS: [string, string, RegExp, boolean][] = [
    ["clear_read_only", "E_FOREIGN_STORE", CONTEXT_STORE, false],
    ["clear_read_only", "E_DESCRIPTOR_CHANGED", /argument 0 't_in'.*read-only flag/, true],
    ["redirect_output", "E_FOREIGN_STORE", CONTEXT_STORE, false],
    ["redirect_output", "E_DESCRIPTOR_CHANGED", /the output .*data address/, true],
    ["grow_input", "E_FOREIGN_STORE", CONTEXT_STORE, false],
    ["grow_input", "E_DESCRIPTOR_CHANGED", /argument 0 't_in'.*element count/, true],
    ["forge_return", "E_FOREIGN_STORE", CONTEXT_STORE, false],
    ["forge_return", "E_FOREIGN_RETURN", /outside the kernel heap/, true],
    ["forge_raw", "E_FOREIGN_RETURN", /not a tensor of this launch/, false],
  ];

  it.each(DESC_ATTACKS)("%s is detected (%s), sync and async, and reaches no later call (checks off: %s)", async (name, code, message, checksOff) => {
    if (sanitize && checksOff) return; // sanitize mode refuses the store whatever the checks setting
    attacks.desc.configure({ checks: !checksOff });
    const bystanders = new Bystanders(4, 27);
    // The baseline is taken after the same later calls once: libraries and core regions they create on first use stay, by design.
    await laterCallsWork(31);
    const before = hbm().bytesInUse;
    const check = (e: unknown) => {
      expect(e, `${name} returned normally`).toBeInstanceOf(GpsimdError);
      if (!sanitize) {
        expect(e, String(e)).toBeInstanceOf(KernelTamperError);
        expect((e as GpsimdError).code).toBe(code);
        expect((e as GpsimdError).message).toMatch(message);
        expect((e as GpsimdError).message).toContain(`memory_desc_attacks::${name}`);
      }
    };
    const x = randn([2048], { seed: 5 }), other = randn([2048], { seed: 6 });
    check(attempt(() => attacks.desc.call(name, [x, other])));
    await laterCallsWork(31);
    check(await attacks.desc.callAsync(name, [x, other]).then(() => null, (e: unknown) => e));
    await laterCallsWork(32);
    expect(bystanders.changed()).toBe(0);
    for (const t of [x, other]) t.dispose();
    expect(hbm().bytesInUse).toBe(before);
    bystanders.dispose();
    attacks.desc.configure({ checks: true });
  });

  it("returning an input is still a valid result: the host copies it into the output", async () => {
    const x = randn([2048], { seed: 8 }), other = randn([2048], { seed: 9 });
    const outs: Tensor[] = [attacks.desc.call("return_other", [x, other]), await attacks.desc.callAsync("return_other", [x, other])];
    for (const out of outs) { expect(values(out)).toEqual(values(other)); out.dispose(); }
    x.dispose(); other.dispose();
  });
});
