// The files a suite leaves in bench/out/ (not tracked): benny's JSON
// (<suite>.json, with every sample), ours (<suite>.meta.json: machine,
// workloads, latency percentiles, paired ratios, floors) and the chart page
// (<suite>.html). `npm run bench -- --update-readme` publishes them to
// bench/results/ (tracked), from which the README's tables are made.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../ops/index.js";
import type { Tolerance } from "./suite.js";

/** Where a run writes its results. */
export const RESULTS_DIR = path.join(PACKAGE_ROOT, "bench", "out");
/** Where published results live (the README links to them). */
export const PUBLISHED_DIR = path.join(PACKAGE_ROOT, "bench", "results");

/** One case as benny saves it with details: true (times in seconds). */
export interface BennyCase {
  name: string;
  ops: number;
  margin: number;
  samples: number;
  details: { median: number; mean: number; min: number; max: number; sampleResults: number[] };
}

/** benny's JSON file. */
export interface BennyFile {
  name: string;
  date: string;
  results: BennyCase[];
}

/** Per-call latency from single calls timed with performance.now(), in microseconds. */
export interface Latency {
  calls: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/** Two variants timed in alternating bursts: median of time(a) / time(b) over the rounds. */
export interface Paired {
  a: string;
  b: string;
  ratio: number;
  low: number;
  high: number;
  rounds: number;
}

/** What the summary needs to know about a workload. */
export interface WorkloadInfo {
  name: string;
  title: string;
  baseline: string;
  elements: number | null;
  tolerance: Tolerance;
  /** Largest |got - want| of each variant at verification. */
  maxError: Record<string, number>;
}

/** The machine and the run. */
export interface Environment {
  date: string;
  node: string;
  v8: string;
  cpus: number;
  cpuModel: string;
  platform: string;
  /** 1-minute load average when the suite started: above the CPU count, other processes were competing. */
  load: number;
}

/** <suite>.meta.json */
export interface SuiteMeta {
  suite: string;
  title: string;
  notes: string[];
  environment: Environment;
  /** Date of the benny file written in the same run (the two files belong together). */
  bennyDate: string;
  workloads: WorkloadInfo[];
  /** By case name. */
  latency: Record<string, Latency>;
  /** By workload name. */
  paired: Record<string, Paired>;
  /** By workload name: floors and kernels timed in interleaved rounds. */
  floors: Record<string, FloorRounds>;
  /** What the suite's finish() printed (its targets and their explanation), when it has one. */
  findings?: string[];
  /**
   * Targets the suite measured itself (outside benny's cases: the build suite times processes), set by its finish():
   * listed in the targets table beside those computed from the cases (report.ts).
   */
  targets?: MeasuredTarget[];
}

/** A target as a suite measured it: its name, the goal, the figure (with what it needs to be read), whether met. */
export interface MeasuredTarget { name: string; goal: string; value: string; met: boolean }

/** A time ratio over interleaved rounds: the median and range of the per-round ratios. */
export interface RoundRatio {
  ratio: number;
  low: number;
  high: number;
}

/** Floors and kernel variants timed in the same rounds (bursts of ~25 ms each, in turn). */
export interface FloorRounds {
  rounds: number;
  /** What each floor is. */
  titles: Record<string, string>;
  /** Median seconds per call, by floor or variant name. */
  seconds: Record<string, number>;
  /** By "<variant>/<floor>": time(variant) / time(floor), per round. */
  ratios: Record<string, RoundRatio>;
}

/** A suite's saved results. */
export interface SuiteResults {
  meta: SuiteMeta;
  benny: BennyFile;
}

/** This machine and now. */
export function environment(): Environment {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(), node: process.version, v8: process.versions.v8,
    cpus: cpus.length, cpuModel: cpus[0]?.model.trim() ?? "unknown", platform: `${process.platform}-${process.arch}`,
    load: os.loadavg()[0],
  };
}

/** The kinds of result file a suite leaves. */
export const RESULT_KINDS = ["json", "meta.json", "html"] as const;

/** <dir>/<suite>.<kind> */
export function resultPath(suite: string, kind: (typeof RESULT_KINDS)[number], dir = RESULTS_DIR): string {
  return path.join(dir, `${suite}.${kind}`);
}

/** Writes <suite>.meta.json. */
export function writeMeta(meta: SuiteMeta): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(resultPath(meta.suite, "meta.json"), JSON.stringify(meta, null, 2) + "\n");
}

/** The saved results of a suite; null if it has not run or its two files are from different runs (an interrupted run). */
export function readResults(suite: string, dir = RESULTS_DIR): SuiteResults | null {
  const bennyPath = resultPath(suite, "json", dir), metaPath = resultPath(suite, "meta.json", dir);
  if (!existsSync(bennyPath) || !existsSync(metaPath)) return null;
  const benny = JSON.parse(readFileSync(bennyPath, "utf8")) as BennyFile;
  const meta = JSON.parse(readFileSync(metaPath, "utf8")) as SuiteMeta;
  meta.floors ??= {}; // results saved before floors existed
  return benny.date === meta.bennyDate ? { benny, meta } : null;
}

/** "giou/multicore-tcm" -> ["giou", "multicore-tcm"] */
export function splitCase(name: string): [string, string] {
  const slash = name.indexOf("/");
  return slash < 0 ? [name, ""] : [name.slice(0, slash), name.slice(slash + 1)];
}
