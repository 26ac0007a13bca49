// Where a kernel's time goes, from one `npm run bench` (all suites' saved
// results): the launch (the empty kernel's median latency) and the checks
// (checks on minus off, from the alternating-burst pair) are taken out; what
// is left, the kernel's own time, is set beside its floors: the arithmetic as
// plain wasm and the copies as memcpy. The floors are not added up: the
// arithmetic floor already streams its data, so the two overlap; the kernel's
// own time lies between the larger floor (everything overlapped) and their sum
// (nothing overlapped). `node dist/bench/breakdown.js [dir]` prints Markdown.
import { pathToFileURL } from "node:url";
import { readResults, RESULTS_DIR, type SuiteResults } from "./results.js";
import { secondsByCase } from "./report.js";
import { formatMicros } from "./format.js";
import { toMarkdown, type Table } from "./table.js";

/** A kernel to break down: where its time, floors, checks pair and launch come from. */
interface Subject {
  label: string;
  suite: string;
  caseName: string;
  workload: string;
  variant: string;
  /** The checks suite's paired workload for the same kernel. */
  checksPair: string;
  /** The launch suite's case for an empty launch of the same kind. */
  launch: string;
  /** The arithmetic floor: one thread, or split over the machine's threads (multicore). */
  arithmetic: "wasm-1t" | `wasm-${number}t`;
  /** Threads the copies are spread over. */
  copyThreads: number;
}

function subjects(threads: number): Subject[] {
  const multi = `wasm-${threads}t` as const;
  return [
    { label: "W1 giou_tcm (one core)", suite: "giou", caseName: "giou/tcm", workload: "giou", variant: "tcm", checksPair: "giou-tcm", launch: "launch-sync/single-core", arithmetic: "wasm-1t", copyThreads: 1 },
    { label: `W1 giou_multicore (8 cores on ${threads} threads)`, suite: "giou", caseName: "giou/multicore-tcm", workload: "giou", variant: "multicore-tcm", checksPair: "giou-multicore-tcm", launch: "launch-sync/multicore-8cores", arithmetic: threads > 1 ? multi : "wasm-1t", copyThreads: threads },
    { label: "W2 relu_tcm forward, 999 x 1001", suite: "relu", caseName: "relu-fwd-999x1001/tcm", workload: "relu-fwd-999x1001", variant: "tcm", checksPair: "relu-fwd-999x1001-tcm", launch: "launch-sync/single-core", arithmetic: "wasm-1t", copyThreads: 1 },
    { label: "W2 relu_tcm forward, 4096 x 4096", suite: "relu", caseName: "relu-fwd-4096x4096/tcm", workload: "relu-fwd-4096x4096", variant: "tcm", checksPair: "relu-fwd-4096x4096-tcm", launch: "launch-sync/single-core", arithmetic: "wasm-1t", copyThreads: 1 },
    { label: `W2 relu_multicore forward, 4096 x 4096 (${threads} threads)`, suite: "relu", caseName: "relu-fwd-4096x4096/multicore-tcm", workload: "relu-fwd-4096x4096", variant: "multicore-tcm", checksPair: "relu-fwd-4096x4096-multicore-tcm", launch: "launch-sync/multicore-8cores", arithmetic: threads > 1 ? multi : "wasm-1t", copyThreads: threads },
  ];
}

/** The breakdown table; rows whose suites did not run are left out. */
export function breakdownTable(all: SuiteResults[]): Table {
  const by = new Map(all.map((r) => [r.meta.suite, r]));
  const threads = all[0]?.meta.environment.cpus ?? 1;
  const rows: string[][] = [];
  for (const s of subjects(threads)) {
    const r = by.get(s.suite), checks = by.get("checks"), launch = by.get("launch");
    const floors = r?.meta.floors[s.workload];
    if (!r || !floors || !checks || !launch) continue;
    // The kernel's time from the floor rounds (timed beside its floors), in µs.
    const total = (floors.seconds[s.variant] ?? secondsByCase(r).get(s.caseName) ?? NaN) * 1e6;
    const arithmetic = (floors.seconds[s.arithmetic] ?? NaN) * 1e6;
    const copies = ((floors.seconds["memcpy"] ?? NaN) * 1e6) / s.copyThreads;
    const pair = checks.meta.paired[s.checksPair];
    const checksOff = secondsByCase(checks).get(`${s.checksPair}/checks-off`);
    const checksUs = pair && checksOff !== undefined ? (pair.ratio - 1) * checksOff * 1e6 : NaN;
    const launchUs = launch.meta.latency[s.launch]?.p50 ?? NaN;
    const own = total - checksUs - launchUs;
    const pct = (v: number) => (Number.isFinite(v) ? `${formatMicros(v)} (${((100 * v) / total).toFixed(0)} %)` : "—");
    const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : "—");
    rows.push([
      s.label, formatMicros(total), pct(launchUs), pct(checksUs), formatMicros(own), formatMicros(arithmetic), formatMicros(copies),
      x(own / Math.max(arithmetic, copies)), x(own / (arithmetic + copies)),
    ]);
  }
  return {
    headers: ["kernel", "time/call", "launch (empty kernel, median)", "checks (on - off)", "the kernel's own", "arithmetic floor (plain wasm)", "copies floor (memcpy)", "own / larger floor", "own / sum of floors"],
    rows, align: ["l", "r", "r", "r", "r", "r", "r", "r", "r"],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const dir = process.argv[2] ?? RESULTS_DIR;
  const all = ["giou", "relu", "launch", "checks"].map((s) => readResults(s, dir)).filter((r): r is SuiteResults => r !== null);
  console.log(toMarkdown(breakdownTable(all)));
}
