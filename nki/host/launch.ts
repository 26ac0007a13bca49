// One call of a kernel. With no grid, or a grid on one thread, the language
// runs every instance in order on this thread. Otherwise the call is split by
// instance: instance 0 runs here first (it allocates the shared_hbm outputs,
// which only this thread can), then the other instances are claimed by the
// SPMD threads and this one, each writing its part of the same outputs; the
// launch-end check (every output element stored) runs once all are done. The
// result is the sequential run's: the bytes are the same, printed text is
// replayed in instance order, and the error reported is the lowest-numbered
// failing instance's.
import { Tensor } from "../../host/device/tensor.js";
import { GpsimdError, KernelTimeoutError, errorFromData } from "../../host/checks/errors.js";
import { output, setOutput } from "../../host/output.js";
import { instanceAt, instanceCount } from "../spmd/grid.js";
import { spmdPool, type Job } from "../spmd/pool.js";
import { toWire, outputRef } from "../spmd/wire.js";
import { J_CLAIM, J_FAILED_AT, type DoneMessage, type InstanceReport } from "../spmd/protocol.js";
import { recordWrites, checkInstanceOverlaps, type SharedWrite } from "../spmd/overlaps.js";
import { tensorsOf, type CallArguments } from "./arguments.js";
import type { ResolvedNkiOptions } from "./options.js";
import { programOf, type ProgramSource } from "./programs.js";
import { launchKernel, findKernel, finishLaunch, countsOf, type Program, type KernelFunction, type OutputRecord } from "./runtime.js";

/** What a kernel call returns: the kernel's return value (a tensor, several, or null). */
export type NkiResult = Tensor | Tensor[] | null;

/** A kernel to call: its source, its name, the grid (null: one instance, no grid) and the options. */
export interface KernelTarget {
  readonly src: ProgramSource;
  readonly name: string;
  readonly grid: readonly number[] | null;
  readonly options: ResolvedNkiOptions;
}

/** Timings of one call, per instance when it was split by instance (for gpsimd profile). */
export interface CallTimings {
  kernel: string;
  grid: number[] | null;
  threads: number;
  wallMs: number;
  /** thread -1 is the calling thread. */
  instances: { index: number; ids: number[]; ms: number; thread: number; counts?: Record<string, number> }[];
}

/** The returned value as the caller sees it: a tensor, a list of tensors, or null. */
function resultOf(returned: unknown, kernel: string): NkiResult {
  if (returned === null || returned === undefined) return null;
  if (returned instanceof Tensor) return returned;
  if (Array.isArray(returned) && returned.every((t) => t instanceof Tensor)) return returned as Tensor[];
  throw new GpsimdError("E_NKI_RETURN", `${kernel} returned ${Array.isArray(returned) ? "a tuple that is not all HBM tensors" : typeof returned}; a kernel returns an HBM tensor, a tuple of them, or None`, { details: { kernel } });
}

/** Kernels whose instances allocate device memory (private_hbm): their instances stay on the calling thread. */
const needsCallingThread = new Set<string>();

/** The running parts of a call split by instance. */
interface Split {
  target: KernelTarget;
  program: Program;
  kernel: KernelFunction;
  call: CallArguments;
  grid: readonly number[];
  count: number;
  deadline: number;
  records: OutputRecord[];
  /** This thread's instances' stores to the shared outputs (the overlap check across instances). */
  writes: SharedWrite[];
}

/**
 * Runs a call; blocks until it is done; `timings` receives the call's wall time (and per-instance times when
 * the call was split by instance). On one thread the language runs the whole launch itself; split, the
 * stores of every instance to the shared outputs are logged and compared at the end (overlaps.ts).
 */
