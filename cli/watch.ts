// gpsimd watch [run|check|profile] <target> [options]: runs the command, then
// again on every save of a kernel, shape or header file it depends on, in one
// process. The compiler thread, the core threads and the loaded device runtime
// stay up between runs, so a rebuild pays only for compiling what changed.
import { watch, existsSync, statSync, readdirSync, type FSWatcher } from "node:fs";
import path from "node:path";
import { RUN, CHECK, PROFILE } from "./specs.js";
import { NKI_SPECS, isNkiTarget } from "./nki-specs.js";
import { parseCommand, UsageError, CommandError, EXIT, DEFAULT_OUT, type CommandSpec } from "./options.js";
import { duration } from "./format.js";
import { runTimeLines } from "./watch-times.js";

type Command = (argv: string[]) => number | Promise<number>;

const SUBCOMMANDS = ["run", "check", "profile"] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

const SPECS: Record<Subcommand, CommandSpec> = { run: RUN, check: CHECK, profile: PROFILE };

async function commandFor(sub: Subcommand, nki: boolean): Promise<Command> {
  if (nki) {
    if (sub === "run") return (await import("./nki-run.js")).nkiRunCommand;
    if (sub === "check") return (await import("./nki-check.js")).nkiCheckCommand;
    return (await import("./nki-profile.js")).nkiProfileCommand;
  }
  if (sub === "run") return (await import("./run.js")).runCommand;
  if (sub === "check") return (await import("./check.js")).checkCommand;
  return (await import("./profile.js")).profileCommand;
}

/** Files whose change reruns the command: kernel, shape and reference sources, headers, NKI files. */
const WATCHED_FILE = /\.(ts|mts|cpp|cc|cxx|c|h|hh|hpp|hxx|inc|py|json)$/;
/** Written by builds themselves (typings next to a library): never a reason to rebuild. */
const WRITTEN_BY_BUILDS = /\.d\.ts$/;
/** Quiet time after the last change before rerunning: editors save in several writes (temp file, rename), within a few ms. */
const SETTLE_MS = 30;
/** Binaryen's optimize level of the kernels watch rebuilds (AssemblyScript; C++ keeps its flags): see WATCH_HELP. */
const WATCH_OPTIMIZE_LEVEL = 1;

export const WATCH_HELP = `
usage: gpsimd watch [run|check|profile] <library folder | files...> [<op>] [options of that command]

Runs the command (default: run), then again each time a kernel, shape, reference or header file of
the target is saved, in this one process: the compiler stays loaded, so a rebuild compiles only
what changed. Each run ends with its result or the exact error, and the time from the save to the
result. Stop with Ctrl-C.

Watched: an operator folder (and everything under it), or the folders of the files named (their
.ts, .cpp, .h, .py and .json files); the build output folder is never watched.

examples:
  gpsimd watch run examples/seeds-cpp giou --variant giou_fixed --shape 1024,4 --shape 1024,4 --values boxes
  gpsimd watch check ops/relu relu_forward --variant tcm --shape 4096
  gpsimd watch run examples/seeds-nki/tensor_add.py --grid 2,2 --arg randn:256,1024 --arg randn:256,1024

watch's own options:
  --verbose        after each result, where the time from the save went: the build stage by stage
                   (asc's parse, compile, gpsimd's passes, optimize, emit), loading and the command
  --optimize N     Binaryen optimize level of the AssemblyScript kernels watch rebuilds (0-3, default
                   ${WATCH_OPTIMIZE_LEVEL}): the checks are the same at every level, and the shipped kernels ran
                   at -O3's speed within the noise at -O1 (README, "Command line"); -O3 is what
                   gpsimd build and custom_op.load use, and they rebuild a library watch built

exit codes: 0 stopped with Ctrl-C, 2 bad command line (the first run's; later runs' errors are printed)`;

/** Where a change matters: folders watched recursively, and folders whose direct files matter. */
interface Watched { trees: string[]; folders: string[] }

