// Is the checks suite's alternating-burst pair fair to both sides on multicore kernels? `paired()` (harness.ts)
// times bursts back to back, while the floor rounds wait for the previous burst's spinning threads to sleep
// (settle.ts). This runs, interleaved in one process, the multicore pairs of the checks suite four ways: checks on
// against off, and checks on against itself (an A/A pair: any departure of its median from 1 is the method's bias,
// its range the noise), each with and without the settle. `node dist/bench/paired-fairness.js [repeats]`.
import os from "node:os";
import { ops, randn, tensor, type Library, type RuntimeOptions, type Tensor } from "gpsimd";
import { paired } from "./harness.js";
import { shipped } from "./libraries.js";
import { w1Boxes, W1_BATCH, W1_BOXES } from "../ops/giou/boxes.js";
import { median } from "./stats.js";

type Case = Parameters<typeof paired>[0];

const ON: RuntimeOptions = { checks: true, cross_core_checks: true };
const OFF: RuntimeOptions = { checks: false, cross_core_checks: false };

function variant(name: string, lib: Library, options: RuntimeOptions, run: () => Tensor): Case {
  const v = { name, run, prepare: () => { lib.configure(options); } };
  return { name, workload: { name, title: name, reference: new Float32Array(0), tolerance: { abs: 0, rel: 0 }, variants: [v] }, variant: v, async: false, timed: () => { run().dispose(); } };
}

const repeats = Number(process.argv[2] ?? 5);
const x = randn([32, 4096], { seed: 60 });
const [predData, targetData] = w1Boxes(0);
const pred = tensor(predData, [W1_BATCH, W1_BOXES, 4]), target = tensor(targetData, [W1_BATCH, W1_BOXES, 4]);
const relu = shipped("relu_multicore"), giou = shipped("giou_multicore");
const workloads = [
  { name: "relu-fwd-32x4096-multicore-tcm", lib: relu, run: () => ops.relu_multicore.relu_forward(x) },
  { name: "giou-multicore-tcm", lib: giou, run: () => ops.giou_multicore.giou(pred, target) },
];
const kinds = [
  { name: "on/off", settled: false }, { name: "on/off settled", settled: true },
  { name: "on/on (A/A)", settled: false, same: true }, { name: "on/on (A/A) settled", settled: true, same: true },
];
const results = new Map<string, { ratio: number; low: number; high: number }[]>();
console.log(`paired-fairness: ${repeats} repeats, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (let r = 0; r < repeats; r++) {
  for (const w of workloads) {
    const on = variant("checks-on", w.lib, ON, w.run), on2 = variant("checks-on-again", w.lib, ON, w.run), off = variant("checks-off", w.lib, OFF, w.run);
    for (const c of [on, off]) { c.variant.prepare!(); for (let i = 0; i < 200; i++) c.timed(); }
    on.variant.prepare!();
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) on.timed();
    const perCall = (performance.now() - t0) / 1e3 / 200;
    // The order of the four kinds rotates with the repeat, so none always follows another.
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(k + r) % kinds.length];
      const p = await paired(on, kind.same ? on2 : off, perCall, 20, kind.settled);
      const key = `${w.name} ${kind.name}`;
      results.set(key, [...(results.get(key) ?? []), p]);
    }
  }
  process.stdout.write(`  repeat ${r + 1}/${repeats} done, load ${os.loadavg()[0].toFixed(2)}\n`);
}
for (const [key, ps] of results) {
  const medians = ps.map((p) => p.ratio);
  const spread = ps.map((p) => p.high - p.low);
  console.log(`${key.padEnd(48)} pair medians ${medians.map((m) => m.toFixed(3)).join(" ")}  (median ${median(medians).toFixed(3)}); round range width median ${median(spread).toFixed(2)}`);
}
console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
x.dispose(); pred.dispose(); target.dispose();
process.exit(0);
