// --json: the command's human output goes to stderr and stdout carries one
// JSON verdict (host/verdict/verdict.ts) built from the call's report.
import { toVerdict, type Verdict } from "../host/verdict/verdict.js";
import { problemOfWarning, type Problem } from "../host/verdict/problem.js";
import { setOutput, output } from "../host/output.js";
import { callReport } from "./report.js";
import { CommandError, UsageError } from "./options.js";

/** A failure of the command line itself (not a gpsimd error) in the schema's fields. */
function commandProblem(e: unknown): Problem | null {
  if (e instanceof UsageError) return { class: "UsageError", code: "E_USAGE", message: e.message, details: {} };
  if (e instanceof CommandError) return { class: "CommandError", code: `E_EXIT_${e.exitCode}`, message: e.message, details: {} };
  return null;
}

/** The verdict of a command that returned `exitCode` (and threw `thrown`, if it did). */
export function commandVerdict(command: string, exitCode: number, thrown?: unknown): Verdict {
  const r = callReport();
  const errors = [...r.errors];
  const failures = [...r.failures];
  if (thrown !== undefined) {
    const cause = thrown instanceof CommandError ? thrown.error : thrown;
    if (cause !== undefined && !(cause instanceof UsageError) && !(cause instanceof CommandError)) {
      if (!errors.includes(cause)) errors.push(cause);
    } else if (errors.length === 0 && failures.length === 0) {
      const p = commandProblem(thrown);
      if (p) failures.push(p);
    }
  }
  const more: Parameters<typeof toVerdict>[2] = { target: r.target, exitCode, errors: failures, warnings: r.warnings.map(problemOfWarning) };
  if (r.inputs.length) more.inputs = r.inputs.map(({ npy: _npy, ...rest }) => rest);
  if (r.outputs.length) more.outputs = r.outputs;
  if (r.check) more.check = r.check;
  if (r.profile) more.profile = r.profile;
  if (r.build) more.build = r.build;
  if (Object.keys(r.timing).length) more.timing = r.timing;
  const verdict = toVerdict(command, errors, more);
  if (!more.target) delete verdict.target;
  return verdict;
}

/** Records the runtime's warnings in the call's report, still printing them. */
export function recordWarnings(): () => void {
  const previous = output().warn;
  return setOutput({ warn: (text) => { callReport().warnings.push(text); previous(text); } });
}

/** Sends everything the command prints to stdout to stderr instead; returns the writer of the real stdout. */
export function divertStdout(): (text: string) => void {
  const real = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return (text) => { real(text); };
}
