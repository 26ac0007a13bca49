// What the MLP examples share: the seed's trn1 figures, timing in iter/s,
// the table that puts ours beside them, and small helpers.
import type { Mlp } from "./mlp.js";
import type { PlainLayer } from "./mlp-reference.js";
import type { ReluVariant } from "./my-ops.js";

/** Inference iter/s on a trn1 NeuronCore from the performance tutorial (W3, batch 32). */
export const SEED_INFERENCE: Record<ReluVariant, number> = { elementwise: 8.098649744235592, tcm: 220.73800131604054, multicore: 269.936119707143 };
/** Training iter/s on trn1 from the MLP training tutorial (784 -> 120 -> 84 -> 10, element-wise ReLU), and its final loss. */
export const SEED_TRAINING = { throughput: 117.47151142662648, finalLoss: 0.197 };

/** How the tables name the ReLU variants. */
export const RELU_LABELS: Record<ReluVariant, string> = {
  elementwise: "element-wise accessor ReLU",
  tcm: "TCM accessor ReLU",
  multicore: "TCM + multicore ReLU",
};

/** Iterations per second of step(i): two warm-up steps (the tutorials' WARMUP_STEPS), then steps for at least `seconds` (and 3 steps). */
export function measureThroughput(step: (i: number) => void, seconds: number): number {
  step(0);
  step(1);
  let i = 2;
  const start = performance.now();
  while (i - 2 < 3 || performance.now() - start < seconds * 1000) step(i++);
  return (i - 2) / ((performance.now() - start) / 1000);
}

/** Median milliseconds of fn over at least 5 calls and `seconds` (after one warm-up call). */
export function medianMs(fn: () => void, seconds: number): number {
  fn();
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < 5 || performance.now() - start < seconds * 1000) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

/** Prints a header row and rows of text cells, the first column left-aligned. */
export function printCells(rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  rows.forEach((r, i) => {
    console.log("  " + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("   "));
    if (i === 0) console.log("  " + widths.map((w) => "-".repeat(w)).join("   "));
  });
}

/** Prints rows of [label, seed trn1 iter/s or null, ours iter/s] as a table. */
export function printTable(title: string, rows: [string, number | null, number][]): void {
  console.log(`\n${title}`);
  printCells([["", "trn1 NeuronCore (seed)", "gpsimd, this machine"],
    ...rows.map(([label, seed, ours]) => [label, seed === null ? "—" : seed.toFixed(1), ours.toFixed(1)])]);
  console.log("  The seed's numbers are a device (trn1); ours are wall time of the gpsimd emulator (WebAssembly on this machine's CPUs).");
}

/** An MLP's parameters as plain arrays, for the TypeScript reference. */
export function plainLayers(mlp: Mlp): PlainLayer[] {
  return mlp.layers.map((l) => ({
    weight: l.weight.data() as Float32Array,
    bias: l.bias.data() as Float32Array,
    inputs: l.weight.size(0),
    outputs: l.weight.size(1),
  }));
}

/** Largest |a[i] - b[i]|. */
export function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`maxDifference: ${a.length} values against ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** The value after a command-line flag (--name value), or undefined. */
export function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
