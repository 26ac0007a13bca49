// Runs Binaryen's command-line tools (wasm-dis, wasm-merge, wasm-opt) for C++ builds, each in a Node process of its
// own (on TOOL_NODE_FLAGS). Such a process spends 0.2-0.3 s starting Node and compiling the tool's 9 MB of wasm
// before the tool does anything, and a C++ build runs five of them, three one after another on its critical path
// (build A's wasm-dis, then wasm-merge and wasm-opt for builds A and B side by side). So the processes are started
// ahead (binaryen-tool-child.ts: loaded, waiting for a command line) and a run takes a loaded one:
//
// - in `gpsimd watch` (keepWarm: the compiler thread's workerData, host/library/compile-service.ts), after each
//   build, for the next one, so that a save's build finds them loaded: they load while the author reads the result.
//   Those are compiled eagerly: nothing waits for them, and the run gets compiled code. A build that finds some
//   missing (the first, or a save right after a result) starts them while clang compiles (prepareBuildTools).
// - Elsewhere (custom_op.load, gpsimd build or run: one build per process, mostly) each tool is spawned when it runs,
//   as before: loading them while clang compiled took CPU from clang on a busy machine, and the cold gpsimd run of
//   the seed's giou was no faster (10.4-10.7 s against 10.0-10.3 s spawned, interleaved, load 3.4-3.7).
//
// A loaded process costs memory: a wasm-opt compiled eagerly holds 160 MB resident, so watch's five about 0.8 GB.
//
// A process runs one command and exits, as a spawned tool does: the same arguments, the same output, the same exit
// code and stderr. When no loaded process is there, or the one taken died before its run, the tool is spawned as
// before. GPSIMD_WARM_BINARYEN_TOOLS=0 spawns every run.
import { execFile, fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { isMainThread, workerData } from "node:worker_threads";
import { PACKAGE_ROOT } from "../paths.js";
import type { ToolReady, ToolRunRequest } from "./binaryen-tool-child.js";

/** The Binaryen tools C++ builds run. */
export type BinaryenTool = "wasm-dis" | "wasm-merge" | "wasm-opt";

/**
 * Node's flags for a Binaryen tool process (wasm-dis, wasm-merge, wasm-opt: Binaryen compiled to 9 MB of wasm). A
 * tool runs for a second or two, so V8's optimising compiler spends more on tiering Binaryen's functions up than
 * the faster code gives back: with Liftoff alone the same output (byte for byte) costs wasm-opt -O3 1.3 s of CPU
 * instead of 3.0, wasm-merge 0.3 instead of 1.1, wasm-dis 0.2 instead of 0.4 (giou-fixed.cpp, measured
 * interleaved at load 21).
 */
export const TOOL_NODE_FLAGS = ["--liftoff-only"];

/**
 * A process loaded for a later build compiles all of the tool's functions as it loads (V8 compiles wasm functions
 * at their first call otherwise): wasm-opt -O1 on the device runtime ran in 0.31-0.36 s instead of 0.39-0.44 s,
 * and the load, which nothing waits for, took 0.31-0.48 s instead of 0.18-0.19 s (load 1.7-2.2).
 */
const EAGER_FLAGS = ["--no-wasm-lazy-compilation"];

/** What a tool printed. */
export interface ToolOutput { stdout: string; stderr: string }

/** The tool's script in the binaryen package. */
export function binaryenToolScript(tool: BinaryenTool): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve("binaryen/package.json")), "bin", tool);
}

/** The child's script: beside this file when running from dist/, else dist/'s (tests run the sources). */
function childScript(): string {
  const beside = fileURLToPath(new URL("./binaryen-tool-child.js", import.meta.url));
  return existsSync(beside) ? beside : path.join(PACKAGE_ROOT, "dist", "build", "cpp", "binaryen-tool-child.js");
}

function enabled(): boolean {
  return process.env.GPSIMD_WARM_BINARYEN_TOOLS !== "0";
}

/** Whether this thread keeps tools loaded for its builds (gpsimd watch's compiler thread). */
function keepWarm(): boolean {
  return !isMainThread && (workerData as { keepBinaryenToolsWarm?: boolean } | null)?.keepBinaryenToolsWarm === true;
}

