// Where a multicore call's time goes, per thread and per core, beside the floors of the same run: the kernel is timed
// untraced (checks on, cross-core checks off, all checks off) and traced (library.configure({ trace: true }): each
// core's span and thread, and the calling thread's steps, host/profiling/trace.ts LaunchPhases) in rounds
// interleaved with its plain-wasm floors on one thread and split over the machine's threads, so a slow phase of the
// machine hits all alike. The giou and relu suites print it (npm run bench -- giou relu).
import type { Library, Tensor, LaunchTrace } from "gpsimd";
import type { Floor } from "./suite.js";
import { median } from "./stats.js";
import { formatMicros, formatRatio } from "./format.js";
import { loadavg } from "node:os";
import { toText } from "./table.js";
import { settle } from "./settle.js";
import { medianCallMicros, inProcessFloor } from "./call-timing.js";

/** A multicore kernel to break down, with its floors. */
export interface BreakdownSubject {
  /** e.g. "W1 giou_multicore". */
  label: string;
  library: Library;
  call: () => Tensor;
  /** Output elements of one call (a core's share of the arithmetic floor is its share of them). */
  elements: number;
  /** Bytes the API makes the kernel copy per call (the memcpy floor's bytes). */
  copiedBytes: number;
  /** The workload's floors (bench/floors): wasm-1t, wasm-<n>t and memcpy are used. */
  floors: Floor[];
  /** Goals of the two ratios (issue 25): kernel / one-thread floor, kernel / split floor. */
  goals?: { oneThread: number; split: number };
  /** The same kernel on one core, for the multicore speed-up; a second pair (the C++ build) is compared with it. */
  speedups?: { label: string; single: () => Tensor; multi: () => Tensor }[];
}

/** Goal of the multicore checks' cost, checks on against off (issue 22, item 4). */
export const MULTICORE_CHECKS_GOAL = 1.10;
/** Goal: a second kernel's multicore speed-up within 10 % of the first's (issue 25, item 3). */
export const SPEEDUP_AGREEMENT_GOAL = 0.10;

/**
 * A burst's timed length (after its warm-up, call-timing.ts): about the floor rounds' (harness.ts callsFor), so that the
 * breakdown's ratios and the targets table's come from bursts alike (with 10 ms bursts W1's ratio to wasm-1t read
 * 0.98x in the breakdown against 0.82x in the floor rounds of the same run).
 */
const BURST_MS = 25;

/** Calls of `run` that take about BURST_MS (at least 1), from one timed call. */
async function burstSize(run: () => unknown): Promise<number> {
  await run();
  const start = performance.now();
  await run();
  return Math.max(1, Math.min(200, Math.round(BURST_MS / Math.max(1e-3, performance.now() - start))));
}

/** What one traced call says, in µs. */
interface CallShape {
  steps: Record<string, number>;
  threads: Map<number, { first: number; cores: number; busy: number; between: number; idleAtEnd: number }>;
  /** Per core: span (µs), bytes copied, output elements written. */
  cores: { span: number; bytes: number; elements: number }[];
}

function shapeOf(t: LaunchTrace): CallShape | null {
  const h = t.host;
  if (!h || !t.cores.length) return null;
  const us = (a: number, b: number) => (b - a) * 1e3;
  const lastEnd = Math.max(...t.cores.map((c) => c.end));
  const steps = {
    "before the launch (arguments, shape function, output)": us(t.callStart, h.publishStart),
    "publish (descriptors, watchdog; waking parked workers follows)": us(h.publishStart, h.published),
    "cores running (first published to last core done)": us(h.published, lastEnd),
    "completion seen by the calling thread": us(lastEnd, h.completeSeen),
    "reports read (statuses, mailboxes, write logs, printf)": us(h.completeSeen, h.reportsRead),
    "descriptors verified": us(h.reportsRead, h.descriptorsVerified),
    "cross-core checks (overlaps, races, gaps)": us(h.descriptorsVerified, h.checked),
    "trace and return": us(h.checked, t.callEnd),
  };
  const threads = new Map<number, { first: number; cores: number; busy: number; between: number; idleAtEnd: number }>();
  for (const thread of new Set(t.cores.map((c) => c.thread))) {
    const mine = t.cores.filter((c) => c.thread === thread).sort((a, b) => a.start - b.start);
    threads.set(thread, {
      first: us(h.published, mine[0].start), cores: mine.length,
      busy: mine.reduce((s, c) => s + us(c.start, c.end), 0),
      between: mine.slice(1).reduce((s, c, k) => s + us(mine[k].end, c.start), 0),
      idleAtEnd: us(mine[mine.length - 1].end, lastEnd),
    });
  }
  const cores = t.cores.map((c) => {
    let elements = 0;
    for (let i = 0; i + 1 < c.writes.length; i += 2) elements += c.writes[i + 1] - c.writes[i];
    return { span: us(c.start, c.end), bytes: c.counters.tcmInBytes + c.counters.tcmOutBytes, elements };
  });
  return { steps, threads, cores };
}

