// What the build suite (suites/build.ts) times, each the way a user meets it: `gpsimd watch` in a child process,
// edited by writing to its kernel file (edit -> result: from the write to the watch's verdict line); a new
// `gpsimd run` process with an empty cache folder (cold); and the floor, g++ -std=c++14 -O2 -c of the same C++
// files against a copy of gpsimd's headers that g++ 12 takes (`= delete("reason")`, a clang extension, reduced to
// `= delete`).
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../ops/index.js";
import type { MeasuredTarget } from "./results.js";

/** The compiled command line. */
export const CLI = path.join(PACKAGE_ROOT, "dist", "cli", "gpsimd.js");
/** Where the suite's copies and outputs go (bench/out is not tracked). */
export const WORK = path.join(PACKAGE_ROOT, "bench", "out", "build-suite");

/** The 1-minute load average now, for every figure the suite prints. */
export function load(): string {
  return loadavg()[0].toFixed(1);
}

/** A fresh folder under WORK. */
export function freshFolder(name: string): string {
  const dir = path.join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** gpsimd's include/ copied with `= delete("...")` reduced to `= delete`, for g++; returns the copy's folder. */
export function gxxHeaders(): string {
  const dir = freshFolder("gxx-include");
  cpSync(path.join(PACKAGE_ROOT, "include"), dir, { recursive: true });
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const file = path.join(d, name);
      if (statSync(file).isDirectory()) walk(file);
      else writeFileSync(file, readFileSync(file, "utf8").replace(/=\s*delete\s*\(\s*"(?:[^"\\]|\\.)*"\s*\)/g, "= delete"));
    }
  };
  walk(dir);
  return dir;
}

/** Wall milliseconds of g++ -std=c++14 -O2 -c of each file in turn, against `include`. */
export function gxxMillis(files: string[], include: string): number {
  const out = freshFolder("gxx-objects");
  const start = performance.now();
  for (const file of files) execFileSync("g++", ["-std=c++14", "-O2", "-w", "-c", `-I${include}`, file, "-o", path.join(out, `${path.basename(file)}.o`)], { stdio: "ignore" });
  return performance.now() - start;
}

