/**
 * Small, fast, seeded pseudo-random number generator: xoshiro128** (Blackman & Vigna) with its 128-bit state
 * seeded by splitmix64, as the xoshiro authors recommend. The integer and uniform streams use only 32-bit
 * integer arithmetic (Math.imul, shifts) and correctly rounded IEEE double operations (+ - * / sqrt), so a
 * seed gives the same values on every platform and Node version. normal() / fillNormal() also call Math.log,
 * which ECMAScript lets engines approximate; V8 uses its own portable fdlibm port, so results match across
 * platforms on Node, but another engine could differ in the last bit. Not cryptographically secure.
 */

const MASK64 = (1n << 64n) - 1n;
const TWO_POW_32 = 4294967296;
const TWO_POW_53 = 9007199254740992;
const INV_TWO_POW_24 = 1 / 16777216;
const INV_TWO_POW_53 = 1 / TWO_POW_53;

/** One splitmix64 step; returns [new state, output]. */
function splitmix64(state: bigint): [bigint, bigint] {
  state = (state + 0x9e3779b97f4a7c15n) & MASK64;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return [state, z ^ (z >> 31n)];
}

function checkFinite(what: string, v: number): void {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new RangeError(`Rng.${what}: expected a finite number, got ${String(v)}`);
}

export class Rng {
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  /** Second value of the last normal() pair, or NaN when none is cached. */
  private spare = NaN;

  /**
   * @param seed any integer (number or bigint); it is taken modulo 2^64, so e.g. 42 and 42n give the same
   *   sequence, as do -1 and 2^64 - 1.
   */
  constructor(seed: number | bigint) {
    let s: bigint;
    if (typeof seed === "bigint") {
      s = seed;
    } else if (typeof seed === "number" && Number.isInteger(seed)) {
      s = BigInt(seed);
    } else {
      throw new RangeError(`Rng seed must be an integer number or a bigint, got ${String(seed)}`);
    }
    let state = BigInt.asUintN(64, s);
    let a: bigint, b: bigint;
    [state, a] = splitmix64(state);
    [state, b] = splitmix64(state);
    const words: [number, number, number, number] = [Number(a & 0xffffffffn), Number(a >> 32n), Number(b & 0xffffffffn), Number(b >> 32n)];
    if ((words[0] | words[1] | words[2] | words[3]) === 0) words[0] = 1; // all-zero state is a fixed point (never happens in practice)
    this.setState(words);
  }

  /** A generator continuing from a state previously returned by getState(). */
  static fromState(state: readonly [number, number, number, number]): Rng {
    const r = new Rng(0);
    r.setState(state);
    return r;
  }

  /** The four 32-bit state words of xoshiro128** (the cached normal() spare is not included). */
  getState(): [number, number, number, number] {
    return [this.s0, this.s1, this.s2, this.s3];
  }

  private setState(state: readonly [number, number, number, number]): void {
    if (!Array.isArray(state) || state.length !== 4 || !state.every((w) => Number.isInteger(w) && w >= 0 && w < TWO_POW_32)) {
      throw new RangeError("Rng state must be four unsigned 32-bit integers");
    }
    if ((state[0] | state[1] | state[2] | state[3]) === 0) throw new RangeError("Rng state must not be all zero");
    [this.s0, this.s1, this.s2, this.s3] = state;
    this.spare = NaN;
  }

