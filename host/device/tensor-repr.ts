// How a tensor prints (console.log, util.inspect, String()): its values
// nested by dimension, then its dtype and sizes, close to torch's repr:
//   tensor([[ 1.0000, -2.5000],
//           [ 3.0000,  4.0000]], dtype=float32, size=[2, 2])
// Big tensors (more than 1000 elements) show the first and last 3 entries
// of each dimension around a "…"; long rows wrap at 80 columns.

/** Above this many elements, each dimension shows only its edges. */
export const REPR_THRESHOLD = 1000;
/** Entries shown at each end of a dimension of a summarised tensor. */
export const REPR_EDGE_ITEMS = 3;
const LINE_WIDTH = 80;
const PREFIX = "tensor(";

/** 1.2346e+05 (two exponent digits, as torch and C print them). */
function scientific(v: number): string {
  return v.toExponential(4).replace(/e([+-])(\d)$/, "e$10$2");
}

/** A formatter for the shown values: integers as they are; floats with 4 decimals, as "1." when all are whole, or in scientific notation over a wide range. */
function formatter(values: (number | bigint)[], integral: boolean): (v: number | bigint) => string {
  if (integral) return (v) => String(v);
  const finite = (values as number[]).filter(Number.isFinite);
  const special = (v: number) => (Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf");
  const abs = finite.map(Math.abs).filter((a) => a > 0);
  const max = Math.max(0, ...abs), min = Math.min(Infinity, ...abs);
  if (finite.every(Number.isInteger) && max < 1e8) return (v) => (Number.isFinite(v) ? `${Object.is(v, -0) ? "-0" : String(v)}.` : special(v as number));
  if (max >= 1e8 || min < 1e-4 || max / min > 1000) return (v) => (Number.isFinite(v) ? scientific(v as number) : special(v as number));
  return (v) => (Number.isFinite(v) ? (v as number).toFixed(4) : special(v as number));
}

/** Which indices of a dimension of size n are shown (-1 marks the "…"). */
function shownIndices(n: number, summarise: boolean): number[] {
  if (!summarise || n <= 2 * REPR_EDGE_ITEMS) return Array.from({ length: n }, (_, i) => i);
  return [...Array.from({ length: REPR_EDGE_ITEMS }, (_, i) => i), -1, ...Array.from({ length: REPR_EDGE_ITEMS }, (_, i) => n - REPR_EDGE_ITEMS + i)];
}

/** The repr of values (flat, row-major) with these sizes: `tensor(<values>, dtype=<name>, size=[...])`. */
export function tensorRepr(flat: ArrayLike<number | bigint>, sizes: readonly number[], dtypeName: string, integral: boolean): string {
  const suffix = `, dtype=${dtypeName}, size=[${sizes.join(", ")}])`;
  const summarise = flat.length > REPR_THRESHOLD;
  const strides = sizes.map((_, d) => sizes.slice(d + 1).reduce((a, b) => a * b, 1));
  // Collect the shown elements first, so every one gets the same width.
  const shown: (number | bigint)[] = [];
  const collect = (dim: number, offset: number): void => {
    if (dim === sizes.length) { shown.push(flat[offset]); return; }
    for (const i of shownIndices(sizes[dim], summarise)) if (i >= 0) collect(dim + 1, offset + i * strides[dim]);
  };
  collect(0, 0);
  const format = formatter(shown, integral);
  const width = Math.max(0, ...shown.map((v) => format(v).length));
  const cell = (v: number | bigint) => format(v).padStart(width);
  const render = (dim: number, offset: number, indent: number): string => {
    if (dim === sizes.length) return cell(flat[offset]);
    const parts = shownIndices(sizes[dim], summarise).map((i) => (i < 0 ? "…" : render(dim + 1, offset + i * strides[dim], indent + 1)));
    if (dim === sizes.length - 1) return `[${wrap(parts, indent + 1)}]`;
    const gap = ",\n" + "\n".repeat(Math.max(0, sizes.length - dim - 2)) + " ".repeat(indent + 1);
    return `[${parts.join(gap)}]`;
  };
  if (flat.length === 0) return `${PREFIX}[]${suffix}`;
  return `${PREFIX}${render(0, 0, PREFIX.length)}${suffix}`;
}

/** Entries joined by ", ", broken into lines of at most LINE_WIDTH columns (continuation lines indented). */
function wrap(parts: string[], indent: number): string {
  const lines: string[] = [];
  let line = "";
  for (const p of parts) {
    const next = line ? `${line}, ${p}` : p;
    if (line && indent + next.length + 1 > LINE_WIDTH) { lines.push(`${line},`); line = p; } else line = next;
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}
