// What a completed launch left behind, turned into the operator's result or
// its error: each core's status and report (mailbox), its verdict in the
// output's coverage table (coverage-table.ts: the cores check their writes
// against each other's; a clean call ends there) or else its write log (the
// full cross-core checks, which word the errors), its printf ring and
// warnings, and, when traced, its timeline.
import { hbm } from "../device/hbm.js";
import { errorFromData, GpsimdError, KernelTimeoutError } from "../checks/errors.js";
import { showCoreOutput, copyResult, checkCoverage, writeLog, type CoreReport } from "../library/library.js";
import { readRing } from "./kernel-instance.js";
import { verifyDescriptors } from "./descriptors.js";
import { coreTrace, readCounters, traceClock, TRACE_CORE_BYTES, type CoreTrace, type LaunchPhases } from "../profiling/trace.js";
import { checkCrossCore, tilesExactly, type CoreWrites, type CrossCoreFindings } from "../checks/cross-core.js";
import { FLAG_LOG_WRITES, FLAG_TRACE } from "../device/layout.js";
import { C_STATUS, C_CONTEXTS, C_COMPLETE, C_COVERAGE_BYTE_OFFSET, STATUS_REPORT, STATUS_ERROR, MAILBOX_BYTES, type CoreReportData } from "./protocol.js";
import { coverageClean } from "./coverage-table.js";
import type { LaunchRequest } from "./pool.js";
import type { Traced } from "../library/library.js";
import { mergeCoreErrors } from "./core-errors.js";
import { crossCoreError, describeGaps } from "./cross-core-errors.js";

/** What a core that had nothing to say reported (shared: never modified). */
const NO_REPORT = Object.freeze({ warnings: Object.freeze([]), writes: Object.freeze([]), dropped: 0 }) as unknown as CoreReportData;

/** Reads every core's outcome, runs the cross-core checks and shows output; throws the launch's error, if any. */
export function finishLaunch(request: LaunchRequest, control: Int32Array, mailboxes: SharedArrayBuffer, traceArea: number): void {
  const { library: lib, op } = request;
  const view = hbm().view();
  const words = hbm().words();
  const errors: GpsimdError[] = [];
  const reports: CoreReport[] = [];
  const drained: CoreReportData[] = []; // each core's report: writes drained during the run, reads
  let writesLost = false;
  let returned = 0; // a single-core kernel's own result tensor, to copy into the output
  let returnedBy = 0; // the context block of the core that returned it
  const started: number[] = [];
  for (let k = 0; k < lib.cores; k++) {
    const status = Atomics.load(control, C_STATUS + k);
    const ctx = Atomics.load(control, C_CONTEXTS + k) >>> 0;
    const data: CoreReportData & { writesLost?: boolean } = status === STATUS_REPORT || status === STATUS_ERROR ? readMailbox(mailboxes, k) : NO_REPORT;
    if (data.error) errors.push(errorFromData(data.error));
    if (data.returned) { returned = data.returned; returnedBy = ctx; }
    if (!data.error || (data.error.code !== "E_NOT_STARTED" && data.error.code !== "E_INTERNAL")) started.push(k);
    writesLost ||= !!data.writesLost;
    reports.push({ core: k, ctx, warnings: data.warnings, dropped: data.dropped });
    drained.push(data);
  }
  // Every core's writes and reads, from the logs: only when the coverage table did not decide, or for a trace.
  let logs: CoreWrites[] | null = null;
  const writes = (): CoreWrites[] => (logs ??= drained.map((data, k) => {
    const logged = writeLog(view, reports[k].ctx);
    return { core: k, intervals: data.writes.length ? [...data.writes, ...logged] : logged, reads: data.reads };
  }));
  showCoreOutput(op.qualifiedName, reports);
  const phases = request.phases;
  if (phases) phases.reportsRead = traceClock();
  // Every core that started must have left its descriptors as the launch wrote them (descriptors.ts).
  for (const k of started) verifyDescriptors(words, reports[k].ctx, request.descriptors!, { op: op.qualifiedName, core: k, kernel: op.kernel });
  if (phases) phases.descriptorsVerified = traceClock();
  const checkWrites = (request.flags & FLAG_LOG_WRITES) !== 0 && !writesLost;
  const stopped = errors.filter((e) => e.code === "E_STOPPED").map((e) => e.core!);
  const unstarted = errors.filter((e) => e.code === "E_NOT_STARTED").map((e) => e.core!);
  if (stopped.length || unstarted.length) throw timeoutError(op.qualifiedName, lib.options.timeout_ms, stopped, unstarted);
  if (errors.length) {
    // Cores failing alike are one message listing them (core-errors.ts); other errors follow as notes.
    const { first, message, notes, failedCores } = mergeCoreErrors(errors);
    if (checkWrites && lib.multicore) {
      const f = checkCrossCore(writes(), request.output.numel());
      if (f.overlaps.length || f.races.length || f.unwritten) notes.push(`cross-core check of what the cores wrote before the failure: ${describeFindings(f)}`);
    }
    if (notes.length || message !== first.message) throw new (first.constructor as new (c: string, m: string, x: object) => GpsimdError)(first.code, [message, ...notes].join("\n"), { op: first.op, core: first.core, details: { ...first.details, failedCores } });
    throw first;
  }
  const copied = returned ? copyResult(op, 0, returnedBy, returned, request.descriptors!, request.output) : null;
  const returnedBytes = copied ?? 0;
  if (copied === null && checkWrites) {
    if (!lib.multicore) checkCoverage(op, writes()[0]?.intervals ?? [], request.output);
    else if (!coverageClean(coverageTable(control), lib.cores, Atomics.load(control, C_COMPLETE), request.output.numel()) && !tilesExactly(writes(), request.output.numel())) {
      // Neither the cores' own check (coverage-table.ts) nor the plain tiling of a clean call (cross-core.ts) says
      // clean: the full check from the logs, which finds what is wrong, if anything, and words it.
      const e = crossCoreError(op.qualifiedName, checkCrossCore(writes(), request.output.numel()), request.output);
      if (e) throw e;
    }
  }
  if (phases) phases.checked = traceClock();
  if (request.flags & FLAG_TRACE) {
    const traced: Traced & { host?: LaunchPhases } = { cores: coreTraces(control, traceArea, lib.cores, writes(), copied ? request.output.numel() : 0), returnedBytes };
    if (phases) traced.host = phases as LaunchPhases; // every step is set by now (pool.ts, above)
    request.traced = traced;
  }
}

