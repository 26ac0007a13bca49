// Runs one suite: checks every variant against its workload's reference, times
// every case with benny (saving its JSON and chart under bench/results/),
// then takes the measurements benny does not make (per-call latency
// percentiles, paired ratios) and saves them beside benny's file.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import b from "benny";
import type { Options } from "benny/lib/internal/common-types.js";
import { PACKAGE_ROOT } from "../ops/index.js";
import { verifyOutput } from "./verify.js";
import { quantile, median } from "./stats.js";
import { formatTime } from "./format.js";
import { settle } from "./settle.js";
import { medianCallMicros, inProcessFloor } from "./call-timing.js";
import { renderChart } from "./chart.js";
import { RESULTS_DIR, environment, writeMeta, readResults, resultPath, type FloorRounds, type Latency, type Paired, type RoundRatio, type SuiteMeta, type WorkloadInfo } from "./results.js";
import type { Floor, Output, Scope, Suite, Variant, Workload } from "./suite.js";

/** A variant ready to time. */
interface Case {
  name: string;
  workload: Workload;
  variant: Variant;
  async: boolean;
  /** One call, output released: what benny times. */
  timed: () => void | Promise<void>;
}

/** Seconds per call, by case name, from benny's samples. */
type Medians = Map<string, number>;

/** gpsimd's version, recorded in benny's file. */
const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;

function values(o: Output): Float32Array {
  return o instanceof Float32Array ? o : (o.data() as Float32Array);
}

function release(o: Output): void {
  if (!(o instanceof Float32Array)) o.dispose();
}

async function callOnce(c: Case): Promise<void> {
  release(c.async ? await c.variant.run() : (c.variant.run() as Output));
}

/** Runs each variant once, compares its output with the reference, and returns the cases ready to time. */
async function verify(workloads: Workload[]): Promise<{ cases: Case[]; infos: WorkloadInfo[] }> {
  const cases: Case[] = [];
  const infos: WorkloadInfo[] = [];
  for (const w of workloads) {
    const maxError: Record<string, number> = {};
    for (const v of w.variants) {
      const name = `${w.name}/${v.name}`;
      v.prepare?.();
      const first = v.run();
      const isAsync = first instanceof Promise;
      const out = await first;
      try {
        maxError[v.name] = verifyOutput(name, values(out), w.reference, w.tolerance);
      } finally {
        release(out);
      }
      const run = v.run;
      const timed = isAsync ? async () => { release(await run()); } : () => { release(run() as Output); };
      cases.push({ name, workload: w, variant: v, async: isAsync, timed });
    }
    infos.push({ name: w.name, title: w.title, baseline: w.baseline ?? w.variants[0].name, elements: w.elements ?? null, tolerance: w.tolerance, maxError });
  }
  return { cases, infos };
}

/** Times every case with benny; saves <suite>.json (benny's own chart page loads Chart.js from a CDN: chart.ts draws ours). */
async function time(suite: Suite, cases: Case[]): Promise<{ medians: Medians; date: string }> {
  // benny's suite never settles without a case, and a pending top-level await ends the process silently: a suite that
  // measures everything itself (build) would end the whole run there, before the summary and the later suites.
  // Its (empty) benny file is still written: the saved results are that file and the meta file of the same run.
  if (!cases.length) {
    const date = new Date().toISOString();
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(resultPath(suite.name, "json"), JSON.stringify({ name: suite.name, date, version: PACKAGE_VERSION, results: [] }, null, 2) + "\n");
    return { medians: new Map(), date };
  }
  const options: Options = { maxTime: suite.maxTime ?? 1.5, minSamples: 5 };
  const medians: Medians = new Map();
  const summary = await b.suite(
    suite.name,
    b.configure({ minDisplayPrecision: 2 }),
    ...cases.map((c, i) => b.add(c.name, c.timed, {
      ...options,
      // benchmark.js turns on* options into event handlers: this runs when the case starts.
      onStart: () => {
        c.variant.prepare?.();
        process.stdout.write(`  [${i + 1}/${cases.length}] ${c.name} `);
      },
    } as Options)),
    b.cycle((result) => {
      medians.set(result.name, result.details.median);
      const ops = result.ops >= 100 ? Math.round(result.ops).toLocaleString("en-US") : result.ops.toFixed(2);
      process.stdout.write(`${formatTime(result.details.median)}/call (median of ${result.samples} samples), ${ops} ops/s ±${result.margin}%\n`);
      return undefined;
    }),
    b.save({ file: suite.name, folder: RESULTS_DIR, version: PACKAGE_VERSION, details: true }),
  );
  return { medians, date: summary.date.toISOString() };
}

