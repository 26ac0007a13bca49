// A suite's results as one self-contained HTML page (inline SVG, no scripts,
// nothing fetched: it renders offline): a panel per workload with each
// variant's time per element on a log axis, the floors measured in the same
// run drawn as reference lines, the ratios to them, latency percentiles, and
// for paired workloads the time ratio (e.g. what the checks cost) with its range.
import { secondsByCase } from "./report.js";
import { formatTime, formatNs, formatChange, formatMicros } from "./format.js";
import type { SuiteResults, WorkloadInfo, FloorRounds, Paired, Latency } from "./results.js";

const WIDTH = 760, LABEL = 170, RIGHT = 90, ROW = 22;
const COLORS = { kernel: "#2f6db5", peer: "#9aa7b4", floor: "#c0392b" };

function escape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Time per element in ns when the workload has elements, else time per call in µs: the panel's unit. */
function unitOf(w: WorkloadInfo): { scale: (seconds: number) => number; label: string; show: (v: number) => string } {
  return w.elements
    ? { scale: (s) => (s * 1e9) / w.elements!, label: "ns per element (log scale; shorter is faster)", show: (v) => `${formatNs(v)} ns` }
    : { scale: (s) => s * 1e6, label: "µs per call (log scale; shorter is faster)", show: (v) => formatMicros(v) };
}

/** Log-scale x positions for values in [lo, hi], with tick values at 1-2-5 steps. */
function logAxis(lo: number, hi: number): { x: (v: number) => number; ticks: number[] } {
  const a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
  const span = Math.max(b - a, 1);
  const x = (v: number) => LABEL + ((Math.log10(Math.max(v, 10 ** a)) - a) / span) * (WIDTH - LABEL - RIGHT);
  const ticks: number[] = [];
  for (let e = a; e <= b; e++) for (const m of [1, 2, 5]) if (m * 10 ** e <= 10 ** b) ticks.push(m * 10 ** e);
  return { x, ticks };
}

function tickLabel(v: number): string {
  return v >= 1 ? String(+v.toPrecision(3)) : v.toPrecision(1);
}

