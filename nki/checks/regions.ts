// The elements an engine operand touches, as a box over its storage's dimensions: an access pattern is
// affine (first element + sum of stride * index), so each of its axes lands in one storage dimension
// (stride a multiple of that dimension's stride, no carry past its end) and the operand covers, per
// dimension, an interval with a step (the gcd of the strides landing there). When an axis does not
// land in one dimension (reshaped or .ap() views), the region is the storage's flat element interval.
// Two regions overlap when every dimension's intervals meet with compatible steps: exact for the
// boxes of slices and strided slices, conservative (may say yes) for the rest.
import type { Storage } from "../machine/tile.js";

export interface Region {
  /** Per storage dimension (one dimension: the flat element range when `flat`). */
  readonly lo: number[];
  /** Exclusive. */
  readonly hi: number[];
  /** Elements of the region are lo + k * step in each dimension (step 1: all of them may be). */
  readonly step: number[];
  readonly flat: boolean;
}

const gcd = (a: number, b: number): number => { a = Math.abs(a); b = Math.abs(b); while (b) [a, b] = [b, a % b]; return a; };

function contiguous(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let n = 1;
  for (let k = shape.length - 1; k >= 0; k--) { s[k] = n; n *= shape[k]; }
  return s;
}

/** The region of `shape` elements at element offset `start` with element `strides` (stride 0: broadcast) in `storage`. */
export function regionOf(storage: Storage, start: number, shape: readonly number[], strides: readonly number[]): Region {
  const dims = storage.shape;
  const S = contiguous(dims);
  const idx = new Array<number>(dims.length);
  let rest = start;
  for (let d = 0; d < dims.length; d++) { idx[d] = Math.floor(rest / S[d]); rest -= idx[d] * S[d]; }
  const span = new Array<number>(dims.length).fill(0);
  const step = new Array<number>(dims.length).fill(0);
  let boxed = start >= 0 && dims.length > 0;
  for (let k = 0; k < shape.length && boxed; k++) {
    const n = shape[k], s = strides[k];
    if (n <= 1 || s === 0) continue;
    if (n <= 0) return emptyRegion(dims.length);
    let placed = false;
    for (let d = 0; d < dims.length; d++) {
      if (s % S[d] !== 0) continue;
      const c = s / S[d];
      if (c < 0 || idx[d] + span[d] + c * (n - 1) >= dims[d]) continue;
      span[d] += c * (n - 1);
      step[d] = gcd(step[d], c);
      placed = true;
      break;
    }
    if (!placed) boxed = false;
  }
  if (shape.some((n) => n <= 0)) return emptyRegion(boxed ? dims.length : 1);
  if (boxed) return { lo: idx, hi: idx.map((i, d) => i + span[d] + 1), step: step.map((g) => g || 1), flat: false };
  let lo = start, hi = start, g = 0;
  shape.forEach((n, k) => {
    if (n <= 1 || strides[k] === 0) return;
    const ext = strides[k] * (n - 1);
    if (ext > 0) hi += ext; else lo += ext;
    g = gcd(g, strides[k]);
  });
  return { lo: [lo], hi: [hi + 1], step: [g || 1], flat: true };
}

function emptyRegion(rank: number): Region {
  return { lo: new Array<number>(rank).fill(0), hi: new Array<number>(rank).fill(0), step: new Array<number>(rank).fill(1), flat: rank === 1 };
}

/** The region as the storage's flat element interval (what two regions of different kinds compare as). */
export function flatten(r: Region, storage: Storage): Region {
  if (r.flat) return r;
  const S = contiguous(storage.shape);
  let lo = 0, hi = 0, g = 0;
  r.lo.forEach((l, d) => {
    lo += l * S[d];
    hi += (r.hi[d] - 1) * S[d];
    if (r.hi[d] - l > 1) g = gcd(g, r.step[d] * S[d]);
  });
  return { lo: [lo], hi: [hi + 1], step: [g || 1], flat: true };
}

/** Whether two regions of one storage may share an element (exact for boxes; otherwise may say yes). */
export function overlaps(a: Region, b: Region, storage: Storage): boolean {
  if (a.flat !== b.flat) { a = flatten(a, storage); b = flatten(b, storage); }
  for (let d = 0; d < a.lo.length; d++) {
    const lo = Math.max(a.lo[d], b.lo[d]), hi = Math.min(a.hi[d], b.hi[d]);
    if (lo >= hi) return false;
    const g = gcd(a.step[d], b.step[d]);
    if (g > 1 && (((a.lo[d] - b.lo[d]) % g) + g) % g !== 0) return false;
  }
  return true;
}

/** The box both regions lie in (for messages): per dimension the meeting of the two intervals. */
export function intersection(a: Region, b: Region, storage: Storage): Region {
  if (a.flat !== b.flat) { a = flatten(a, storage); b = flatten(b, storage); }
  return { lo: a.lo.map((l, d) => Math.max(l, b.lo[d])), hi: a.hi.map((h, d) => Math.min(h, b.hi[d])), step: a.step.map((s, d) => Math.max(s, b.step[d])), flat: a.flat };
}

/** "[0:128, 512:1024]" (a flat region: "elements 0:4096 of the flattened tensor"). */
export function describeRegion(r: Region): string {
  const part = (d: number) => (r.hi[d] - r.lo[d] === 1 ? `${r.lo[d]}` : `${r.lo[d]}:${r.hi[d]}${r.step[d] > 1 ? `:${r.step[d]}` : ""}`);
  const body = r.lo.map((_, d) => part(d)).join(", ");
  return r.flat ? `elements [${body}] of the flattened storage` : `[${body}]`;
}
