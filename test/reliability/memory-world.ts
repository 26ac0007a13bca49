// Shared by the memory reliability tests: the shipped operators run as a
// correct user would (checked bit for bit against the plain-TypeScript
// references in ops/*/reference.ts), tensors that no call may touch
// ("bystanders"), and the attack fixtures of test/fixtures/reliability/memory/.
import { expect } from "vitest";
import { randn, custom_op, type Library, type Tensor } from "gpsimd";
import { loadOp } from "../../ops/index.js";
import { reluForward } from "../../ops/relu/reference.js";
import { negate } from "../../ops/negate/reference.js";
import { add } from "../../ops/add/reference.js";
import { fixturePath, TEST_BUILD_DIR, floats, bitDifference, STRICT, captureOutput } from "../helpers.js";

export const GROUP = "reliability/memory";

/** The shipped libraries the tests run between attacks: TCM, element-wise (kernel heap, returned tensor), stream and multicore kernels. */
export interface Shipped { reluTcm: Library; reluElementwise: Library; negateStream: Library; reluMulticore: Library; addMulticore: Library; }

export function loadShipped(): Shipped {
  return {
    reluTcm: loadOp("relu_tcm", STRICT), reluElementwise: loadOp("relu_elementwise", STRICT), negateStream: loadOp("negate_stream", STRICT),
    reluMulticore: loadOp("relu_multicore", STRICT), addMulticore: loadOp("add_multicore", STRICT),
  };
}

export function unloadShipped(s: Shipped): void {
  for (const lib of Object.values(s)) lib.unload();
}

/** Fails unless got equals want bit for bit. */
function expectBits(got: Tensor, want: Float32Array, what: string): void {
  expect(bitDifference(floats(got), want), what).toBeNull();
}

/** One call of every shipped operator kind on fresh tensors, each output checked bit for bit; every tensor it made is disposed. */
export function runShippedSync(s: Shipped, seed: number): void {
  const x = randn([64, 130], { seed }), y = randn([64, 130], { seed: seed + 1 });
  const outs = [
    [s.reluTcm.call("relu_forward", [x]), reluForward(floats(x)), "relu_tcm"],
    [s.reluElementwise.call("relu_forward", [x]), reluForward(floats(x)), "relu_elementwise"],
    [s.negateStream.call("tensor_negate", [x]), negate(floats(x)), "negate_stream"],
    [s.reluMulticore.call("relu_forward", [x]), reluForward(floats(x)), "relu_multicore"],
    [s.addMulticore.call("tensor_add", [x, y]), add(floats(x), floats(y)), "add_multicore"],
  ] as const;
  for (const [got, want, what] of outs) { expectBits(got, want, what); got.dispose(); }
  x.dispose(); y.dispose();
}

/** As runShippedSync, through the async path (worker threads). */
export async function runShippedAsync(s: Shipped, seed: number): Promise<void> {
  const x = randn([64, 130], { seed }), y = randn([64, 130], { seed: seed + 1 });
  const outs = await Promise.all([
    s.reluTcm.callAsync("relu_forward", [x]), s.reluElementwise.callAsync("relu_forward", [x]),
    s.negateStream.callAsync("tensor_negate", [x]), s.reluMulticore.callAsync("relu_forward", [x]), s.addMulticore.callAsync("tensor_add", [x, y]),
  ]);
  const wants = [reluForward(floats(x)), reluForward(floats(x)), negate(floats(x)), reluForward(floats(x)), add(floats(x), floats(y))];
  outs.forEach((got, i) => { expectBits(got, wants[i], `async call ${i}`); got.dispose(); });
  x.dispose(); y.dispose();
}

/** Tensors no call is given: their bits must never change. */
export class Bystanders {
  readonly tensors: Tensor[];
  private readonly bits: Uint32Array[];
  constructor(count: number, seed: number) {
    // Sizes from small to large, so some land between others and some start on pages.
    this.tensors = Array.from({ length: count }, (_, i) => randn([1024 << (i % 6)], { seed: seed + i }));
    this.bits = this.tensors.map((t) => new Uint32Array(floats(t).slice().buffer));
  }
  /** Addresses an attack aims at. */
  address(i: number): number { return this.tensors[i % this.tensors.length].address; }
  /** Elements changed since construction, over all bystanders. */
  changed(): number {
    let n = 0;
    this.tensors.forEach((t, k) => {
      const now = new Uint32Array(floats(t).slice().buffer);
      for (let i = 0; i < now.length; i++) if (now[i] !== this.bits[k][i]) n++;
    });
    return n;
  }
  dispose(): void { for (const t of this.tensors) t.dispose(); }
}

/** The attack fixture libraries (single-core context-block and descriptor attacks, multicore context-block attacks). */
export interface Attacks { ctx: Library; desc: Library; mc: Library; }

/** Ordinary kernel bugs (trap, accessor and TCM errors, double free, abort) and a correct negate. */
export function loadFaults(): Library {
  return custom_op.load({
    name: "memory_faults", compute_srcs: ["faults.ts", "good.ts"].map((f) => fixturePath(GROUP, f)),
    shape_srcs: ["register-faults.ts", "shape.ts"].map((f) => fixturePath(GROUP, f)), build_directory: TEST_BUILD_DIR,
  });
}

export function loadAttacks(sanitize: boolean): Attacks {
  const load = (name: string, compute: string[], shape: string, multicore = false) => custom_op.load({
    name: `${name}${sanitize ? "_sanitize" : ""}`, compute_srcs: compute.map((f) => fixturePath(GROUP, f)),
    shape_srcs: [shape, "shape.ts"].map((f) => fixturePath(GROUP, f)), build_directory: TEST_BUILD_DIR, multicore, sanitize,
  });
  return {
    ctx: load("memory_ctx_attacks", ["ctx-attacks.ts", "good.ts"], "register-ctx.ts"),
    desc: load("memory_desc_attacks", ["desc-attacks.ts", "good.ts"], "register-desc.ts"),
    mc: load("memory_mc_attacks", ["mc-attacks.ts"], "register-mc.ts", true),
  };
}

/** Runs a call quietly (printf and warnings captured); returns the error it threw, or null (the output is disposed). */
export function attempt(fn: () => Tensor): unknown {
  try { captureOutput(fn).result.dispose(); return null; } catch (e) { return e; }
}
