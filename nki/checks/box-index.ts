// Earlier accesses of one storage, found by where they are: a grid of buckets over the first and last
// storage dimensions (bucket sizes from the first access, usually one tile), so a new access is
// compared with the accesses in the buckets it covers rather than with every earlier one (a
// 16384 x 16384 output stored as 4096 tiles costs a few comparisons per store, not 4096).
// Accesses covering many buckets, and flat ones, are kept in a list compared every time.
import type { Region } from "./regions.js";

const MAX_BUCKETS = 64;
const STRIDE = 1 << 20;

export class BoxIndex<T extends { readonly region: Region }> {
  private band0 = 0;
  private bandL = 0;
  private readonly buckets = new Map<number, T[]>();
  private readonly wide: T[] = [];
  size = 0;

  /** Bucket ranges of a region: [lo0, hi0, loL, hiL] inclusive, or null when it goes in the wide list. */
  private span(r: Region): [number, number, number, number] | null {
    if (r.flat || this.band0 === 0) return null;
    const L = r.lo.length - 1;
    const a0 = Math.floor(r.lo[0] / this.band0), b0 = Math.floor((r.hi[0] - 1) / this.band0);
    const aL = L > 0 ? Math.floor(r.lo[L] / this.bandL) : 0, bL = L > 0 ? Math.floor((r.hi[L] - 1) / this.bandL) : 0;
    if (b0 < a0 || bL < aL || (b0 - a0 + 1) * (bL - aL + 1) > MAX_BUCKETS || bL >= STRIDE) return null;
    return [a0, b0, aL, bL];
  }

  add(item: T): void {
    const r = item.region;
    if (this.band0 === 0 && !r.flat) {
      const L = r.lo.length - 1;
      this.band0 = Math.max(1, r.hi[0] - r.lo[0]);
      this.bandL = L > 0 ? Math.max(1, r.hi[L] - r.lo[L]) : 1;
    }
    this.size++;
    const s = this.span(r);
    if (!s) { this.wide.push(item); return; }
    for (let i = s[0]; i <= s[1]; i++) {
      for (let j = s[2]; j <= s[3]; j++) {
        const key = i * STRIDE + j;
        const list = this.buckets.get(key);
        if (list) list.push(item); else this.buckets.set(key, [item]);
      }
    }
  }

  /** Calls f with every earlier access that may meet `r` (some more than once; f decides). */
  forCandidates(r: Region, f: (item: T) => void): void {
    for (const x of this.wide) f(x);
    const s = this.span(r);
    if (!s) { for (const list of this.buckets.values()) for (const x of list) f(x); return; }
    for (let i = s[0]; i <= s[1]; i++) {
      for (let j = s[2]; j <= s[3]; j++) {
        const list = this.buckets.get(i * STRIDE + j);
        if (list) for (const x of list) f(x);
      }
    }
  }
}
