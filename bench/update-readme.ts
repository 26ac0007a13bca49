// Regenerates the README's results, between <!-- bench:start --> and
// <!-- bench:end -->, from bench/results/ (run after every `npm run bench`,
// or on its own: node dist/bench/update-readme.js). Never edit that part by hand.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_ROOT } from "../ops/index.js";
import { readResults, PUBLISHED_DIR, type SuiteResults } from "./results.js";
import { suiteTable, targetsTable } from "./report.js";
import { toMarkdown } from "./table.js";
import { SUITES } from "./suites/index.js";

const START = "<!-- bench:start -->";
const END = "<!-- bench:end -->";

/** The Markdown between the markers. */
export function resultsMarkdown(all: SuiteResults[]): string {
  if (all.length === 0) return "No results yet: run `npm run bench`.";
  const runs = {
    headers: ["suite", "run (UTC)", "Node", "CPUs", "load", "CPU"],
    rows: all.map((r) => {
      const e = r.meta.environment;
      return [`[${r.meta.suite}](bench/results/${r.meta.suite}.html)`, e.date.slice(0, 16).replace("T", " "), e.node, String(e.cpus), e.load.toFixed(1), e.cpuModel];
    }),
    align: ["l", "l", "l", "r", "r", "l"] as ("l" | "r")[],
  };
  const parts = [
    "_Generated from `bench/results/` by `bench/update-readme.ts` at the end of `npm run bench`; do not edit by hand._",
    "", toMarkdown(runs), "", "_load_: the 1-minute load average when the suite started; above the CPU count, other processes competed for the CPUs and the times are inflated.", "", "#### Targets", "", toMarkdown(targetsTable(all)), "", "#### All cases",
  ];
  for (const r of all) {
    parts.push("", `<details><summary><b>${r.meta.suite}</b>: ${r.meta.title}</summary>`, "", ...r.meta.notes.map((n) => `- ${n}`), "", toMarkdown(suiteTable(r)), "", "</details>");
  }
  return parts.join("\n");
}

/** Rewrites the part of the README between the markers; throws if the markers are missing. */
export function updateReadme(readmePath = path.join(PACKAGE_ROOT, "README.md")): void {
  const text = readFileSync(readmePath, "utf8");
  const start = text.indexOf(START), end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${readmePath}: cannot find ${START} ... ${END}; add them where the results belong`);
  const all = SUITES.map((s) => readResults(s.name, PUBLISHED_DIR)).filter((r): r is SuiteResults => r !== null);
  writeFileSync(readmePath, `${text.slice(0, start + START.length)}\n${resultsMarkdown(all)}\n${text.slice(end)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  updateReadme();
  console.log("README.md: benchmark results updated");
}
