#!/usr/bin/env node
// gpsimd: the command line for kernel authors. build, run, check, profile,
// watch, replay; --help on each. --json (any command but watch and replay) prints one JSON
// verdict on stdout; --save-repro DIR (run, check) writes a replayable bundle. Exit codes are in cli/options.ts (EXIT). A command's code
// (and the runtime with it) is loaded only when the command runs.
import { readFileSync } from "node:fs";
import { BUILD, RUN, CHECK, PROFILE } from "./specs.js";
import { parseCommand, CommandError, UsageError, EXIT, type CommandSpec } from "./options.js";
import { NKI_SPECS, isNkiTarget } from "./nki-specs.js";

type Command = (argv: string[]) => number | Promise<number>;

const COMMANDS: [CommandSpec, () => Promise<Command>][] = [
  [BUILD, async () => (await import("./build.js")).buildCommand],
  [RUN, async () => (await import("./run.js")).runCommand],
  [CHECK, async () => (await import("./check.js")).checkCommand],
  [PROFILE, async () => (await import("./profile.js")).profileCommand],
];

/** run, check and profile on an NKI kernel file (.py). */
const NKI_COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./nki-run.js")).nkiRunCommand,
  check: async () => (await import("./nki-check.js")).nkiCheckCommand,
  profile: async () => (await import("./nki-profile.js")).nkiProfileCommand,
};

/** Options every command takes, taken out of argv before the command parses it. */
function takeGlobalOptions(argv: string[]): { argv: string[]; json: boolean; saveRepro?: string } {
  const out: string[] = [];
  let json = false, saveRepro: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") { out.push(...argv.slice(i)); break; }
    if (a === "--json") json = true;
    else if (a === "--save-repro") {
      if (i + 1 >= argv.length) throw new UsageError("--save-repro: give the folder the bundle goes to");
      saveRepro = argv[++i];
    } else if (a.startsWith("--save-repro=")) saveRepro = a.slice("--save-repro=".length);
    else out.push(a);
  }
  return { argv: out, json, saveRepro };
}

const HELP = `usage: gpsimd <command> [options]

Kernel-author tools for gpsimd operator libraries and NKI kernel files (run, check and profile
take a .py file: gpsimd run kernel.py --help).

commands:
${COMMANDS.map(([c]) => `  ${c.name.padEnd(9)}${c.summary}`).join("\n")}

  watch    rerun run, check or profile on every save of the kernel's files, compiler kept loaded
  replay   rerun a bundle written by --save-repro and say whether verdict and outputs are the same

gpsimd <command> --help shows a command's options; gpsimd --version prints the version.
--json (build, run, check, profile): one JSON verdict on stdout, the usual output on stderr
  (docs/json.md; schema/verdict.schema.json).
--save-repro DIR (run, check): write a folder gpsimd replay DIR reruns; a failing check writes
  one to gpsimd-repro-<op>-<seed> unless --save-repro names another.
exit codes: 0 success, 1 the operator failed or disagreed with its reference, 2 bad command line,
3 compile error, 4 library or operator not found, 70 a bug in gpsimd`;

/** The version in the package's package.json (this file runs from dist/cli/). */
function version(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  const name = argv[0];
  let rest = argv.slice(1);
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${HELP}\n`);
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`${version()}\n`);
    return EXIT.OK;
  }
  if (name === "replay") return (await import("./replay.js")).replayCommand(rest);
  if (name === "watch") {
    try {
      return await (await import("./watch.js")).watchCommand(rest);
    } finally {
      await (await import("../host/index.js")).shutdown();
    }
  }
  const global = takeGlobalOptions(rest);
  if (global.saveRepro !== undefined && name !== "run" && name !== "check") throw new UsageError(`gpsimd ${name}: --save-repro is for run and check`);
  rest = global.argv;
  const command = COMMANDS.find(([c]) => c.name === name);
  if (!command) throw new UsageError(`gpsimd: unknown command ${name}; commands: ${COMMANDS.map(([c]) => c.name).join(", ")} (gpsimd --help)`);
  const nki = name in NKI_COMMANDS && isNkiTarget(rest);
  if (parseCommand(nki ? NKI_SPECS[name] : command[0], rest) === null) return EXIT.OK; // --help (the command parses again itself)
  const run = await (nki ? NKI_COMMANDS[name] : command[1])();
  const { resetReport } = await import("./report.js");
  resetReport();
  const writeJson = global.json ? (await import("./verdict-output.js")).divertStdout() : null;
  (await import("./verdict-output.js")).recordWarnings();
  let code: number = EXIT.INTERNAL, thrown: unknown;
  try {
    code = await run(rest);
  } catch (e) {
    thrown = e;
    code = e instanceof UsageError ? EXIT.USAGE : e instanceof CommandError ? e.exitCode : EXIT.INTERNAL;
  } finally {
    await (await import("../host/index.js")).shutdown();
  }
  const verdict = (await import("./verdict-output.js")).commandVerdict(name, code, thrown);
  // A failing check always leaves a bundle: the failure can then be replayed and shared as it is.
  const repro = global.saveRepro;
  const replaying = process.env.GPSIMD_REPLAY === "1"; // gpsimd replay's own rerun: no bundle inside the bundle
  if (repro !== undefined || (name === "check" && code === EXIT.FAILED && !replaying)) {
    const { saveBundle, defaultBundleFolder } = await import("./repro.js");
    const folder = repro ?? defaultBundleFolder(verdict);
    saveBundle(folder, name, rest, verdict);
    process.stderr.write(`repro bundle: ${folder} (gpsimd replay ${folder})\n`);
  }
  if (writeJson) writeJson(`${JSON.stringify(verdict, null, 2)}\n`);
  if (thrown !== undefined) throw thrown; // its message goes to stderr, its exit code is the command's
  return code;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = EXIT.USAGE;
  } else if (e instanceof CommandError) {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = e.exitCode;
  } else {
    process.stderr.write(`gpsimd: internal error: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = EXIT.INTERNAL;
  }
}