/** Times `calls` single calls with performance.now(): median, p90, p99 and mean in microseconds. */
async function latency(c: Case, calls: number): Promise<Latency> {
  c.variant.prepare?.();
  for (let i = 0; i < Math.min(1000, calls / 10); i++) await callOnce(c);
  const t = new Float64Array(calls);
  // Sync calls are timed without an await, which would add a microtask turn to each.
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    if (c.async) release(await c.variant.run());
    else release(c.variant.run() as Output);
    t[i] = (performance.now() - start) * 1e3;
  }
  const sorted = Array.from(t).sort((x, y) => x - y);
  return { calls, p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99), mean: sorted.reduce((s, x) => s + x, 0) / calls };
}

/** Seconds per call over a burst of `calls` calls. */
async function burst(c: Case, calls: number): Promise<number> {
  c.variant.prepare?.();
  const start = performance.now();
  for (let i = 0; i < calls; i++) await callOnce(c);
  return (performance.now() - start) / 1e3 / calls;
}

/**
 * Alternating bursts of a and b (~25 ms each, order swapped every round): median and range of time(a) / time(b).
 * Bursts run back to back: unlike the floor rounds' subjects, a and b share the pool's threads, and each round's two
 * bursts follow a burst of the same variant, so neither side starts beside the other's spinning threads. With
 * `settled`, each burst waits for the threads to sleep first (settle.ts); bench/paired-fairness.ts compares the two
 * (checks on against itself, multicore: medians 0.99-1.01 either way, the scatter no smaller settled at load 4-6).
 */
export async function paired(a: Case, b: Case, secondsPerCall: number, rounds = 20, settled = false): Promise<Paired> {
  const calls = Math.max(1, Math.min(10_000, Math.round(0.025 / secondsPerCall)));
  const ratios: number[] = [];
  const timed = async (c: Case) => { if (settled) await settle(); return burst(c, calls); };
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      const ta = await timed(a);
      ratios.push(ta / await timed(b));
    } else {
      const tb = await timed(b);
      ratios.push(await timed(a) / tb);
    }
  }
  return { a: a.variant.name, b: b.variant.name, ratio: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios), rounds };
}

/** Calls in a burst of about `seconds` for something that takes `perCall` seconds. */
function callsFor(perCall: number, seconds = 0.025): number {
  return Math.max(1, Math.min(100_000, Math.round(seconds / Math.max(perCall, 1e-9))));
}

function ratioOf(values: number[]): RoundRatio {
  return { ratio: median(values), low: Math.min(...values), high: Math.max(...values) };
}

/**
 * Times the floors and the kernel variants in interleaved rounds: each round
 * runs a ~25 ms burst of every one of them in turn (the order rotating), so a
 * slow phase of the machine hits floors and kernels alike and their per-round
 * ratios stay meaningful. A burst's figure is its median call (call-timing.ts).
 * Each burst starts once the threads of the one before have stopped spinning
 * (settle.ts).
 */
