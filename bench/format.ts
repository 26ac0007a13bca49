// Numbers as people read them: times with a unit, ratios with a few digits.

/** 4 significant digits at most, without exponent. */
function digits(x: number): string {
  const abs = Math.abs(x);
  return x.toFixed(abs >= 100 ? 1 : abs >= 10 ? 2 : 3);
}

/** Seconds as "1.234 s", "12.35 ms", "123.4 µs" or "1.234 µs". */
export function formatTime(seconds: number): string {
  if (!Number.isFinite(seconds)) return "—";
  if (seconds >= 1) return `${digits(seconds)} s`;
  if (seconds >= 1e-3) return `${digits(seconds * 1e3)} ms`;
  return `${digits(seconds * 1e6)} µs`;
}

/** Microseconds as "12.3 µs". */
export function formatMicros(us: number): string {
  return `${us >= 100 ? us.toFixed(0) : us.toFixed(1)} µs`;
}

/** A speed ratio as "57.7x". */
export function formatRatio(r: number): string {
  if (!Number.isFinite(r)) return "—";
  return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}x`;
}

/** Nanoseconds per element with three significant digits. */
export function formatNs(ns: number): string {
  return ns >= 100 ? ns.toFixed(0) : ns >= 10 ? ns.toFixed(1) : ns >= 1 ? ns.toFixed(2) : ns.toFixed(3);
}

/** A time ratio as a percentage change: 1.043 -> "+4.3%". */
export function formatChange(ratio: number): string {
  const pct = (ratio - 1) * 100;
  return `${pct >= 0 ? "+" : ""}${pct.toFixed(1)}%`;
}