/** The folders of the command's target: operator folders whole, and each named file's folder. */
export function watchedFolders(positionals: string[]): Watched {
  const trees = new Set<string>(), folders = new Set<string>();
  for (const p of positionals) {
    if (!existsSync(p)) continue;
    const full = path.resolve(p);
    if (statSync(full).isDirectory()) trees.add(full);
    else folders.add(path.dirname(full));
  }
  return { trees: [...trees], folders: [...folders].filter((f) => ![...trees].some((t) => f === t || f.startsWith(t + path.sep))) };
}

/** Runs `gpsimd watch`; resolves with the exit code when stopped (SIGINT, SIGTERM). */
export async function watchCommand(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(`${WATCH_HELP.trim()}\n`);
    return argv.length === 0 ? EXIT.USAGE : EXIT.OK;
  }
  const sub: Subcommand = (SUBCOMMANDS as readonly string[]).includes(argv[0]) ? argv[0] as Subcommand : "run";
  const own = watchOptions(sub === argv[0] ? argv.slice(1) : argv);
  const nki = isNkiTarget(own.rest);
  const spec = nki ? NKI_SPECS[sub] : SPECS[sub];
  // A command that has its own --verbose gets it too.
  const rest = own.verbose && "verbose" in spec.options ? [...own.rest, "--verbose"] : own.rest;
  const parsed = parseCommand({ ...spec, name: `watch ${sub}` }, rest);
  if (!parsed) return EXIT.OK;
  // The target: an NKI command's positionals are its file; the others' end with the operator's name.
  const target = nki ? parsed.positionals : parsed.positionals.slice(0, -1);
  const watched = watchedFolders(target);
  if (watched.trees.length + watched.folders.length === 0) {
    throw new UsageError(`gpsimd watch: ${target.join(", ") || "(no target)"} is not a file or folder to watch; give an operator folder or the kernel's files, then the operator`);
  }
  const outDir = path.resolve((parsed.values.out as string | undefined) ?? DEFAULT_OUT);
  const command = await commandFor(sub, nki);
  const { setBuildOptimizeLevel, setKeepBuildToolsWarm } = await import("../host/library/compile-service.js");
  setBuildOptimizeLevel(own.optimizeLevel === 3 ? undefined : own.optimizeLevel);
  setKeepBuildToolsWarm(true); // a C++ save's build finds its Binaryen tools loaded (build/cpp/binaryen-tools.ts)
  if (sub !== "check") (await import("./inputs.js")).keepDrawnValues(true); // every run gets the same inputs again
  const session = new WatchSession(sub, command, rest, outDir, own.verbose);
  // The first run's usage errors are the command line's: stop there, as the command itself would.
  const first = await session.runOnce("start");
  if (first === EXIT.USAGE) return EXIT.USAGE;
  return session.watchUntilStopped(watched);
}

/** Watch's own options, taken out of the command's: --verbose, --optimize N. */
function watchOptions(argv: string[]): { rest: string[]; verbose: boolean; optimizeLevel: number } {
  const rest: string[] = [];
  let verbose = false, optimizeLevel = WATCH_OPTIMIZE_LEVEL;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--verbose") { verbose = true; continue; }
    const level = arg === "--optimize" ? argv[++i] : arg.startsWith("--optimize=") ? arg.slice("--optimize=".length) : null;
    if (level === null) { rest.push(arg); continue; }
    if (level === undefined || !/^[0-3]$/.test(level)) throw new UsageError(`gpsimd watch: --optimize takes a Binaryen optimize level, 0 to 3; got ${level ?? "nothing"}`);
    optimizeLevel = Number(level);
  }
  return { rest, verbose, optimizeLevel };
}

