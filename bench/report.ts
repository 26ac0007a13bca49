// Turns saved results into tables: one per suite (each variant's time and its
// speed relative to the workload's baseline and to its fastest variant), and
// the project's performance targets beside the measured figures.
import { splitCase, type SuiteResults, type WorkloadInfo } from "./results.js";
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

/** The table of one suite. */
export function suiteTable(r: SuiteResults): Table {
  return r.meta.workloads.length > 0 && r.meta.workloads.every((w) => r.meta.paired[w.name]) ? pairedTable(r) : casesTable(r);
}

/** Native C figures on the project's machine kind (2 vCPUs, Zen 4), ns/element, from the project's performance notes. */
const NATIVE_C = { relu1Thread2p20: 0.087, relu1Thread2p24: 0.335, relu2Threads2p24: 0.287 };

/** Accesses per box pair in the element-wise GIOU kernel: 8 reads and 1 write. */
const GIOU_ACCESSES_PER_PAIR = 9;

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
}

function nsPerElement(find: Finder, suite: string, caseName: string): number | undefined {
  const s = find.seconds(suite, caseName), n = find.elements(suite, splitCase(caseName)[0]);
  return s !== undefined && n !== undefined ? (s * 1e9) / n : undefined;
}

function atMost(value: number | undefined, limit: number, show: (v: number) => string): { value: string; met: boolean } | null {
  return value === undefined ? null : { value: show(value), met: value <= limit };
}

function versusC(nsLimit: number, c: number, caseName: string, suite = "relu") {
  return (find: Finder) => {
    const ns = nsPerElement(find, suite, caseName);
    return atMost(ns, nsLimit * c, (v) => `${formatNs(v)} ns/element = ${formatRatio(v / c)} C`);
  };
}

/** The speed targets for W1, W2, launch and checks. */
export const TARGETS: Target[] = [
  { name: "W1 GIOU multicore, 8 logical cores (giou/multicore-tcm)", goal: "≤ 0.22 ms", measure: (f) => atMost(f.seconds("giou", "giou/multicore-tcm"), 0.22e-3, formatTime) },
  {
    name: "W1 GIOU multicore against the fused TS loop", goal: "≥ 40x faster",
    measure: (f) => {
      const mc = f.seconds("giou", "giou/multicore-tcm"), fused = f.seconds("giou", "giou/fused-ts");
      return mc === undefined || fused === undefined ? null : { value: `${formatRatio(fused / mc)} faster`, met: fused / mc >= 40 };
    },
  },
  {
    name: "W1 GIOU multicore speed-up over the same kernel on one core (giou-scaling, alternating bursts)", goal: "≥ 1.7x (issue 3)",
    measure: (f) => {
      const p = f.results("giou")?.meta.paired["giou-scaling"];
      return p ? { value: `${formatRatio(p.ratio)} (rounds ${formatRatio(p.low)} .. ${formatRatio(p.high)})`, met: p.ratio >= 1.7 } : null;
    },
  },
  {
    name: "W1 GIOU, the seed's C++ kernel (scalar loop, clang) against the v128 AssemblyScript one, one core (giou-cpp-1core, alternating bursts)", goal: "≤ 1.6x (issue 12)",
    measure: (f) => {
      const p = f.results("giou")?.meta.paired["giou-cpp-1core"];
      return p ? { value: `${formatRatio(1 / p.ratio)} (rounds ${formatRatio(1 / p.high)} .. ${formatRatio(1 / p.low)})`, met: 1 / p.ratio <= 1.6 } : null;
    },
  },
  { name: "W1 GIOU, one core (giou/tcm)", goal: "≤ 0.40 ms", measure: (f) => atMost(f.seconds("giou", "giou/tcm"), 0.40e-3, formatTime) },
  { name: "W2 ReLU TCM, one core, 2^20 (relu-fwd-999x1001/tcm)", goal: `≤ 2.0x native C 1 thread (${NATIVE_C.relu1Thread2p20} ns/element)`, measure: versusC(2.0, NATIVE_C.relu1Thread2p20, "relu-fwd-999x1001/tcm") },
  { name: "W2 ReLU TCM, one core, 2^24 (relu-fwd-4096x4096/tcm)", goal: `≤ 1.3x native C 1 thread (${NATIVE_C.relu1Thread2p24} ns/element)`, measure: versusC(1.3, NATIVE_C.relu1Thread2p24, "relu-fwd-4096x4096/tcm") },
  { name: "W2 ReLU TCM multicore, 2^24 (relu-fwd-4096x4096/multicore-tcm)", goal: `≤ 1.3x native C 2 threads (${NATIVE_C.relu2Threads2p24} ns/element)`, measure: versusC(1.3, NATIVE_C.relu2Threads2p24, "relu-fwd-4096x4096/multicore-tcm") },
  {
    name: "element-wise accessor, checked (giou/elementwise: 9 accesses per pair)", goal: "≤ 3 ns per access",
    measure: (f) => {
      const ns = nsPerElement(f, "giou", "giou/elementwise");
      return atMost(ns === undefined ? undefined : ns / GIOU_ACCESSES_PER_PAIR, 3, (v) => `${formatNs(v)} ns per access`);
    },
  },
  { name: "empty multicore launch, 8 logical cores, median (launch-sync/multicore-8cores)", goal: "≤ 15 µs", measure: (f) => atMost(f.latency("launch", "launch-sync/multicore-8cores")?.p50, 15, formatMicros) },
  { name: "empty multicore launch, 8 logical cores, p99", goal: "≤ 100 µs", measure: (f) => atMost(f.latency("launch", "launch-sync/multicore-8cores")?.p99, 100, formatMicros) },
  {
    name: "checks on vs off, W1 and W2 TCM kernels (checks suite, worst pair)", goal: "≤ 10 % slower",
    measure: (f) => {
      const r = f.results("checks");
      const pairs = Object.entries(r?.meta.paired ?? {}).filter(([w]) => !w.endsWith("-elementwise"));
      if (pairs.length === 0) return null;
      const [name, worst] = pairs.reduce((a, b) => (b[1].ratio > a[1].ratio ? b : a));
      return { value: `${formatChange(worst.ratio)} (${name})`, met: worst.ratio <= 1.1 };
    },
  },
  {
    name: "W3 MLP inference, TCM multicore ReLU vs TF.js wasm (mlp-w3-paired)", goal: "≥ 1.2x the iter/s",
    measure: (f) => {
      const p = f.results("mlp")?.meta.paired["mlp-w3-paired"];
      return p ? { value: `${formatRatio(1 / p.ratio)} the iter/s`, met: 1 / p.ratio >= 1.2 } : null;
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
  };
}

/** The targets with what the results show ("—" where a suite has not run). */
export function targetsTable(all: SuiteResults[]): Table {
  const find = finder(all);
  const rows = TARGETS.map((t) => {
    const m = t.measure(find);
    return [t.name, t.goal, m ? m.value : "—", m ? (m.met ? "yes" : "NO") : "not run"];
  });
  return { headers: ["target", "goal", "measured", "met"], rows, align: ["l", "l", "l", "l"] };
}