/** A tool process loaded, or loading, for one run. */
interface LoadedTool {
  tool: BinaryenTool;
  child: ChildProcess;
  /** True once the tool is loaded; false if the process ended or failed first. */
  ready: Promise<boolean>;
  isReady: boolean;
}

/** Loaded (or loading) processes not yet taken, per tool. */
const idle = new Map<BinaryenTool, LoadedTool[]>();

/** What a C++ build's kernel runs: build A's line tables, then wasm-merge and wasm-opt for builds A and B. */
export const KERNEL_BUILD_TOOLS: ToolCounts = { "wasm-dis": 1, "wasm-merge": 2, "wasm-opt": 2 };
/** How many processes of each tool. */
export type ToolCounts = Partial<Record<BinaryenTool, number>>;

/**
 * After a build, the next build's processes load one at a time, from this long after it: by then the build's answer
 * is handed back and its library loading (a fork costs the compiler thread 10-40 ms, and a loading tool a CPU), and
 * one at a time leaves the other CPU to the kernel's run and the author's own work.
 */
const NEXT_BUILD_DELAY_MS = 150;

/** Counts builds: loading for the next build stops once a build starts (it loads what it lacks itself). */
let buildsStarted = 0;

/** A C++ build starts: what loads for the next build stops here (prepareBuildTools then loads what is missing). */
export function buildStarts(): void {
  buildsStarted++;
}

/**
 * Starts loading tool processes until `counts` of each are loaded or loading, for runs to come (nothing when warm
 * tools are off). A process not taken stays until it is, or until this process (or thread) ends.
 */
export function prepareBinaryenTools(counts: ToolCounts, eager = false): void {
  while (startMissing(counts, eager));
}

/** Starts one process of the first tool that has fewer than `counts` loaded or loading; null when none lacks one. */
function startMissing(counts: ToolCounts, eager: boolean): LoadedTool | null {
  if (!enabled()) return null;
  for (const [tool, count] of Object.entries(counts) as [BinaryenTool, number][]) {
    const list = idle.get(tool) ?? [];
    idle.set(tool, list);
    if (list.length >= count) continue;
    const loaded = startTool(tool, eager);
    if (loaded) list.push(loaded);
    return loaded;
  }
  return null;
}

/** When a C++ build's compile has started, in gpsimd watch: the processes it will take that are not loaded yet. */
export function prepareBuildTools(): void {
  if (keepWarm()) prepareBinaryenTools(KERNEL_BUILD_TOOLS);
}

/** After a C++ build in gpsimd watch: the next build's processes (see the head of this file and NEXT_BUILD_DELAY_MS). */
export function prepareNextBuildTools(): void {
  if (!keepWarm() || !enabled()) return;
  const build = buildsStarted;
  const next = () => {
    if (buildsStarted !== build) return;
    // The next once this one has loaded; none after one that failed to (a build then spawns what it lacks).
    void startMissing(KERNEL_BUILD_TOOLS, true)?.ready.then((loaded) => { if (loaded) next(); });
  };
  setTimeout(next, NEXT_BUILD_DELAY_MS).unref();
}

/** Tool processes this thread started (tests count them). */
let started = 0;
export function toolProcessesStarted(): number {
  return started;
}

function startTool(tool: BinaryenTool, eager: boolean): LoadedTool | null {
  started++;
  let child: ChildProcess;
  try {
    child = fork(childScript(), [binaryenToolScript(tool)], { execArgv: [...TOOL_NODE_FLAGS, ...(eager ? EAGER_FLAGS : [])], stdio: ["ignore", "pipe", "pipe", "ipc"] });
  } catch {
    return null;
  }
  const loaded: LoadedTool = { tool, child, isReady: false, ready: Promise.resolve(false) };
  loaded.ready = new Promise<boolean>((resolve) => {
    child.once("message", (m: ToolReady) => { loaded.isReady = m?.ready === true; resolve(loaded.isReady); });
    child.once("exit", () => { forget(loaded); resolve(false); });
    child.once("error", () => { forget(loaded); resolve(false); });
  });
  // What it prints while loading is nobody's; its run's output is read from the run on (runLoaded).
  child.stdout!.resume();
  child.stderr!.resume();
  hold(child, false);
  return loaded;
}

