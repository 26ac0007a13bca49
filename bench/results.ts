// The files a suite leaves in bench/results/: benny's JSON (<suite>.json, with
// every sample) and chart (<suite>.chart.html), and ours (<suite>.meta.json:
// machine, workloads, latency percentiles, paired ratios). The summary and
// the README table are computed from these files only.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../ops/index.js";
import type { Tolerance } from "./suite.js";

/** Where results are written. */
export const RESULTS_DIR = path.join(PACKAGE_ROOT, "bench", "results");

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

/** bench/results/<suite>.<kind> */
export function resultPath(suite: string, kind: "json" | "chart.html" | "meta.json"): string {
  return path.join(RESULTS_DIR, `${suite}.${kind}`);
}

/** Writes <suite>.meta.json. */
export function writeMeta(meta: SuiteMeta): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(resultPath(meta.suite, "meta.json"), JSON.stringify(meta, null, 2) + "\n");
}

/** The saved results of a suite; null if it has not run or its two files are from different runs (an interrupted run). */
export function readResults(suite: string): SuiteResults | null {
  const bennyPath = resultPath(suite, "json"), metaPath = resultPath(suite, "meta.json");
  if (!existsSync(bennyPath) || !existsSync(metaPath)) return null;
  const benny = JSON.parse(readFileSync(bennyPath, "utf8")) as BennyFile;
  const meta = JSON.parse(readFileSync(metaPath, "utf8")) as SuiteMeta;
  return benny.date === meta.bennyDate ? { benny, meta } : null;
}

/** "giou/multicore-tcm" -> ["giou", "multicore-tcm"] */
export function splitCase(name: string): [string, string] {
  const slash = name.indexOf("/");
  return slash < 0 ? [name, ""] : [name.slice(0, slash), name.slice(slash + 1)];
}
