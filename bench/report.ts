// Turns saved results into tables: one per suite (each variant's time and its
// speed relative to the workload's baseline and to its fastest variant), and
// the project's performance targets beside the measured figures.
import { UNCHECKED_BUILD } from "./unchecked-build.js";
import { splitCase, type FloorRounds, type SuiteResults, type WorkloadInfo } from "./results.js";
import { formatTime, formatMicros, formatRatio, formatNs, formatChange } from "./format.js";
import type { Table } from "./table.js";

/** Seconds per call of every case in a suite: the median of benny's samples. */
export function secondsByCase(r: SuiteResults): Map<string, number> {
  return new Map(r.benny.results.map((c) => [c.name, c.details.median]));
}

function variantsOf(w: WorkloadInfo): string[] {
  return Object.keys(w.maxError);
}

/** Every case of a suite: time, ns/element, speed vs baseline and vs fastest, latency percentiles if measured. */
function casesTable(r: SuiteResults): Table {
  const seconds = secondsByCase(r);
  const withLatency = Object.keys(r.meta.latency).length > 0;
  const withElements = r.meta.workloads.some((w) => w.elements !== null);
  const headers = ["workload", "variant", "time/call", ...(withElements ? ["ns/element"] : []), "vs baseline", "vs fastest", ...(withLatency ? ["median", "p90", "p99"] : [])];
  const rows: string[][] = [];
  for (const w of r.meta.workloads) {
    const names = variantsOf(w);
    const times = names.map((v) => seconds.get(`${w.name}/${v}`) ?? NaN);
    const base = seconds.get(`${w.name}/${w.baseline}`) ?? NaN;
    const fastest = Math.min(...times.filter(Number.isFinite));
    names.forEach((v, i) => {
      const t = times[i];
      const l = r.meta.latency[`${w.name}/${v}`];
      rows.push([
        i === 0 ? w.name : "", v === w.baseline ? `${v} (baseline)` : v, formatTime(t),
        ...(withElements ? [w.elements ? formatNs((t * 1e9) / w.elements) : ""] : []),
        formatRatio(base / t), formatRatio(fastest / t),
        ...(withLatency ? (l ? [formatMicros(l.p50), formatMicros(l.p90), formatMicros(l.p99)] : ["", "", ""]) : []),
      ]);
    });
  }
  const align = headers.map((_, c) => (c < 2 ? "l" : "r") as "l" | "r");
  return { headers, rows, align };
}

/** Paired workloads (two settings of one kernel): one row each, with both times and their ratio. */
function pairedTable(r: SuiteResults): Table {
  const seconds = secondsByCase(r);
  const rows = r.meta.workloads.map((w) => {
    const p = r.meta.paired[w.name];
    const [a, b] = variantsOf(w);
    const ta = seconds.get(`${w.name}/${a}`) ?? NaN, tb = seconds.get(`${w.name}/${b}`) ?? NaN;
    return [w.name, formatTime(ta), formatTime(tb), formatChange(ta / tb), p ? `${formatChange(p.ratio)} (${formatChange(p.low)} .. ${formatChange(p.high)})` : ""];
  });
  const [a, b] = variantsOf(r.meta.workloads[0]);
  return { headers: ["workload", a, b, `${a} vs ${b}`, "alternating bursts: median (range)"], rows, align: ["l", "r", "r", "r", "l"] };
}

/** A suite that times no cases itself (build): what its finish() found, one line a row. */
function findingsTable(r: SuiteResults): Table {
  return { headers: ["findings"], rows: (r.meta.findings ?? []).filter((l) => l.trim()).map((l) => [l]), align: ["l"] };
}

/** The table of one suite. */
export function suiteTable(r: SuiteResults): Table {
  if (r.meta.workloads.length === 0) return findingsTable(r);
  return r.meta.workloads.every((w) => r.meta.paired[w.name]) ? pairedTable(r) : casesTable(r);
}

/** A target, its goal, and how to measure it from the results. */
interface Target {
  name: string;
  goal: string;
  measure(find: Finder): { value: string; met: boolean } | null;
}

/** Looks up figures across suites. */
interface Finder {
  seconds(suite: string, caseName: string): number | undefined;
  elements(suite: string, workload: string): number | undefined;
  latency(suite: string, caseName: string): { p50: number; p99: number } | undefined;
  results(suite: string): SuiteResults | undefined;
  /** Floors and kernels of one workload timed in interleaved rounds. */
  floors(suite: string, workload: string): FloorRounds | undefined;
}

function nsPerElement(find: Finder, suite: string, caseName: string): number | undefined {
  const s = find.seconds(suite, caseName), n = find.elements(suite, splitCase(caseName)[0]);
  return s !== undefined && n !== undefined ? (s * 1e9) / n : undefined;
}

