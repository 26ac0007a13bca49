// A table of text cells, printed for the terminal (padded columns) or as
// Markdown (for the README).

/** Headers, rows and per-column alignment ("l" or "r"). */
export interface Table {
  headers: string[];
  rows: string[][];
  align: ("l" | "r")[];
}

/** Padded columns with a rule under the headers, each line indented. */
export function toText(t: Table, indent = "  "): string {
  const widths = t.headers.map((h, c) => Math.max(h.length, ...t.rows.map((r) => r[c].length)));
  const line = (cells: string[]) => indent + cells.map((s, c) => (t.align[c] === "r" ? s.padStart(widths[c]) : s.padEnd(widths[c]))).join("  ").trimEnd();
  return [line(t.headers), indent + widths.map((w) => "-".repeat(w)).join("  "), ...t.rows.map(line)].join("\n");
}

/** A GitHub Markdown table. */
export function toMarkdown(t: Table): string {
  const row = (cells: string[]) => `| ${cells.map((s) => s.replace(/\|/g, "\\|")).join(" | ")} |`;
  return [row(t.headers), `|${t.align.map((a) => (a === "r" ? "---:" : "---")).join("|")}|`, ...t.rows.map(row)].join("\n");
}
