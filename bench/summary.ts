// The one-page summary printed after a run (or on its own: node
// dist/bench/summary.js [suite...]): per workload, each variant's time and
// its speed relative to the baseline and to the fastest variant, then the
// targets. Computed from bench/results/ only.
import { pathToFileURL } from "node:url";
import { readResults, type SuiteResults } from "./results.js";
import { suiteTable, targetsTable } from "./report.js";
import { toText } from "./table.js";
import { SUITES } from "./suites/index.js";

/** The summary of the given suites' saved results; targets use every saved suite. */
export function renderSummary(suites: string[]): string {
  const all = SUITES.map((s) => readResults(s.name)).filter((r): r is SuiteResults => r !== null);
  const shown = all.filter((r) => suites.includes(r.meta.suite));
  const lines = ["", "==== Summary (time/call: median of benny's samples; vs baseline / vs fastest: speed ratios, higher is faster)"];
  for (const r of shown) {
    const e = r.meta.environment;
    lines.push("", `${r.meta.suite}: ${r.meta.title}`, `  ${e.date.slice(0, 16).replace("T", " ")} UTC, Node ${e.node}, ${e.cpus} CPUs (${e.cpuModel}), load average ${e.load.toFixed(1)}`);
    for (const note of r.meta.notes) lines.push(`  ${note}`);
    // A suite that times no cases (build) printed its findings at the end of its run, and its targets are below.
    if (r.meta.workloads.length === 0) lines.push(`  no timed cases: its findings were printed with its run (saved in ${r.meta.suite}.meta.json), its targets are below`);
    else lines.push(toText(suiteTable(r)));
  }
  lines.push("", "Targets (ratios to floors measured in the same run; see README, How to read the numbers)", toText(targetsTable(all)));
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const asked = process.argv.slice(2);
  console.log(renderSummary(asked.length ? asked : SUITES.map((s) => s.name)));
}
