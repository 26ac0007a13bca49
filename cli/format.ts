// Numbers and paths for people: bytes, durations, tables, paths.
import path from "node:path";

/** 1536 -> "1.5 KB" (powers of 1024). */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[u]}`;
}

/** ms -> "12.3 ms", "45.6 µs", "1.20 s". */
export function duration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms >= 100 ? ms.toFixed(0) : ms.toFixed(ms >= 10 ? 1 : 2)} ms`;
  const us = ms * 1000;
  return `${us >= 100 ? us.toFixed(0) : us.toFixed(us >= 10 ? 1 : 2)} µs`;
}

/** A plain-text table: a header row and rows, columns padded (numbers right-aligned). */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const right = header.map((_, i) => rows.every((r) => typeof r[i] === "number" || /^[\d.,]+( ?[a-zA-Zµ%]+)?$/.test(String(r[i]))));
  return cells.map((r) => r.map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ").trimEnd()).join("\n");
}

/** A path as the user would type it: relative to the working folder when inside it, absolute otherwise. */
export function shownPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}