/** Whether g++ is on the machine. */
export function hasGxx(): boolean {
  try {
    execFileSync("g++", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** One watch run as the suite saw it: the wall time from the write to the verdict, the verdict, the output meanwhile. */
export interface WatchRun { ms: number; verdict: string; output: string }

/** `gpsimd watch run ...` in a child process: edit a file, wait for the run it causes. */
export class WatchChild {
  private out = "";
  private readonly child: ChildProcess;
  private closed = false;

  constructor(args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(process.execPath, [CLI, "watch", "run", ...args], { cwd: PACKAGE_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    const take = (b: Buffer) => { this.out += b.toString(); };
    this.child.stdout!.on("data", take);
    this.child.stderr!.on("data", take);
    this.child.on("close", () => { this.closed = true; });
  }

  /** Waits for the next verdict line after output offset `from` ("── ok: result ..."); at most `timeoutMs`. */
  async verdict(from: number, timeoutMs: number): Promise<{ verdict: string; at: number }> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const m = /── ([^:\n]+): result [^\n]*\n/.exec(this.out.slice(from));
      if (m) return { verdict: m[1], at: from + m.index + m[0].length };
      if (this.closed) throw new Error(`gpsimd watch ended before a result:\n${this.out.slice(from)}`);
      if (performance.now() > deadline) throw new Error(`gpsimd watch gave no result within ${timeoutMs / 1000} s:\n${this.out.slice(from)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** The first run (the watch's start). */
  async started(timeoutMs: number): Promise<WatchRun> {
    const start = performance.now();
    const { verdict, at } = await this.verdict(0, timeoutMs);
    const run = { ms: performance.now() - start, verdict, output: this.out.slice(0, at) };
    this.seen = at;
    return run;
  }

  private seen = 0;

  /** Appends a comment to `file` (a real edit: the library's hash changes) and times the run it causes. */
  async edit(file: string, comment: string, timeoutMs: number): Promise<WatchRun> {
    const from = this.seen;
    const start = performance.now();
    appendFileSync(file, comment);
    const { verdict, at } = await this.verdict(from, timeoutMs);
    const ms = performance.now() - start;
    this.seen = at;
    return { ms, verdict, output: this.out.slice(from, at) };
  }

  /**
   * Waits until the watch and its child processes are idle (processTreeIdle): after a C++ result the watch loads the
   * next build's Binaryen tools (build/cpp/binaryen-tools.ts). Resolves with the milliseconds waited.
   */
  idle(timeoutMs = IDLE_TIMEOUT_MS): Promise<number> {
    return this.child.pid === undefined ? Promise.resolve(0) : processTreeIdle(this.child.pid, timeoutMs);
  }

  stop(): void {
    if (!this.closed) this.child.kill("SIGTERM");
  }
}

/** The longest a round waits for the watch to be idle. */
const IDLE_TIMEOUT_MS = 15_000;
/** Idle: the process tree used at most this share of one CPU over the last IDLE_WINDOW_MS. */
const IDLE_CPU_SHARE = 0.1;
const IDLE_WINDOW_MS = 400;

/** CPU milliseconds (user + system) used so far by `pid` and every process under it, from /proc; null without /proc. */
export function processTreeCpuMs(pid: number): number | null {
  if (!existsSync("/proc/self/stat")) return null;
  const ticksPerSecond = 100; // USER_HZ: 100 on Linux
  const parent = new Map<number, number>(), cpu = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try { stat = readFileSync(`/proc/${name}/stat`, "utf8"); } catch { continue; } // ended meanwhile
    // After the command name, in parentheses (which may hold spaces): state, ppid, ..., utime (14th field), stime.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    parent.set(Number(name), Number(fields[1]));
    cpu.set(Number(name), ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond);
  }
  const inTree = (p: number): boolean => { for (let at = p; at > 1; at = parent.get(at) ?? 0) if (at === pid) return true; return false; };
  let ms = 0;
  for (const [p, used] of cpu) if (inTree(p)) ms += used;
  return ms;
}

/**
 * Resolves once the process tree under `pid` has used at most IDLE_CPU_SHARE of a CPU over IDLE_WINDOW_MS (or after
 * `timeoutMs`), with the milliseconds waited: a round's floor and edit then start from a quiet watch, as an author's
 * next save comes seconds after the result. Without /proc, at once.
 */
export async function processTreeIdle(pid: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  const samples: { at: number; cpu: number }[] = [];
  for (;;) {
    const cpu = processTreeCpuMs(pid);
    const at = performance.now();
    if (cpu === null) return 0;
    samples.push({ at, cpu });
    const old = samples.find((s) => at - s.at <= IDLE_WINDOW_MS + 50);
    if (old && at - old.at >= IDLE_WINDOW_MS && cpu - old.cpu <= IDLE_CPU_SHARE * (at - old.at)) return at - start;
    if (at - start > timeoutMs) return at - start;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs the CLI once as a new process; its wall milliseconds, exit code and output. */
export function cliProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number; output: string }> {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { cwd: PACKAGE_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (b: Buffer) => { output += b.toString(); });
    child.stderr.on("data", (b: Buffer) => { output += b.toString(); });
    child.on("close", (code) => resolve({ ms: performance.now() - start, code: code ?? -1, output }));
  });
}

/** The build breakdown lines `--verbose` printed in `output` (cli/build-times.ts), the last one's. */
export function breakdownIn(output: string): string[] {
  const lines = output.split("\n");
  const head = lines.map((l, i) => (/^gpsimd: where the build of .* went/.test(l) ? i : -1)).filter((i) => i >= 0).pop();
  if (head === undefined) return [];
  const out = [lines[head].replace(/^gpsimd: /, "")];
  for (const l of lines.slice(head + 1)) {
    if (!l.startsWith("gpsimd:   ")) break;
    out.push(l.replace(/^gpsimd: /, ""));
  }
  return out;
}

/** The median of some numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** What the build suite measured (suites/build.ts): every figure with the 1-minute load average when it was taken. */
export interface BuildFigures {
  /** C++ edits in `gpsimd watch`, each beside its g++ floor; the output is the watch's for that edit. */
  cppRounds: { ms: number; gxx: number; load: string; output: string }[];
  ascRounds: { ms: number; load: string }[];
  /** The cold `gpsimd run` (empty cache folder), the g++ floor just before it, its output. */
  cold: { ms: number; gxx: number; load: string; output: string };
  /** custom_op.load of the up-to-date library, milliseconds each. */
  cached: number[];
  /** The load when the figures were put together. */
  load: string;
}

/** The goals (issue 22). */
export const BUILD_TARGETS = { cppEditMs: 2000, cppEditVsGxx: 6, coldMs: 10_000, cachedMs: 50, ascEditMs: 500 };

/**
 * The build suite's findings (the targets as measured, met or by how much not, then where the median C++ edit's and
 * the cold run's builds went) and its targets for the summary's table. The rounds themselves were printed as they
 * were measured and are not repeated here.
 */
export function buildReport(f: BuildFigures): { findings: string[]; targets: MeasuredTarget[] } {
  const cppMs = median(f.cppRounds.map((r) => r.ms));
  const ratio = median(f.cppRounds.map((r) => r.ms / r.gxx));
  const gxxMs = median(f.cppRounds.map((r) => r.gxx));
  const ascMs = median(f.ascRounds.map((r) => r.ms));
  const cachedMs = median(f.cached);
  const gap = (value: number, goal: number) => `${(value / goal).toFixed(1)}x the goal`;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const targets: MeasuredTarget[] = [
    { name: "C++ edit -> result in gpsimd watch (giou.cpp + shape.cpp multicore; build suite)", goal: "≤ 2 s", value: `${s(cppMs)} (median of ${f.cppRounds.length}, load ${f.cppRounds.map((r) => r.load).join(", ")})`, met: cppMs <= BUILD_TARGETS.cppEditMs },
    { name: "C++ edit -> result / g++ -std=c++14 -O2 -c of the same files (same rounds; build suite)", goal: "≤ 6x", value: `${ratio.toFixed(1)}x (g++ ${s(gxxMs)} for both files)`, met: ratio <= BUILD_TARGETS.cppEditVsGxx },
    { name: "cold gpsimd run of the C++ files, new process, empty cache folder (build suite)", goal: "≤ 10 s", value: `${s(f.cold.ms)} (g++ ${s(f.cold.gxx)} just before, load ${f.cold.load})`, met: f.cold.ms <= BUILD_TARGETS.coldMs },
    { name: "cached load of an up-to-date C++ library (build suite)", goal: "≤ 50 ms", value: `${cachedMs.toFixed(1)} ms (median of ${f.cached.length})`, met: cachedMs <= BUILD_TARGETS.cachedMs },
    { name: "AssemblyScript edit -> result in gpsimd watch (ops/giou multicore; build suite)", goal: "≤ 0.5 s", value: `${s(ascMs)} (median of ${f.ascRounds.length}, load ${f.ascRounds.map((r) => r.load).join(", ")})`, met: ascMs <= BUILD_TARGETS.ascEditMs },
  ];
  const goals = [BUILD_TARGETS.cppEditMs, BUILD_TARGETS.cppEditVsGxx, BUILD_TARGETS.coldMs, BUILD_TARGETS.cachedMs, BUILD_TARGETS.ascEditMs];
  const values = [cppMs, ratio, f.cold.ms, cachedMs, ascMs];
  const findings = [`targets (this run; now load ${f.load}):`];
  targets.forEach((t, i) => findings.push(`${t.name} ${t.goal}: ${t.value} -> ${t.met ? "met" : `NOT met (${gap(values[i], goals[i])})`}`));
  const mid = [...f.cppRounds].sort((a, b) => a.ms - b.ms)[f.cppRounds.length >> 1];
  findings.push("", "the median C++ edit's build (gpsimd --verbose):", ...(mid ? breakdownIn(mid.output) : []).map((l) => `  ${l}`));
  findings.push("the cold run's build:", ...breakdownIn(f.cold.output).map((l) => `  ${l}`));
  return { findings, targets };
}
