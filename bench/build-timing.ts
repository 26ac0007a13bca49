// What the build suite (suites/build.ts) times, each the way a user meets it: `gpsimd watch` in a child process,
// edited by writing to its kernel file (edit -> result: from the write to the watch's verdict line); a new
// `gpsimd run` process with an empty cache folder (cold); and the floor, g++ -std=c++14 -O2 -c of the same C++
// files against a copy of gpsimd's headers that g++ 12 takes (`= delete("reason")`, a clang extension, reduced to
// `= delete`).
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../ops/index.js";

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

  stop(): void {
    if (!this.closed) this.child.kill("SIGTERM");
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