export function launchSync(target: KernelTarget, call: CallArguments, timings?: (t: CallTimings) => void): NkiResult {
  const t0 = performance.now();
  const deadline = Date.now() + target.options.timeout_ms;
  const program = programOf(target.src);
  const kernel = findKernel(program, target.name);
  const count = target.grid ? instanceCount(target.grid) : 1;
  const threads = needsCallingThread.has(target.src.key) ? 1 : Math.min(target.options.threads, count);
  if (count === 1 || threads === 1) {
    let result: ReturnType<typeof launchKernel>;
    try {
      result = launchKernel(program, kernel, call.args, call.kwargs, { grid: target.grid ?? undefined, deadline, device: target.options.device, checks: target.options.checks });
    } catch (e) {
      throw count > 1 ? nameTheInstance(e, target, program, kernel, call) : e;
    }
    timings?.({ kernel: target.name, grid: target.grid ? [...target.grid] : null, threads: 1, wallMs: performance.now() - t0, instances: [] });
    return resultOf(result.returned, target.name);
  }
  const grid = target.grid!;
  const writes: SharedWrite[] = [];
  const first = recordWrites(writes, target.options.checks, () => runFirst(program, kernel, call, grid, deadline, target));
  const firstRow = { index: 0, ids: instanceAt(grid, 0), ms: performance.now() - t0, thread: -1, counts: countsOf(first) };
  const split: Split = { target, program, kernel, call, grid, count, deadline, records: first.outputRecords, writes };
  let rows: CallTimings["instances"];
  let ranOn = threads;
  try {
    const job = threads > 1 ? postJob(split, threads - 1) : null;
    const mine = runClaims(split, job);
    const answers = job ? spmdPool().waitSync(job) : [];
    if (answers.some((a) => a.failed && a.failed.error.code === "E_HBM_WORKER")) {
      // An instance allocated device memory on a worker (private_hbm): only this thread can. Run them all here.
      needsCallingThread.add(target.src.key);
      ranOn = 1;
      split.writes = split.writes.filter((w) => w.instance === 0);
      rows = instancesOf(grid, [], runClaims(split, null, 1));
      checkOverlaps(split, []);
    } else {
      finish(split, answers, mine);
      rows = instancesOf(grid, answers, mine);
    }
  } catch (e) {
    try { finishLaunch(target.name, split.records); } catch { /* the instance's error is the one to report */ }
    throw e;
  }
  finishLaunch(target.name, split.records);
  timings?.({ kernel: target.name, grid: [...grid], threads: ranOn, wallMs: performance.now() - t0, instances: [firstRow, ...rows] });
  return resultOf(first.returned, target.name);
}

/** As launchSync, with the instances after the first on the SPMD threads while the event loop stays free. */
export async function launchAsync(target: KernelTarget, call: CallArguments): Promise<NkiResult> {
  const count = target.grid ? instanceCount(target.grid) : 1;
  if (count === 1 || target.options.threads <= 1 || needsCallingThread.has(target.src.key)) return launchSync(target, call);
  const deadline = Date.now() + target.options.timeout_ms;
  const program = programOf(target.src);
  const kernel = findKernel(program, target.name);
  const grid = target.grid!;
  const writes: SharedWrite[] = [];
  const first = recordWrites(writes, target.options.checks, () => runFirst(program, kernel, call, grid, deadline, target));
  const split: Split = { target, program, kernel, call, grid, count, deadline, records: first.outputRecords, writes };
  // Until the threads are done, dispose() of an argument or an output waits (as for an operator's .async).
  const pinned = [...tensorsOf(call), ...first.outputRecords.map((r) => r.tensor)];
  for (const t of pinned) t.pin();
  try {
    const job = postJob(split, Math.min(target.options.threads, count - 1));
    const answers = await spmdPool().wait(job);
    if (answers.some((a) => a.failed && a.failed.error.code === "E_HBM_WORKER")) {
      needsCallingThread.add(target.src.key);
      split.writes = split.writes.filter((w) => w.instance === 0);
      runClaims(split, null, 1);
      checkOverlaps(split, []);
    } else {
      finish(split, answers, { ran: [] });
    }
  } catch (e) {
    try { finishLaunch(target.name, split.records); } catch { /* the instance's error is the one to report */ }
    throw e;
  } finally {
    for (const t of pinned) t.unpin();
  }
  finishLaunch(target.name, split.records);
  return resultOf(first.returned, target.name);
}

