// gpsimd replay DIR: reruns a bundle written by --save-repro (cli/repro.ts)
// in its own folder and says whether the verdict and the inputs' and outputs'
// hashes are the ones recorded. Exit 0 the same, 1 different, 2 the bundle
// cannot be replayed faithfully (its reference or case generator changed).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gpsimdVersion, sha256, type Verdict } from "../host/verdict/verdict.js";
import type { Problem } from "../host/verdict/problem.js";
import { BUNDLE_FORMAT, type Bundle } from "./repro.js";
import { CommandError, UsageError, EXIT } from "./options.js";

const HELP = `usage: gpsimd replay <bundle folder>

Reruns a bundle written by gpsimd run|check --save-repro (or by a failing check) from its own
folder and compares the verdict (errors by class, code, operator or kernel, core or instance,
location, index ranges, file name, line and column), the inputs and the outputs (by sha256) with
the ones recorded when the bundle was made.

exit codes: 0 the same, 1 different, 2 not a bundle, or its reference module or case generator
changed since it was made (the check is refused rather than run against something else)`;

/** What of a verdict must replay: nothing that depends on where the files are or on the clock. */
export function fingerprint(v: Verdict): unknown {
  const problem = (p: Problem) => ({
    class: p.class, code: p.code, op: p.op, kernel: p.kernel, core: p.core, instance: p.instance, tensor: p.tensor?.replace(/\S*[/\\]/g, ""),
    location: p.location, index: p.index, allowed: p.allowed, file: p.file === undefined ? undefined : path.basename(p.file), line: p.line, column: p.column,
  });
  const c = v.check;
  return {
    verdict: v.verdict, exitCode: v.exitCode, errors: v.errors.map(problem), warnings: v.warnings.map(problem),
    inputs: v.inputs?.map((t) => t.sha256), outputs: v.outputs?.map((t) => `${t.name} ${t.dtype}[${t.sizes.join(",")}] ${t.sha256}`),
    check: c && { ...c, referenceSha256: undefined },
  };
}

/** The differences between two fingerprints, as "field: expected -> got" lines. */
function differences(a: unknown, b: unknown, at = ""): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at ? `${at}.${k}` : k));
  }
  return [`${at}: recorded ${JSON.stringify(a)}, replayed ${JSON.stringify(b)}`];
}

/** Runs gpsimd replay. */
export function replayCommand(argv: string[]): number {
  if (argv.includes("--help") || argv.includes("-h")) { process.stdout.write(`${HELP}\n`); return EXIT.OK; }
  if (argv.length !== 1) throw new UsageError("gpsimd replay: give one bundle folder (gpsimd replay --help)");
  const folder = argv[0];
  const file = path.join(folder, "bundle.json");
  if (!existsSync(file)) throw new UsageError(`gpsimd replay: ${file} does not exist; a bundle is written by gpsimd run|check --save-repro DIR`);
  const bundle = JSON.parse(readFileSync(file, "utf8")) as Bundle;
  if (bundle.format !== BUNDLE_FORMAT) throw new UsageError(`gpsimd replay: ${file} is not a gpsimd repro bundle`);
  if (bundle.reference) {
    const now = sha256(readFileSync(path.join(folder, bundle.reference.file)));
    if (now !== bundle.reference.sha256) {
      throw new CommandError(`gpsimd replay: the reference ${bundle.reference.file} changed since the bundle was made (sha256 ${bundle.reference.sha256.slice(0, 12)}... recorded, ${now.slice(0, 12)}... now); a check against another reference proves nothing about this failure, so it is not run`, EXIT.USAGE);
    }
  }
  process.stdout.write(`replay ${folder}: gpsimd ${[bundle.command, ...bundle.argv].join(" ")}\n  made by gpsimd ${bundle.gpsimd}, replayed by gpsimd ${gpsimdVersion()}\n`);
  const cli = fileURLToPath(new URL("./gpsimd.js", import.meta.url));
  const child = spawnSync(process.execPath, [cli, bundle.command, ...bundle.argv, "--json"], { cwd: folder, encoding: "utf8", maxBuffer: 1 << 28, env: { ...process.env, GPSIMD_REPLAY: "1" } });
  let got: Verdict;
  try {
    got = JSON.parse(child.stdout) as Verdict;
  } catch {
    throw new CommandError(`gpsimd replay: the replayed call printed no verdict (exit ${child.status}):\n${child.stderr}`, EXIT.FAILED);
  }
  const refused = got.errors.find((p) => p.code === "E_REFERENCE_CHANGED");
  if (refused) throw new CommandError(`gpsimd replay: ${refused.message}`, EXIT.USAGE);
  if (bundle.generatorSha256 && got.check?.generatorSha256 !== bundle.generatorSha256) {
    throw new CommandError(`gpsimd replay: the case generator changed since the bundle was made (its parameters hash ${bundle.generatorSha256.slice(0, 12)}... then, ${String(got.check?.generatorSha256).slice(0, 12)}... now): the same seed would draw other cases, so the check is refused`, EXIT.USAGE);
  }
  const expected = bundle.expected;
  const word = (v: Verdict) => `${v.verdict}${v.errors.length ? `: ${v.errors.map((e) => `${e.class} [${e.code}]`).join(", ")}` : ""}`;
  process.stdout.write(`  recorded verdict: ${word(expected)}\n  replayed verdict: ${word(got)}\n`);
  for (const [i, t] of (got.inputs ?? []).entries()) process.stdout.write(`  input ${t.name} ${t.dtype}[${t.sizes.join(", ")}] sha256 ${t.sha256.slice(0, 16)} ${expected.inputs?.[i]?.sha256 === t.sha256 && bundle.inputs[i]?.sha256 === t.sha256 ? "same as inputs/" : "DIFFERENT from the bundle's"}\n`);
  for (const [i, t] of (got.outputs ?? []).entries()) process.stdout.write(`  output ${t.name} ${t.dtype}[${t.sizes.join(", ")}] sha256 ${t.sha256.slice(0, 16)} ${expected.outputs?.[i]?.sha256 === t.sha256 ? "same" : "DIFFERENT"}\n`);
  const diff = differences(fingerprint(expected), fingerprint(got));
  if (diff.length === 0) {
    process.stdout.write("SAME: the replay gave the recorded verdict, inputs and outputs\n");
    return EXIT.OK;
  }
  process.stdout.write(`DIFFERENT:\n${diff.map((d) => `  ${d}`).join("\n")}\n`);
  return EXIT.FAILED;
}
