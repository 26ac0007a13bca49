// Options every gpsimd thread starts with. A worker inherits the process's
// execArgv, and only part of it may go to a worker: a process started as
// `node --input-type=module -e ...` would give every worker --input-type, with
// which a worker file cannot start (the thread dies before it runs anything,
// and whoever waits for it waits until a timeout); and V8's and the process's
// own flags (`node --expose-gc`, `--max-old-space-size=4096`, `--stack-size`)
// make `new Worker` throw ERR_WORKER_INVALID_EXEC_ARGV. Threads start with
// the flags a worker accepts, which Node itself says: a worker made with all
// of them throws, naming those it refuses.
import { Worker, type WorkerOptions } from "node:worker_threads";

/** Flags of the main process that do not carry over to a worker file. */
const MAIN_SCRIPT_ONLY = /^--(input-type|eval|print|entry-url)(=|$)/;

let accepted: string[] | null = null;

/** The process's execArgv without the flags that only make sense for the main script or that a worker refuses. */
export function workerExecArgv(): string[] {
  if (accepted) return accepted;
  let flags = process.execArgv.filter((a) => !MAIN_SCRIPT_ONLY.test(a));
  for (let attempt = 0; attempt < 3 && flags.length; attempt++) {
    const refused = refusedFlags(flags);
    if (!refused.length) break;
    flags = withoutFlags(flags, refused);
  }
  accepted = flags;
  return flags;
}

/** The flags Node names when a worker is made with `flags` (none when it accepts them all; the probe ends at once). */
function refusedFlags(flags: string[]): string[] {
  try {
    const probe = new Worker("", { eval: true, execArgv: flags, stdout: true, stderr: true });
    probe.unref();
    void probe.terminate();
    return [];
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code !== "ERR_WORKER_INVALID_EXEC_ARGV") return [];
    const listed = /flags: (.*)$/s.exec(err.message)?.[1] ?? "";
    const names = listed.split(/,\s*/).map((f) => f.trim()).filter(Boolean);
    // Unparsable: keep no flags rather than fail every thread.
    return names.length ? names : flags;
  }
}

/** `flags` without the refused ones (a refused `--flag` given as `--flag value` takes its value with it). */
function withoutFlags(flags: string[], refused: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i];
    if (!refused.includes(f)) { out.push(f); continue; }
    if (!f.includes("=") && i + 1 < flags.length && !flags[i + 1].startsWith("-")) i++;
  }
  return out;
}

/** Worker options with the execArgv a gpsimd thread may start with. */
export function threadOptions(options: WorkerOptions = {}): WorkerOptions {
  return { ...options, execArgv: workerExecArgv() };
}