/** Instance 0 on this thread: it allocates the shared outputs the other instances write. */
function runFirst(program: Program, kernel: KernelFunction, call: CallArguments, grid: readonly number[], deadline: number, target: KernelTarget): ReturnType<typeof launchKernel> {
  try {
    return launchKernel(program, kernel, call.args, call.kwargs, { grid, instance: instanceAt(grid, 0), deadline, device: target.options.device, checks: target.options.checks });
  } catch (e) {
    throw withInstance(e, target, 0);
  }
}

/**
 * The error of a whole launch, naming the instance that failed. Errors of the machine's checks name it
 * already; a Python exception (an assert, a TypeError) does not, so the launch runs again instance by
 * instance, on this thread and in order, and the first instance that fails gives the error (the same
 * error, when the kernel computes the same thing twice). A timeout or an error of the launch as a whole
 * (UnwrittenOutputError) is returned as it is.
 */
function nameTheInstance(error: unknown, target: KernelTarget, program: Program, kernel: KernelFunction, call: CallArguments): unknown {
  if (!(error instanceof GpsimdError) || error.details.instance !== undefined || error instanceof KernelTimeoutError || !target.grid) return error;
  const grid = target.grid;
  const deadline = Date.now() + target.options.timeout_ms;
  let records: OutputRecord[] = [];
  const quiet = setOutput({ printf: () => undefined, warn: () => undefined }); // it printed the first time
  try {
    for (let index = 0; index < instanceCount(grid); index++) {
      try {
        const r = launchKernel(program, kernel, call.args, call.kwargs, { grid, instance: instanceAt(grid, index), outputs: records, deadline, device: target.options.device, checks: target.options.checks });
        if (index === 0) records = r.outputRecords;
      } catch (again) {
        return again instanceof GpsimdError && again.code === error.code ? withInstance(again, target, index) : error;
      }
    }
    return error;
  } finally {
    quiet();
    try { finishLaunch(target.name, records); } catch { /* only the first run's error is reported */ }
  }
}

function postJob(s: Split, threads: number): Job {
  return spmdPool().post({
    file: s.target.src.file, source: s.target.src.source, kernel: s.target.name,
    args: s.call.args.map(toWire), kwargs: Object.fromEntries(Object.entries(s.call.kwargs).map(([k, v]) => [k, toWire(v)])),
    grid: [...s.grid], count: s.count, outputs: s.records.map(outputRef), deadline: s.deadline, device: s.target.options.device, checks: s.target.options.checks,
  }, 1, threads);
}

/** What this thread ran of a job. */
interface OwnShare { ran: InstanceReport[]; failed?: { index: number; error: unknown; printed: string } }

/**
 * Runs instances on this thread: claimed from the job beside the SPMD threads, or, without a job, every
 * instance from `from` in order (a failure ends the run, as the sequential launch does; it is thrown).
 */