/** Whether `child` keeps this process up: only while a run waits for it. */
function hold(child: ChildProcess, on: boolean): void {
  const handles = [child, child.channel as unknown as { ref(): void; unref(): void } | undefined, child.stdout as unknown as { ref(): void; unref(): void }, child.stderr as unknown as { ref(): void; unref(): void }];
  for (const h of handles) if (h) (on ? h.ref() : h.unref());
}

/** The process ids of the loaded (or loading) processes of `tool` not yet taken (tests look at them). */
export function idleToolPids(tool: BinaryenTool): number[] {
  return (idle.get(tool) ?? []).map((l) => l.child.pid!).filter((pid) => pid !== undefined);
}

/** Resolves once every idle process of `tool` has loaded or ended. */
export async function idleToolsLoaded(tool: BinaryenTool): Promise<void> {
  await Promise.all((idle.get(tool) ?? []).map((l) => l.ready));
}

function forget(loaded: LoadedTool): void {
  const list = idle.get(loaded.tool);
  const at = list?.indexOf(loaded) ?? -1;
  if (at >= 0) list!.splice(at, 1);
}

/** A loaded process of `tool` for a run, taken out of the idle ones (a loaded one first, else one loading). */
function take(tool: BinaryenTool): LoadedTool | null {
  const list = idle.get(tool);
  if (!list?.length) return null;
  const at = Math.max(0, list.findIndex((l) => l.isReady));
  return list.splice(at, 1)[0];
}

/**
 * Runs `tool` on `args` (arguments after the tool's name) and resolves with what it printed; rejects as execFile
 * does for a spawned tool, "Command failed: <command line>" and the tool's stderr, when it exits other than 0.
 * `warm: false` spawns it whatever is loaded.
 */
export async function runBinaryenTool(tool: BinaryenTool, args: string[], options: { warm?: boolean } = {}): Promise<ToolOutput> {
  const loaded = options.warm === false || !enabled() ? null : take(tool);
  if (loaded && (await loaded.ready)) {
    const out = await runLoaded(loaded, args);
    if (out) return out;
  } else if (loaded) {
    loaded.child.kill();
  }
  return spawnTool(tool, args);
}

const execFileAsync = promisify(execFile);

/** The tool in a process of its own, as C++ builds ran every tool before loaded ones. */
async function spawnTool(tool: BinaryenTool, args: string[]): Promise<ToolOutput> {
  const { stdout, stderr } = await execFileAsync(process.execPath, [...TOOL_NODE_FLAGS, binaryenToolScript(tool), ...args], { maxBuffer: 1 << 30 });
  return { stdout, stderr };
}

/**
 * One run in a loaded process; null when the process could not be given its command line (it ended meanwhile):
 * the caller spawns the tool instead.
 */
function runLoaded(loaded: LoadedTool, args: string[]): Promise<ToolOutput | null> {
  const { child } = loaded;
  if (child.exitCode !== null || child.signalCode !== null || !child.connected) return Promise.resolve(null);
  const stdout: Buffer[] = [], stderr: Buffer[] = [];
  child.stdout!.on("data", (b: Buffer) => stdout.push(b));
  child.stderr!.on("data", (b: Buffer) => stderr.push(b));
  hold(child, true);
  return new Promise((resolve, reject) => {
    let sent = false;
    child.once("close", (code, signal) => {
      if (!sent) return resolve(null);
      const out = { stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() };
      if (code === 0) return resolve(out);
      const command = [process.execPath, ...TOOL_NODE_FLAGS, binaryenToolScript(loaded.tool), ...args].join(" ");
      reject(Object.assign(new Error(`Command failed: ${command}\n${out.stderr}`), { code, signal, ...out }));
    });
    child.send({ args } satisfies ToolRunRequest, (e) => {
      if (e) child.kill(); // its close answers null: spawned instead
      else sent = true;
    });
  });
}