/** Bars for the variants, dashed vertical lines for the floors. */
function barsSvg(w: WorkloadInfo, seconds: Map<string, number>, floors: FloorRounds | undefined, kernels: Set<string>): string {
  const unit = unitOf(w);
  const variants = Object.keys(w.maxError).map((v) => ({ name: v, value: unit.scale(seconds.get(`${w.name}/${v}`) ?? NaN) })).filter((v) => Number.isFinite(v.value));
  const floorLines = Object.entries(floors?.seconds ?? {}).filter(([n]) => n in (floors?.titles ?? {})).map(([name, s]) => ({ name, value: unit.scale(s) }));
  const all = [...variants, ...floorLines].map((v) => v.value).filter((v) => v > 0);
  if (all.length === 0) return "";
  const { x, ticks } = logAxis(Math.min(...all), Math.max(...all));
  const top = 30, height = top + variants.length * ROW + 40 + floorLines.length * 14;
  const parts: string[] = [`<svg viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escape(w.title)}">`];
  for (const t of ticks) {
    const tx = x(t);
    parts.push(`<line x1="${tx}" x2="${tx}" y1="${top - 6}" y2="${top + variants.length * ROW}" class="grid"/>`, `<text x="${tx}" y="${top + variants.length * ROW + 14}" class="tick">${tickLabel(t)}</text>`);
  }
  parts.push(`<text x="${LABEL}" y="${top + variants.length * ROW + 30}" class="axis">${escape(unit.label)}</text>`);
  variants.forEach((v, i) => {
    const y = top + i * ROW;
    const color = kernels.has(v.name) ? COLORS.kernel : COLORS.peer;
    parts.push(
      `<text x="${LABEL - 8}" y="${y + 14}" class="label">${escape(v.name)}${v.name === w.baseline ? " (baseline)" : ""}</text>`,
      `<rect x="${LABEL}" y="${y + 3}" width="${Math.max(1, x(v.value) - LABEL)}" height="${ROW - 8}" fill="${color}"/>`,
      `<text x="${x(v.value) + 4}" y="${y + 14}" class="value">${escape(unit.show(v.value))}</text>`,
    );
  });
  floorLines.forEach((f, i) => {
    const fx = x(f.value), labelY = top + variants.length * ROW + 44 + i * 14;
    parts.push(
      `<line x1="${fx}" x2="${fx}" y1="${top - 6}" y2="${top + variants.length * ROW}" class="floor"/>`,
      `<text x="${fx}" y="${top - 8 - (i % 2) * 11}" class="floortag">${i + 1}</text>`, // staggered: floors often lie close together
      `<text x="${LABEL}" y="${labelY}" class="floorlabel">${i + 1}: floor ${escape(f.name)} = ${escape(unit.show(f.value))} — ${escape(floors!.titles[f.name])}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n");
}

/** A paired workload: the time ratio of its two variants with the range over the rounds, as a bar around 0 %. */
function pairedSvg(w: WorkloadInfo, p: Paired): string {
  const maxPct = Math.max(30, Math.abs(p.high - 1) * 100, Math.abs(p.low - 1) * 100);
  const x = (pct: number) => LABEL + ((pct + maxPct) / (2 * maxPct)) * (WIDTH - LABEL - RIGHT);
  const pct = (p.ratio - 1) * 100;
  return [
    `<svg viewBox="0 0 ${WIDTH} 74" width="${WIDTH}" height="74" role="img" aria-label="${escape(w.title)}">`,
    `<line x1="${x(0)}" x2="${x(0)}" y1="4" y2="34" class="grid"/>`,
    `<line x1="${x(10)}" x2="${x(10)}" y1="4" y2="34" class="floor"/><text x="${x(10) + 3}" y="46" class="tick" style="text-anchor:start">+10 %</text>`,
    `<text x="${x(0) - 3}" y="46" class="tick" style="text-anchor:end">0</text>`,
    `<text x="${LABEL - 8}" y="22" class="label">${escape(p.a)} / ${escape(p.b)}</text>`,
    `<rect x="${Math.min(x(0), x(pct))}" y="10" width="${Math.max(1, Math.abs(x(pct) - x(0)))}" height="16" fill="${COLORS.kernel}"/>`,
    `<line x1="${x((p.low - 1) * 100)}" x2="${x((p.high - 1) * 100)}" y1="18" y2="18" class="whisker"/>`,
    `<text x="${LABEL}" y="64" class="value">${escape(formatChange(p.ratio))} (median of ${p.rounds} alternating rounds; rounds ${escape(formatChange(p.low))} .. ${escape(formatChange(p.high))}; whisker: the range)</text>`,
    "</svg>",
  ].join("\n");
}

function table(headers: string[], rows: string[][]): string {
  return `<table><tr>${headers.map((h) => `<th>${escape(h)}</th>`).join("")}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${escape(c)}</td>`).join("")}</tr>`).join("")}</table>`;
}

function ratiosTable(f: FloorRounds): string {
  const rows = Object.entries(f.ratios).map(([name, r]) => {
    const [variant, floor] = name.split("/");
    return [variant, floor, `${r.ratio.toFixed(2)}x`, `${r.low.toFixed(2)}x .. ${r.high.toFixed(2)}x`];
  });
  return `<p class="note">Floors and kernels timed in ${f.rounds} interleaved rounds; time(kernel) / time(floor) per round:</p>` + table(["kernel", "floor", "median ratio", "range"], rows);
}

function latencyTable(w: WorkloadInfo, latency: Record<string, Latency>): string {
  const rows = Object.keys(w.maxError).map((v) => [v, latency[`${w.name}/${v}`]] as const).filter(([, l]) => l).map(([v, l]) => [v, String(l!.calls), formatMicros(l!.p50), formatMicros(l!.p90), formatMicros(l!.p99)]);
  return rows.length ? `<p class="note">Latency of single calls (its own loop, performance.now()):</p>` + table(["variant", "calls", "median", "p90", "p99"], rows) : "";
}

/** The page. `kernels` names the variants that are gpsimd kernels (drawn in blue; peers in grey). */
export function renderChart(r: SuiteResults, kernels: Set<string> = new Set(["elementwise", "stream", "tcm", "multicore-tcm", "checks-on", "checks-off", "cpp-seed", "cpp-tcm", "cpp-multicore", "single-core", "multicore-1core", "multicore-8cores"])): string {
  const seconds = secondsByCase(r);
  const e = r.meta.environment;
  const panels = r.meta.workloads.map((w) => {
    const p = r.meta.paired[w.name], f = r.meta.floors[w.name];
    return [
      `<section><h2>${escape(w.title)}</h2>`,
      barsSvg(w, seconds, f, kernels),
      p ? pairedSvg(w, p) : "",
      f ? ratiosTable(f) : "",
      latencyTable(w, r.meta.latency),
      `<p class="note">time per call (median of benny's samples): ${Object.keys(w.maxError).map((v) => `${escape(v)} ${escape(formatTime(seconds.get(`${w.name}/${v}`) ?? NaN))}`).join(" · ")}</p>`,
      "</section>",
    ].join("\n");
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gpsimd bench: ${escape(r.meta.suite)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d232a; max-width: ${WIDTH + 40}px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 24px 0 6px; }
.meta, .note { color: #56606b; font-size: 12px; margin: 4px 0; }
svg { display: block; } .grid { stroke: #e3e7eb; } .floor { stroke: ${COLORS.floor}; stroke-dasharray: 4 3; stroke-width: 1.5; }
.whisker { stroke: #1d232a; stroke-width: 2; }
.label { text-anchor: end; font-size: 12px; } .value { font-size: 11px; fill: #1d232a; } .tick { text-anchor: middle; font-size: 10px; fill: #56606b; }
.axis { font-size: 11px; fill: #56606b; } .floortag { text-anchor: middle; font-size: 10px; fill: ${COLORS.floor}; } .floorlabel { font-size: 11px; fill: ${COLORS.floor}; }
table { border-collapse: collapse; font-size: 12px; margin: 4px 0; } th, td { padding: 2px 10px 2px 0; text-align: left; } th { color: #56606b; font-weight: 600; }
.legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
</style></head><body>
<h1>${escape(r.meta.suite)}: ${escape(r.meta.title)}</h1>
<p class="meta">${escape(e.date.slice(0, 16).replace("T", " "))} UTC · Node ${escape(e.node)} · ${e.cpus} CPUs (${escape(e.cpuModel)}) · load average ${e.load.toFixed(1)} at start</p>
${r.meta.notes.map((n) => `<p class="note">${escape(n)}</p>`).join("\n")}
<p class="legend note"><span style="background:${COLORS.kernel}"></span>gpsimd kernel<span style="background:${COLORS.peer}"></span>what a TypeScript user would otherwise run<span style="background:${COLORS.floor}"></span>floor measured in this run (dashed)</p>
${panels.join("\n")}
</body></html>
`;
}