function runClaims(s: Split, job: Job | null, from = 1): OwnShare {
  const share: OwnShare = { ran: [] };
  let next = from;
  const claim = () => (job ? Atomics.add(job.control, J_CLAIM, 1) : next++);
  for (;;) {
    const index = claim();
    if (index >= s.count || (job && index > Atomics.load(job.control, J_FAILED_AT))) break;
    let printed = "";
    // With other threads at work, what this one prints waits for its turn in instance order.
    const restore = job ? setOutput({ printf: (text) => { printed += text; }, warn: (text) => { printed += `gpsimd warning: ${text}\n`; } }) : () => undefined;
    const t0 = performance.now();
    let counts: Record<string, number> | undefined;
    try {
      const result = recordWrites(s.writes, s.target.options.checks, () => launchKernel(s.program, s.kernel, s.call.args, s.call.kwargs, {
        grid: s.grid, instance: instanceAt(s.grid, index), outputs: s.records, deadline: s.deadline, device: s.target.options.device, checks: s.target.options.checks,
      }));
      counts = countsOf(result);
    } catch (error) {
      if (!job) throw withInstance(error, s.target, index);
      share.failed = { index, error, printed };
      // Instances after it are not started: the sequential run would have stopped here.
      for (let seen = Atomics.load(job.control, J_FAILED_AT); index < seen; seen = Atomics.load(job.control, J_FAILED_AT)) Atomics.compareExchange(job.control, J_FAILED_AT, seen, index);
      break;
    } finally {
      restore();
    }
    share.ran.push({ index, ms: performance.now() - t0, printed, counts });
  }
  return share;
}

/** The overlap check across the instances of a split launch, over the stores of those up to `upTo`. */
function checkOverlaps(s: Split, answers: DoneMessage[], upTo = Infinity): void {
  const writes = [...s.writes, ...answers.flatMap((a) => a.writes)].filter((w) => w.instance <= upTo);
  // Described as the machine describes a storage ("HBM tensor 'out' (shared_hbm float32[256, 64], allocated at k.py:7)").
  const outputs = s.records.map((r) => ({
    addr: r.tensor.address, shape: r.tensor.sizes(), name: r.name,
    describe: `HBM tensor${r.name ? ` '${r.name}'` : ""} (shared_hbm ${r.tensor.describe()}${r.site ? `, allocated at ${r.site.file}:${r.site.line}` : ""})`,
  }));
  checkInstanceOverlaps(s.target.name, s.grid, outputs, writes);
}

/**
 * Replays what the instances printed, in instance order, then throws: two instances' overlapping stores
 * (CrossCoreWriteError), as the whole launch would at the first such store, else the lowest-numbered
 * instance's error.
 */
function finish(s: Split, answers: DoneMessage[], mine: OwnShare): void {
  const target = s.target;
  const failures = answers.filter((a) => a.failed).map((a) => ({ index: a.failed!.index, error: errorFromData(a.failed!.error) as unknown, printed: a.failed!.printed }));
  if (mine.failed) failures.push(mine.failed);
  const lowest = failures.reduce<(typeof failures)[number] | null>((low, f) => (low === null || f.index < low.index ? f : low), null);
  const upTo = lowest?.index ?? Infinity;
  const reports = [...mine.ran, ...answers.flatMap((a) => a.ran)].filter((r) => r.index < upTo).sort((x, y) => x.index - y.index);
  for (const r of reports) if (r.printed) output().printf(r.printed);
  checkOverlaps(s, answers, lowest?.index ?? Infinity);
  if (lowest) {
    if (lowest.printed) output().printf(lowest.printed);
    throw withInstance(lowest.error, target, lowest.index);
  }
}

/** The error, naming the kernel and instance in its details if it did not already. */
function withInstance(error: unknown, target: KernelTarget, index: number): unknown {
  if (!(error instanceof GpsimdError) || !target.grid) return error;
  const details = error.details as Record<string, unknown>;
  details.kernel ??= target.name;
  details.instance ??= instanceAt(target.grid, index);
  return error;
}

function instancesOf(grid: readonly number[], answers: DoneMessage[], mine: OwnShare): CallTimings["instances"] {
  const rows = [
    ...mine.ran.map((r) => ({ index: r.index, ids: instanceAt(grid, r.index), ms: r.ms, thread: -1, counts: r.counts })),
    ...answers.flatMap((a) => a.ran.map((r) => ({ index: r.index, ids: instanceAt(grid, r.index), ms: r.ms, thread: a.worker, counts: r.counts }))),
  ];
  return rows.sort((a, b) => a.index - b.index);
}
