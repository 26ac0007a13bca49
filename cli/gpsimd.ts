#!/usr/bin/env node
// gpsimd: the command line for kernel authors. build, run, check, profile;
// --help on each. Exit codes are in cli/options.ts (EXIT). A command's code
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

const HELP = `usage: gpsimd <command> [options]

Kernel-author tools for gpsimd operator libraries and NKI kernel files (run, check and profile
take a .py file: gpsimd run kernel.py --help).

commands:
${COMMANDS.map(([c]) => `  ${c.name.padEnd(9)}${c.summary}`).join("\n")}

gpsimd <command> --help shows a command's options; gpsimd --version prints the version.
exit codes: 0 success, 1 the operator failed or disagreed with its reference, 2 bad command line,
3 compile error, 4 library or operator not found, 70 a bug in gpsimd`;

/** The version in the package's package.json (this file runs from dist/cli/). */
function version(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${HELP}\n`);
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`${version()}\n`);
    return EXIT.OK;
  }
  const command = COMMANDS.find(([c]) => c.name === name);
  if (!command) throw new UsageError(`gpsimd: unknown command ${name}; commands: ${COMMANDS.map(([c]) => c.name).join(", ")} (gpsimd --help)`);
  const nki = name in NKI_COMMANDS && isNkiTarget(rest);
  if (parseCommand(nki ? NKI_SPECS[name] : command[0], rest) === null) return EXIT.OK; // --help (the command parses again itself)
  const run = await (nki ? NKI_COMMANDS[name] : command[1])();
  try {
    return await run(rest);
  } finally {
    await (await import("../host/index.js")).shutdown();
  }
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
