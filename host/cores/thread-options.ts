// Options every gpsimd thread starts with. A worker inherits the process's
// execArgv, and some of it applies to the main script only: a process started
// as `node --input-type=module -e ...` would give every worker
// --input-type, with which a worker file cannot start (the thread dies before
// it runs anything, and whoever waits for it waits until a timeout).
import type { WorkerOptions } from "node:worker_threads";

/** Flags of the main process that do not carry over to a worker file. */
const MAIN_SCRIPT_ONLY = /^--(input-type|eval|print|entry-url)(=|$)/;

/** The process's execArgv without the flags that only make sense for the main script. */
export function threadOptions(options: WorkerOptions = {}): WorkerOptions {
  return { ...options, execArgv: process.execArgv.filter((a) => !MAIN_SCRIPT_ONLY.test(a)) };
}