/** Median of each key over samples. */
function medianOf(samples: Record<string, number>[]): Record<string, number> {
  const keys = new Set(samples.flatMap((s) => Object.keys(s)));
  return Object.fromEntries([...keys].map((k) => [k, median(samples.map((s) => s[k]).filter((v) => v !== undefined))]));
}

function perRound(a: number[], b: number[]): number[] {
  return a.map((x, i) => x / b[i]);
}

function ratioText(ratios: number[]): string {
  const sorted = [...ratios].sort((x, y) => x - y);
  return `${formatRatio(median(ratios))} (rounds ${formatRatio(sorted[0])} .. ${formatRatio(sorted[sorted.length - 1])})`;
}

/** "met", or how far over its goal a ratio is. */
function verdict(value: number, goal: number): string {
  return value <= goal ? "met" : `NOT met: ${formatRatio(value / goal)} the goal`;
}

/** Times the subject and its floors in interleaved rounds; returns the lines to print. */
export async function multicoreBreakdown(s: BreakdownSubject, rounds = 20, tracedPerRound = 3): Promise<string[]> {
  const lib = s.library;
  const restore = { ...lib.options };
  const floor1 = s.floors.find((f) => f.name === "wasm-1t")!;
  const floorN = s.floors.find((f) => /^wasm-\d+t$/.test(f.name) && f.name !== "wasm-1t");
  const memcpy = s.floors.find((f) => f.name === "memcpy");
  // The kernel's own scheme with nothing of gpsimd around it (floors/index.ts: copies through a 16 KB buffer per thread).
  const tcm1 = s.floors.find((f) => f.name === "wasm-tcm-1t");
  const tcmN = s.floors.find((f) => /^wasm-tcm-\d+t$/.test(f.name) && f.name !== "wasm-tcm-1t");
  // Each kernel subject: its settings (applied once before each of its bursts, not inside the timed calls) and a call.
  type Options = Parameters<Library["configure"]>[0];
  const call = () => { s.call().dispose(); };
  const kernels: [string, Options | null, () => void][] = [
    ["checks on", { checks: true, cross_core_checks: true, trace: false }, call],
    ["cross-core checks off", { checks: true, cross_core_checks: false, trace: false }, call],
    ["checks off", { checks: false, cross_core_checks: false, trace: false }, call],
  ];
  const restored = { checks: restore.checks, cross_core_checks: restore.cross_core_checks, trace: false };
  for (const p of s.speedups ?? []) kernels.push([`${p.label} one core`, restored, () => { p.single().dispose(); }], [`${p.label} multicore`, restored, () => { p.multi().dispose(); }]);
  const floors: Floor[] = [floor1, ...(floorN ? [floorN] : []), ...(memcpy ? [memcpy] : []), ...(tcm1 ? [tcm1] : []), ...(tcmN ? [tcmN] : [])];
  const sizes = new Map<string, number>();
  for (const [name, options, k] of kernels) {
    if (options) lib.configure(options);
    sizes.set(name, await burstSize(k));
  }
  for (const f of floors) {
    const once = (await f.burst(1)) * 1e3;
    sizes.set(f.name, Math.max(1, Math.min(200, Math.round(BURST_MS / Math.max(1e-3, once)))));
  }
  const times = new Map<string, number[]>();
  const put = (k: string, v: number) => { const l = times.get(k) ?? []; l.push(v); times.set(k, l); };
  const tracedOn: CallShape[] = [], tracedOff: CallShape[] = [];
  try {
    // Every subject in every round, the order rotating from round to round, each burst once the threads of the one
    // before sleep (settle.ts): in a fixed order without the wait, the first kernel of each round ran beside the
    // split floor's still-spinning threads, and "checks on" (always first) measured 2-3x the kernel timed alone.
    const subjects: [string, () => Promise<number>][] = [
      // The plain-wasm floors run in this process, call by call like the kernels; the native ones (memcpy) time their
      // own loop in a process of their own, so a burst of them is one run of that program and its mean.
      ...floors.map((f): [string, () => Promise<number>] => [f.name, inProcessFloor(f.name)
        ? () => medianCallMicros(sizes.get(f.name)!, () => f.burst(1))
        : async () => (await f.burst(sizes.get(f.name)!)) * 1e6]),
      ...kernels.map(([name, options, k]): [string, () => Promise<number>] => [name, () => { if (options) lib.configure(options); return medianCallMicros(sizes.get(name)!, k); }]),
    ];
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < subjects.length; i++) {
        const [name, burst] = subjects[(i + r) % subjects.length];
        await settle();
        put(name, await burst());
      }
      await settle();
      for (const [checks, into] of [[true, tracedOn], [false, tracedOff]] as const) {
        lib.configure({ checks, cross_core_checks: checks, trace: true });
        for (let i = 0; i < tracedPerRound; i++) {
          s.call().dispose();
          const shape = lib.lastTrace && shapeOf(lib.lastTrace);
          if (shape) into.push(shape);
        }
      }
    }
  } finally {
    lib.configure({ checks: restore.checks, cross_core_checks: restore.cross_core_checks, trace: restore.trace });
  }
  const med = (k: string) => median(times.get(k)!);
  const on = times.get("checks on")!;
  const lines: string[] = [`  multicore breakdown, ${s.label}: ${lib.cores} cores on ${lib.threads} threads, ${rounds} interleaved rounds, load average ${loadAverage()}`];
  lines.push(`    untraced, µs per call (medians): checks on ${formatMicros(med("checks on"))}, cross-core checks off ${formatMicros(med("cross-core checks off"))}, checks off ${formatMicros(med("checks off"))}; floors: ${floors.map((f) => `${f.name} ${formatMicros(med(f.name))}`).join(", ")}`);

  // The calling thread's steps and each thread's share, from the traced calls with checks on.
  const stepsOn = medianOf(tracedOn.map((c) => c.steps));
  const callOn = median(tracedOn.map((c) => Object.values(c.steps).reduce((a, b) => a + b, 0)));
  const stepRows: string[][] = Object.entries(stepsOn).map(([k, v]) => [k, formatMicros(v), `${((100 * v) / callOn).toFixed(0)} %`]);
  stepRows.push(["traced call, checks on (median)", formatMicros(callOn), `${formatRatio(callOn / med("checks on"))} the untraced call's median (trace events cost)`]);
  lines.push(toText({ headers: ["the call, step by step (calling thread, traced, checks on)", "µs", "share"], rows: stepRows, align: ["l", "r", "l"] }, "    "));

  const threadIds = [...new Set(tracedOn.flatMap((c) => [...c.threads.keys()]))].sort((a, b) => a - b);
  const threadRows = threadIds.map((id) => {
    const samples = tracedOn.map((c) => c.threads.get(id) ?? { first: NaN, cores: 0, busy: 0, between: 0, idleAtEnd: NaN });
    const m = (k: keyof (typeof samples)[number]) => median(samples.map((x) => x[k]).filter(Number.isFinite));
    const ran = samples.filter((x) => x.cores > 0).length;
    return [id < 0 ? "calling thread" : `worker ${id}`, `${ran}/${samples.length}`, m("cores").toFixed(1), formatMicros(m("first")), formatMicros(m("busy")), formatMicros(m("between")), formatMicros(m("idleAtEnd"))];
  });
  lines.push(toText({
    headers: ["thread", "calls it ran cores in", "cores (median)", "first core starts after publish", "running cores", "between its cores (claim, report, heap clear)", "waiting for the other thread's last core"],
    rows: threadRows, align: ["l", "r", "r", "r", "r", "r", "r"],
  }, "    "));

  // Per core: its span with checks on and off; copies and arithmetic at the floors' rates (estimates).
  const perCore = (shapes: CallShape[], k: "span" | "bytes" | "elements") => median(shapes.map((c) => c.cores.reduce((sum, x) => sum + x[k], 0) / c.cores.length));
  const spanOn = perCore(tracedOn, "span"), spanOff = perCore(tracedOff, "span");
  const bytes = perCore(tracedOn, "bytes"), elements = perCore(tracedOn, "elements");
  const copies = memcpy ? (med("memcpy") * bytes) / s.copiedBytes : NaN;
  const arithmetic = (med("wasm-1t") * elements) / s.elements;
  lines.push(toText({
    headers: ["one core, on average (traced)", "µs", "how it is known"],
    rows: [
      ["its span, checks on", formatMicros(spanOn), "traced calls with checks on"],
      ["  the checks (kernel library and raw TCM checks, write and read logs)", formatMicros(spanOn - spanOff), "span with checks on - span with checks off"],
      ["  copies between tensors and TCM", formatMicros(copies), `${(bytes / 1024).toFixed(0)} KiB at the memcpy floor's rate`],
      ["  arithmetic", formatMicros(arithmetic), `${elements.toFixed(0)} elements at the wasm-1t floor's rate`],
      ["  the rest (enter, exit, trace events, copies and arithmetic slower than their floors)", formatMicros(spanOff - copies - arithmetic), "span with checks off - copies - arithmetic"],
    ],
    align: ["l", "r", "l"],
  }, "    "));

  // The ratios the issues set goals for, and the TCM scheme's own floor beside them: a goal below that floor is out of
  // reach of any kernel that copies through TCM on this machine, whatever gpsimd does.
  const one = perRound(on, times.get("wasm-1t")!);
  const tcmFloor = tcmN ?? tcm1;
  const schemeOne = tcmFloor ? median(perRound(times.get(tcmFloor.name)!, times.get("wasm-1t")!)) : NaN;
  const beyond = s.goals && schemeOne > s.goals.oneThread ? ` (the TCM scheme's own floor, ${tcmFloor!.name}, is ${formatRatio(schemeOne)} wasm-1t in this run: above the goal)` : "";
  lines.push(`    ${s.label} / wasm-1t: ${ratioText(one)}${s.goals ? `; goal ≤ ${s.goals.oneThread}x: ${verdict(median(one), s.goals.oneThread)}${beyond}` : ""}`);
  if (tcmFloor) {
    const schemes = [tcm1, tcmN].filter((f): f is Floor => !!f).map((f) => `${f.name} ${formatMicros(med(f.name))} (${ratioText(perRound(times.get(f.name)!, times.get("wasm-1t")!))} wasm-1t)`);
    lines.push(`    the TCM scheme's own floor (the same copies through a 16 KB buffer per thread and the same arithmetic, plain wasm, no gpsimd): ${schemes.join(", ")}; ${s.label} / ${tcmFloor.name}: ${ratioText(perRound(on, times.get(tcmFloor.name)!))} (what gpsimd adds)`);
    // The gap in µs per call, from the medians: what the checks cost, and what the rest of gpsimd costs (the launch,
    // each core's enter and exit, the host's steps before and after, the runtime's copies and polls).
    const checksCost = med("checks on") - med("checks off"), restCost = med("checks off") - med(tcmFloor.name);
    lines.push(`    the gap to ${tcmFloor.name}, µs per call (medians): ${formatMicros(checksCost + restCost)} = the checks ${formatMicros(checksCost)} (checks on - off) + the rest of gpsimd ${formatMicros(restCost)} (checks off - ${tcmFloor.name}: the launch, each core's enter and exit, the host's steps, the runtime's copy entries and stop polls)`);
  }
  if (floorN) {
    const split = perRound(on, times.get(floorN.name)!);
    const splitGain = perRound(times.get(floorN.name)!, times.get("wasm-1t")!);
    // A split floor slower than one thread means the machine did not give the run two threads: then no ratio to it
    // (or speed-up of a kernel) says what two threads allow, and the line says so.
    const noSecondThread = median(splitGain) > 1 ? " (the split floor was slower than one thread in this run: the machine did not give it two threads, so this ratio says little)" : "";
    lines.push(`    ${s.label} / ${floorN.name}: ${ratioText(split)}${s.goals ? `; goal ≤ ${s.goals.split}x: ${verdict(median(split), s.goals.split)}` : ""}; the split floor / wasm-1t: ${ratioText(splitGain)}${noSecondThread}`);
  }
  const all = perRound(on, times.get("checks off")!), cross = perRound(on, times.get("cross-core checks off")!);
  lines.push(`    multicore checks, checks on / off: ${ratioText(all)}; goal ≤ ${MULTICORE_CHECKS_GOAL.toFixed(2)}x: ${verdict(median(all), MULTICORE_CHECKS_GOAL)}`);
  lines.push(`    of which the cross-core checks (on / cross_core_checks off): ${ratioText(cross)}; goal ≤ ${MULTICORE_CHECKS_GOAL.toFixed(2)}x: ${verdict(median(cross), MULTICORE_CHECKS_GOAL)}`);
  const speedups = (s.speedups ?? []).map((p) => ({ label: p.label, rounds: perRound(times.get(`${p.label} one core`)!, times.get(`${p.label} multicore`)!) }));
  for (const p of speedups) lines.push(`    speed-up of ${p.label}, one core / ${lib.cores} cores: ${ratioText(p.rounds)} (medians: one core ${formatMicros(med(`${p.label} one core`))}, ${lib.cores} cores ${formatMicros(med(`${p.label} multicore`))})`);
  if (speedups.length === 2) {
    const agreement = perRound(speedups[1].rounds, speedups[0].rounds);
    const off = Math.abs(median(agreement) - 1);
    lines.push(`    ${speedups[1].label}'s speed-up / ${speedups[0].label}'s: ${ratioText(agreement)}; goal within ${SPEEDUP_AGREEMENT_GOAL * 100} %: ${off <= SPEEDUP_AGREEMENT_GOAL ? "met" : `NOT met: ${(off * 100).toFixed(0)} % apart`}`);
  }
  return lines;
}

/** The 1, 5 and 15-minute load averages, as uptime prints them. */
function loadAverage(): string {
  return loadavg().map((x) => x.toFixed(2)).join(", ");
}
