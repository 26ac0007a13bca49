// What a benchmark suite declares: workloads, each with a reference output and
// the variants that compute it. Case names are "<workload>/<variant>", so a
// figure can be found again in another run or on another machine.
import type { Tensor } from "gpsimd";
import type { SuiteMeta } from "./results.js";

/** What one call of a variant gives back: a gpsimd tensor (disposed after each timed call) or plain values. */
export type Output = Tensor | Float32Array;

/** Largest accepted difference from the reference: |got - want| <= abs + rel * |want|. */
export interface Tolerance {
  abs: number;
  rel: number;
}

/** One way of computing a workload. */
export interface Variant {
  /** The part after the slash in the case name, e.g. "multicore-tcm". */
  name: string;
  /** One call. A promise makes the case asynchronous (benny awaits every call). */
  run: () => Output | Promise<Output>;
  /** Runs before the variant is verified, timed or measured (e.g. library.configure(...)). */
  prepare?: () => void;
}

/** One computation at one size, and the variants that compute it. */
export interface Workload {
  /** The part before the slash in the case name, e.g. "giou" or "relu-fwd-32x4096". */
  name: string;
  /** One line for the summary, e.g. "W1 GIOU, 1024 x 256 box pairs". */
  title: string;
  /** The expected output; every variant is checked against it before anything is timed. */
  reference: Float32Array;
  tolerance: Tolerance;
  /** Variant the others are compared with (the naive composition, or the plain loop); the first if not given. */
  baseline?: string;
  /** Elements per call, for ns/element. */
  elements?: number;
  /** Also time this many single calls with performance.now() for median, p90 and p99 latency. */
  latencyCalls?: number;
  /** Exactly two variants, also timed in alternating bursts for a ratio that machine noise affects less. */
  paired?: boolean;
  variants: Variant[];
  /** The same work without gpsimd (plain wasm, native C, memcpy), timed in rounds interleaved with floorVariants. */
  floors?: Floor[];
  /** Variants timed in the floors' rounds (their ratios to each floor are what the targets read). */
  floorVariants?: string[];
}

/** A physical floor: what the machine allows for the workload without gpsimd, measured in the same run. */
export interface Floor {
  /** e.g. "wasm-1t", "c-128bit", "memcpy". */
  name: string;
  /** One line: what is timed. */
  title: string;
  /** Seconds per call over a burst of `calls` calls. */
  burst(calls: number): number | Promise<number>;
}

/** What setup made that must be freed when the suite ends. */
export interface Scope {
  /** Disposes x (a gpsimd or TF.js tensor) when the suite ends; returns x. */
  keep<T extends { dispose(): void }>(x: T): T;
  /** Runs fn when the suite ends (e.g. to restore a library's settings). */
  atEnd(fn: () => void): void;
}

/** A suite: `npm run bench -- <name>` runs it alone. */
export interface Suite {
  name: string;
  /** One line: what the suite measures. */
  title: string;
  /** Conditions a reader needs (checks on or off, what the timed region includes). */
  notes: string[];
  /** Seconds benny may spend on one case (default 1.5). */
  maxTime?: number;
  /** Loads libraries and makes inputs (registering them in scope to be freed). */
  setup(scope: Scope): Workload[] | Promise<Workload[]>;
  /**
   * After the harness's measurements, in the same run: the suite's own further measurements and lines (its targets,
   * met or missed, with what explains a gap), printed and saved with the results as `findings`.
   */
  finish?(meta: SuiteMeta): string[] | Promise<string[]>;
}