function atMost(value: number | undefined, limit: number, show: (v: number) => string): { value: string; met: boolean } | null {
  return value === undefined ? null : { value: show(value), met: value <= limit };
}

/** time(variant) / time(floor) over the interleaved rounds of one workload, at most `limit`. */
function floorRatio(suite: string, workload: string, variant: string, floor: string, limit: number, extra?: (f: FloorRounds, ratio: number) => string) {
  return (find: Finder) => {
    const f = find.floors(suite, workload);
    const r = f?.ratios[`${variant}/${floor}`];
    if (!f || !r) return null;
    return { value: `${formatRatio(r.ratio)} (rounds ${formatRatio(r.low)} .. ${formatRatio(r.high)})${extra ? `; ${extra(f, r.ratio)}` : ""}`, met: r.ratio <= limit };
  };
}

/** Threads the core pool used in that run (the default: every CPU). */
function threadsOf(find: Finder, suite: string): number {
  return find.results(suite)?.meta.environment.cpus ?? 1;
}

/** The ReLU sizes with floor targets: about 2^20 (999 x 1001, not a multiple of 8 or 1024) and 2^24. */
const RELU_FLOOR_SIZES = [["≈2^20", "relu-fwd-999x1001"], ["2^24", "relu-fwd-4096x4096"]] as const;

/** The speed targets: ratios to floors measured in the same run (bench/floors/), never to constants. */
export const TARGETS: Target[] = [
  { name: "W1 giou_tcm / plain-wasm floor, 1 thread", goal: "≤ 1.4x", measure: floorRatio("giou", "giou", "tcm", "wasm-1t", 1.4) },
  {
    name: "W1 giou_multicore on this machine's threads / plain-wasm floor, 1 thread", goal: "≤ 0.8x (2 threads)",
    measure: (find) => floorRatio("giou", "giou", "multicore-tcm", "wasm-1t", 0.8, (_, ratio) => {
      const threads = threadsOf(find, "giou");
      return `${threads} threads; at the same per-thread rate 8 threads would give ${formatRatio((ratio * threads) / 8)}`;
    })(find),
  },
  {
    name: "W1 GIOU, the seed's C++ kernel (scalar loop, clang) against the v128 AssemblyScript one, one core (giou-cpp-1core, alternating bursts)", goal: "≤ 1.6x (issue 12)",
    measure: (f) => {
      const p = f.results("giou")?.meta.paired["giou-cpp-1core"];
      return p ? { value: `${formatRatio(1 / p.ratio)} (rounds ${formatRatio(1 / p.high)} .. ${formatRatio(1 / p.low)})`, met: 1 / p.ratio <= 1.6 } : null;
    },
  },
  ...RELU_FLOOR_SIZES.flatMap(([label, workload]): Target[] => [
    { name: `W2 ReLU TCM ${label} (${workload}) / plain-wasm floor`, goal: "≤ 1.2x", measure: floorRatio("relu", workload, "tcm", "wasm-1t", 1.2) },
    { name: `W2 ReLU TCM ${label} (${workload}) / native C -O3, 128-bit SIMD`, goal: "≤ 1.3x", measure: floorRatio("relu", workload, "tcm", "c-128bit", 1.3) },
  ]),
  {
    name: "checks on vs off, every pair incl. multicore (checks suite, worst pair)", goal: "≤ 10 % slower",
    measure: (f) => {
      const r = f.results("checks");
      const pairs = Object.entries(r?.meta.paired ?? {}).filter(([w]) => !w.endsWith("-elementwise") && !w.endsWith(UNCHECKED_BUILD));
      if (pairs.length === 0) return null;
      const [name, worst] = pairs.reduce((a, b) => (b[1].ratio > a[1].ratio ? b : a));
      return { value: `${formatChange(worst.ratio)} (${name})`, met: worst.ratio <= 1.1 };
    },
  },
  {
    name: "default checks (raw TCM reads and stores checked too) vs a build without those checks, checks off: W1 giou_tcm and giou_multicore, ReLU TCM (checks suite, worst pair)",
    goal: "≤ 15 % slower (issue 20)",
    measure: (f) => {
      const pairs = Object.entries(f.results("checks")?.meta.paired ?? {}).filter(([w]) => w.endsWith(UNCHECKED_BUILD));
      if (pairs.length === 0) return null;
      const [name, worst] = pairs.reduce((a, b) => (b[1].ratio > a[1].ratio ? b : a));
      const gap = worst.ratio <= 1.15 ? "" : `; ${formatChange(worst.ratio / 1.15)} over the goal`;
      return { value: `${formatChange(worst.ratio)} (${name}; ${pairs.map(([w, p]) => `${w} ${formatRatio(p.ratio)}`).join(", ")})${gap}`, met: worst.ratio <= 1.15 };
    },
  },
  {
    name: "NKI checks on vs off at large shapes (nki-checks suite: tensor add 4096 x 4096 on a grid, tiled matmul 1024^3; worst pair)", goal: "≤ 1.3x (issue 21)",
    measure: (f) => {
      const pairs = Object.entries(f.results("nki-checks")?.meta.paired ?? {});
      if (pairs.length === 0) return null;
      const [name, worst] = pairs.reduce((a, b) => (b[1].ratio > a[1].ratio ? b : a));
      return { value: `${formatRatio(worst.ratio)} (${name}; ${pairs.map(([w, p]) => `${w} ${formatRatio(p.ratio)}`).join(", ")})`, met: worst.ratio <= 1.3 };
    },
  },
  {
    name: "element-wise accessor with checks on, any write order (checks suite: copy2d and transpose2d, 2 accesses per element; the worse)", goal: "≤ 5 ns per access",
    measure: (f) => {
      const per = ["copy2d", "transpose2d"].map((k) => nsPerElement(f, "checks", `${k}-elementwise/checks-on`));
      if (per.some((v) => v === undefined)) return null;
      const [inOrder, outOfOrder] = per.map((v) => v! / 2);
      return atMost(Math.max(inOrder, outOfOrder), 5, () => `in order ${formatNs(inOrder)} ns, out of order ${formatNs(outOfOrder)} ns per access`);
    },
  },
  {
    name: "runtime overhead of a tiny single-core call: ReLU of 256 floats, median latency minus its plain-wasm floor", goal: "≤ 3 µs",
    measure: (f) => {
      const l = f.latency("launch", "tiny-relu-256/tcm"), floor = f.floors("launch", "tiny-relu-256")?.seconds["wasm-1t"];
      return l === undefined || floor === undefined ? null : atMost(l.p50 - floor * 1e6, 3, (v) => `${formatMicros(v)} (call ${formatMicros(l.p50)}, floor ${formatMicros(floor * 1e6)})`);
    },
  },
  { name: "empty 8-core launch, sync, median (own loop)", goal: "≤ 15 µs", measure: (f) => atMost(f.latency("launch", "launch-sync/multicore-8cores")?.p50, 15, formatMicros) },
  { name: "empty 8-core launch, sync, p99 (own loop)", goal: "≤ 100 µs", measure: (f) => atMost(f.latency("launch", "launch-sync/multicore-8cores")?.p99, 100, formatMicros) },
  {
    name: "empty 8-core launch, .async, median and p99 (own loop)", goal: "recorded",
    measure: (f) => {
      const l = f.latency("launch", "launch-async/multicore-8cores");
      return l ? { value: `${formatMicros(l.p50)}, p99 ${formatMicros(l.p99)}`, met: true } : null;
    },
  },
  {
    name: "W1 multicore speed-up over the same kernel on one core (giou-scaling, alternating bursts)", goal: "recorded (2 threads)",
    measure: (f) => {
      const p = f.results("giou")?.meta.paired["giou-scaling"];
      return p ? { value: `${formatRatio(p.ratio)} (rounds ${formatRatio(p.low)} .. ${formatRatio(p.high)})`, met: true } : null;
    },
  },
  {
    name: "W3 MLP inference, TCM multicore ReLU vs TF.js wasm (mlp-w3-paired)", goal: "≥ 1.5x the iter/s",
    measure: (f) => {
      const p = f.results("mlp")?.meta.paired["mlp-w3-paired"];
      return p ? { value: `${formatRatio(1 / p.ratio)} the iter/s`, met: 1 / p.ratio >= 1.5 } : null;
    },
  },
];