/** The error of a launch the watchdog stopped: which cores were still running, which never started. */
export function timeoutError(op: string, ms: number, stopped: number[], unstarted: number[]): KernelTimeoutError {
  const cores = (list: number[]) => `core${list.length === 1 ? "" : "s"} ${list.join(", ")}`;
  const what = stopped.length ? `still running after ${ms} ms on ${cores(stopped)}; stopped by the watchdog${unstarted.length ? ` (${cores(unstarted)} not started)` : ""}` : `not started within ${ms} ms (${cores(unstarted)})`;
  return new KernelTimeoutError("E_TIMEOUT", `${op}: ${what} (raise timeout_ms if the kernel is just slow)`, { op, core: stopped[0], details: { running: stopped, notStarted: unstarted, timeout_ms: ms } });
}

/** Each core's timeline and counters of the launch just completed. */
function coreTraces(control: Int32Array, traceArea: number, cores: number, writes: CoreWrites[], returnedElements: number): CoreTrace[] {
  const view = hbm().view();
  const f64 = new Float64Array(hbm().memory.buffer);
  return Array.from({ length: cores }, (_, k) => {
    const ctx = Atomics.load(control, C_CONTEXTS + k) >>> 0;
    return coreTrace(f64, (traceArea + k * TRACE_CORE_BYTES) / 8, {
      core: k, counters: readCounters(view, ctx),
      writes: returnedElements ? (k === 0 ? [0, returnedElements] : []) : writes[k].intervals, printf: readRing(ctx).text,
    });
  });
}

function readMailbox(buffer: SharedArrayBuffer, core: number): CoreReportData & { writesLost?: boolean } {
  const at = core * MAILBOX_BYTES;
  const length = new DataView(buffer).getUint32(at, true);
  return JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, at + 4, length).slice()));
}

function describeFindings(f: CrossCoreFindings): string {
  const parts = f.overlaps.map((o) => `cores ${o.cores[0]} and ${o.cores[1]} both wrote [${o.start}, ${o.end})`);
  parts.push(...f.races.map((r) => `core ${r.reader} read [${r.start}, ${r.end}), which core ${r.writer} wrote`));
  if (f.unwritten) parts.push(describeGaps(f, true));
  return parts.join("; ");
}

/** The pool's coverage table in its control block (one view per control block). */
function coverageTable(control: Int32Array): Uint32Array {
  if (tableOf?.control !== control) tableOf = { control, table: new Uint32Array(control.buffer, C_COVERAGE_BYTE_OFFSET) };
  return tableOf.table;
}
let tableOf: { control: Int32Array; table: Uint32Array } | null = null;