async function floorRounds(floors: Floor[], variants: Case[], medians: Medians, rounds = 10): Promise<FloorRounds> {
  type Timed = { name: string; calls: number; burst: () => Promise<number> };
  const timed: Timed[] = [];
  // Each burst's figure is its median call (call-timing.ts), for the kernels and the in-process floors; a native floor
  // times its own loop in a process of its own, so its burst is one run of that program and its mean.
  for (const f of floors) {
    const once = await f.burst(1), calls = callsFor(once);
    timed.push({ name: f.name, calls, burst: inProcessFloor(f.name) ? async () => (await medianCallMicros(calls, () => f.burst(1))) / 1e6 : async () => f.burst(calls) });
  }
  for (const c of variants) {
    const calls = callsFor(medians.get(c.name) ?? 1e-3);
    timed.push({ name: c.variant.name, calls, burst: async () => { c.variant.prepare?.(); return (await medianCallMicros(calls, () => callOnce(c))) / 1e6; } });
  }
  const samples = new Map<string, number[]>(timed.map((t) => [t.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < timed.length; k++) {
      const t = timed[(k + r) % timed.length];
      await settle();
      samples.get(t.name)!.push(await t.burst());
    }
  }
  const seconds: Record<string, number> = {};
  for (const [name, s] of samples) seconds[name] = median(s);
  const ratios: Record<string, RoundRatio> = {};
  for (const c of variants) {
    for (const f of floors) {
      const v = samples.get(c.variant.name)!, fl = samples.get(f.name)!;
      ratios[`${c.variant.name}/${f.name}`] = ratioOf(v.map((x, i) => x / fl[i]));
    }
  }
  return { rounds, titles: Object.fromEntries(floors.map((f) => [f.name, f.title])), seconds, ratios };
}

/** Runs a suite end to end and saves its results. Throws VerificationError (nothing timed) if a variant is wrong. */
export async function runSuite(suite: Suite): Promise<void> {
  const env = environment();
  console.log(`\n== ${suite.name}: ${suite.title}`);
  for (const note of suite.notes) console.log(`   ${note}`);
  const endings: (() => void)[] = [];
  const scope: Scope = {
    keep: (x) => { endings.push(() => x.dispose()); return x; },
    atEnd: (fn) => { endings.push(fn); },
  };
  try {
    const workloads = await suite.setup(scope);
    const { cases, infos } = await verify(workloads);
    console.log(`   verified ${cases.length} cases against their references`);
    const { medians, date } = await time(suite, cases);
    const meta: SuiteMeta = { suite: suite.name, title: suite.title, notes: suite.notes, environment: env, bennyDate: date, workloads: infos, latency: {}, paired: {}, floors: {} };
    for (const w of workloads) {
      const own = cases.filter((c) => c.workload === w);
      if (w.latencyCalls) {
        for (const c of own) {
          process.stdout.write(`  latency ${c.name} (${w.latencyCalls} calls) `);
          const l = meta.latency[c.name] = await latency(c, w.latencyCalls);
          process.stdout.write(`median ${l.p50.toFixed(1)} µs, p90 ${l.p90.toFixed(1)} µs, p99 ${l.p99.toFixed(1)} µs\n`);
        }
      }
      if (w.paired) {
        if (own.length !== 2) throw new Error(`${suite.name}: workload ${w.name} is paired but has ${own.length} variants (2 needed)`);
        process.stdout.write(`  paired ${own[0].name} vs ${own[1].variant.name} `);
        const p = meta.paired[w.name] = await paired(own[0], own[1], medians.get(own[0].name) ?? 1e-3);
        process.stdout.write(`time ratio ${p.ratio.toFixed(3)} (rounds from ${p.low.toFixed(3)} to ${p.high.toFixed(3)})\n`);
      }
      if (w.floors?.length) {
        const chosen = own.filter((c) => (w.floorVariants ?? own.map((o) => o.variant.name)).includes(c.variant.name));
        process.stdout.write(`  floors ${w.name}: ${w.floors.map((f) => f.name).join(", ")} against ${chosen.map((c) => c.variant.name).join(", ")} `);
        const f = meta.floors[w.name] = await floorRounds(w.floors, chosen, medians);
        process.stdout.write(`(${f.rounds} interleaved rounds)\n`);
        for (const [name, s] of Object.entries(f.seconds)) process.stdout.write(`    ${name.padEnd(16)} ${formatTime(s)}/call\n`);
        for (const [name, r] of Object.entries(f.ratios)) process.stdout.write(`    ${name.padEnd(28)} ${r.ratio.toFixed(2)}x (rounds ${r.low.toFixed(2)} .. ${r.high.toFixed(2)})\n`);
      }
    }
    if (suite.finish) {
      meta.findings = await suite.finish(meta);
      for (const line of meta.findings) console.log(`  ${line}`);
    }
    writeMeta(meta);
    const saved = readResults(suite.name);
    if (saved) writeFileSync(resultPath(suite.name, "html"), renderChart(saved));
  } finally {
    for (const end of endings.reverse()) end();
  }
}