/** Finder over the saved results of several suites. */
export function finder(all: SuiteResults[]): Finder {
  const bySuite = new Map(all.map((r) => [r.meta.suite, r]));
  return {
    seconds: (suite, caseName) => bySuite.get(suite)?.benny.results.find((c) => c.name === caseName)?.details.median,
    elements: (suite, workload) => bySuite.get(suite)?.meta.workloads.find((w) => w.name === workload)?.elements ?? undefined,
    latency: (suite, caseName) => bySuite.get(suite)?.meta.latency[caseName],
    results: (suite) => bySuite.get(suite),
    floors: (suite, workload) => bySuite.get(suite)?.meta.floors[workload],
  };
}

/** The targets with what the results show ("—" where a suite has not run). */
export function targetsTable(all: SuiteResults[]): Table {
  const find = finder(all);
  const rows = TARGETS.map((t) => {
    const m = t.measure(find);
    return [t.name, t.goal, m ? m.value : "—", m ? (m.met ? "yes" : "NO") : "not run"];
  });
  // Targets suites measured themselves (the build suite's processes), as they saved them.
  for (const r of all) for (const t of r.meta.targets ?? []) rows.push([t.name, t.goal, t.value, t.met ? "yes" : "NO"]);
  return { headers: ["target", "goal", "measured", "met"], rows, align: ["l", "l", "l", "l"] };
}