  /** Next raw output: a uniformly distributed unsigned 32-bit integer. */
  nextU32(): number {
    const s0 = this.s0, s1 = this.s1, s2 = this.s2, s3 = this.s3;
    const x = Math.imul(s1, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = s1 << 9;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    this.s1 = (s1 ^ n2) >>> 0;
    this.s0 = (s0 ^ n3) >>> 0;
    this.s2 = (n2 ^ t) >>> 0;
    this.s3 = ((n3 << 11) | (n3 >>> 21)) >>> 0;
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits (a multiple of 2^-53). */
  uniform(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) * INV_TWO_POW_53;
  }

  /** Uniform double in [lo, hi) (returns lo when lo === hi). */
  uniformRange(lo: number, hi: number): number {
    checkFinite("uniformRange", lo);
    checkFinite("uniformRange", hi);
    if (!(lo <= hi)) throw new RangeError(`Rng.uniformRange: lo (${lo}) must be <= hi (${hi})`);
    if (lo === hi) return lo;
    const span = hi - lo;
    if (!Number.isFinite(span)) throw new RangeError(`Rng.uniformRange: hi - lo overflows (${lo}, ${hi})`);
    for (;;) {
      const v = lo + span * this.uniform();
      if (v < hi) return v; // rounding can land exactly on hi; redraw (rare)
    }
  }

  /** Uniform integer in [lo, hiInclusive], without modulo bias. Both bounds must be safe integers with hi - lo < 2^53. */
  int(lo: number, hiInclusive: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hiInclusive)) {
      throw new RangeError(`Rng.int: bounds must be safe integers, got ${String(lo)}, ${String(hiInclusive)}`);
    }
    if (lo > hiInclusive) throw new RangeError(`Rng.int: lo (${lo}) must be <= hiInclusive (${hiInclusive})`);
    // hi - lo is exact below 2^53 and rounds to >= 2^53 above it, so this test is exact; range is then exact too.
    if (hiInclusive - lo >= TWO_POW_53) throw new RangeError(`Rng.int: range ${lo}..${hiInclusive} has more than 2^53 values`);
    const range = hiInclusive - lo + 1;
    if (range <= TWO_POW_32) {
      // Rejection: accept x below the largest multiple of range that fits in 2^32.
      const limit = TWO_POW_32 - (TWO_POW_32 % range);
      for (;;) {
        const x = this.nextU32();
        if (x < limit) return lo + (x % range);
      }
    }
    // range in (2^32, 2^53]: draw just enough high bits and reject values >= range (< 2 draws expected).
    const hiCount = Math.ceil(range / TWO_POW_32); // 2 .. 2^21
    let pow = 2;
    while (pow < hiCount) pow *= 2; // integer loop rather than Math.log2, whose rounding is implementation-defined
    const mask = pow - 1;
    for (;;) {
      const x = (this.nextU32() & mask) * TWO_POW_32 + this.nextU32();
      if (x < range) return lo + x;
    }
  }

  /** Standard normal deviate (Marsaglia polar method; the second value of each pair is cached). */
  normal(): number {
    const spare = this.spare;
    if (spare === spare) {
      this.spare = NaN;
      return spare;
    }
    let u: number, v: number, s: number;
    do {
      u = 2 * this.uniform() - 1;
      v = 2 * this.uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    this.spare = v * f;
    return u * f;
  }

  /**
   * Fill dst with uniform values in [lo, hi) (default [0, 1)), each lo + (hi - lo) * k / 2^24 for a random
   * 24-bit k, rounded to float32. With the default bounds every value is exactly k / 2^24, so it is never 1;
   * for other bounds float32 rounding of values just below hi can produce hi itself.
   */
  fillUniform(dst: Float32Array, lo = 0, hi = 1): void {
    checkFinite("fillUniform", lo);
    checkFinite("fillUniform", hi);
    if (!(lo <= hi)) throw new RangeError(`Rng.fillUniform: lo (${lo}) must be <= hi (${hi})`);
    const span = (hi - lo) * INV_TWO_POW_24;
    const n = dst.length;
    for (let i = 0; i < n; i++) dst[i] = lo + span * (this.nextU32() >>> 8);
  }

  /** Fill dst with normal values of the given mean and standard deviation (default 0 and 1), rounded to float32. */
  fillNormal(dst: Float32Array, mean = 0, std = 1): void {
    checkFinite("fillNormal", mean);
    checkFinite("fillNormal", std);
    if (std < 0) throw new RangeError(`Rng.fillNormal: std must be >= 0, got ${std}`);
    const n = dst.length;
    for (let i = 0; i < n; i++) dst[i] = mean + std * this.normal();
  }
}