/** One watch: reruns the command after changes, one run at a time. */
class WatchSession {
  private pendingSince: number | null = null;
  private changed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly sub: Subcommand, private readonly command: Command, private readonly argv: string[], private readonly outDir: string, private readonly verbose: boolean) {}

  /** Runs the command once with fresh state; prints the result line; returns the command's exit code. */
  async runOnce(reason: string, since = performance.now()): Promise<number> {
    this.running = true;
    const { resetReport } = await import("./report.js");
    const { takeLastBuild } = await import("../host/library/compile-service.js");
    resetReport();
    await unloadLibraries(); // the rebuilt library registers the same NEURON_LIBRARY name again
    process.stdout.write(`\n── gpsimd ${this.sub} (${reason}) ${clock()} ──\n`);
    let code: number;
    takeLastBuild();
    const startMs = performance.now();
    try {
      code = await this.command(this.argv);
    } catch (e) {
      code = e instanceof UsageError ? EXIT.USAGE : e instanceof CommandError ? e.exitCode : EXIT.INTERNAL;
      process.stdout.write(`${e instanceof UsageError || e instanceof CommandError ? e.message : `gpsimd: internal error: ${e instanceof Error ? e.stack : String(e)}`}\n`);
    }
    const endMs = performance.now();
    const build = takeLastBuild();
    if (build?.answer.ok && build.optimizeLevel !== undefined) {
      process.stdout.write(`  (${build.name} rebuilt at -O${build.optimizeLevel} for a quick rebuild, same checks; gpsimd build and custom_op.load build at -O3)\n`);
    }
    if (this.verbose) process.stdout.write(`${runTimeLines({ savedMs: since, startMs, endMs }, build).join("\n")}\n`);
    const verdict = code === EXIT.OK ? "ok" : code === EXIT.BUILD ? "compile error" : code === EXIT.FAILED ? "failed" : `exit ${code}`;
    process.stdout.write(`── ${verdict}: result ${duration(endMs - since)} after the ${reason === "start" ? "start" : "save"}; watching for changes (Ctrl-C to stop) ──\n`);
    this.running = false;
    return code;
  }

  /** Watches until SIGINT/SIGTERM; resolves with EXIT.OK then. */
  watchUntilStopped(watched: Watched): Promise<number> {
    const watchers: FSWatcher[] = [];
    const onChange = (folder: string) => (_event: string, name: string | Buffer | null) => {
      if (name === null) return;
      const file = path.resolve(folder, name.toString());
      if (!WATCHED_FILE.test(file) || WRITTEN_BY_BUILDS.test(file)) return;
      if (file === this.outDir || file.startsWith(this.outDir + path.sep) || file.split(path.sep).includes("node_modules")) return;
      this.changed.add(path.relative(process.cwd(), file) || file);
      this.pendingSince ??= performance.now();
      this.schedule();
    };
    // One plain watcher per folder: Node's recursive watch on Linux loses files that editors replace by renaming.
    const folders = [...watched.folders, ...watched.trees.flatMap((t) => foldersUnder(t, this.outDir))];
    for (const folder of folders) watchers.push(watch(folder, onChange(folder)));
    return new Promise((resolve) => {
      const stop = () => {
        for (const w of watchers) w.close();
        if (this.timer) clearTimeout(this.timer);
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve(EXIT.OK);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
  }

  /** Reruns once changes settle; changes during a run wait for it to end. */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.running) { this.schedule(); return; }
      const files = [...this.changed];
      const since = this.pendingSince ?? performance.now();
      this.changed.clear();
      this.pendingSince = null;
      const reason = files.length === 1 ? `${files[0]} changed` : `${files.length} files changed`;
      void this.runOnce(reason, since);
    }, SETTLE_MS);
  }
}

/** A folder and the folders under it, but for build output and installed packages. */
function foldersUnder(root: string, outDir: string): string[] {
  const found = [root];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = path.join(root, entry.name);
    if (full !== outDir) found.push(...foldersUnder(full, outDir));
  }
  return found;
}

/** Unloads every library loaded by an earlier run, so this run's build can register its names again. */
async function unloadLibraries(): Promise<void> {
  const { loadedNamespaces } = await import("../host/library/loader.js");
  const { custom_op } = await import("../host/index.js");
  for (const name of loadedNamespaces()) custom_op.unload(name);
}

function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}
