// Runs the logical cores of a launch: claims them one at a time, runs the
// kernel on each, and reports through shared memory. The worker threads use
// it, and so does the main thread, which takes part in synchronous launches
// (no thread sits idle waiting, and nothing needs waking for it).
import { noteStaticData, withStaticData } from "../library/static-data.js";
import { KernelInstance, type CoreSite } from "./kernel-instance.js";
import { createSourceLocator } from "../checks/source-locator.js";
import { errorToData, KernelTimeoutError } from "../checks/errors.js";
import { describeDescriptor } from "../checks/describe.js";
import { sanitizerImports, isSanitized, type CoreBlock } from "../checks/sanitizer.js";
import { CTX_HEADER_BYTES, CTX_DESC, DESC_BYTES, CTX_TCM_BASE, CTX_HEAP_END, CTX_DST, CTX_STOP, FLAG_MULTICORE, FLAG_PRINT_ALL_CORES, FLAG_TRACE, FLAG_LOG_WRITES, FLAG_WATCH, CTX_FLAGS } from "../device/layout.js";
import { TraceWriter, TRACE_CORE_BYTES } from "../profiling/trace.js";
import { MemoryViews } from "../device/memory-views.js";
import { enterCoreWrites } from "./coverage-table.js";
import {
  C_CLAIM, C_DONE, C_COMPLETE, C_NCORES, C_ASYNC, C_LIBRARY, C_OP, C_TEMPLATE, C_STATUS, C_CONTEXTS, C_SCALARS_BYTE_OFFSET, C_TRACE,
  C_COVERAGE_BYTE_OFFSET, C_FAULT, STATUS_RUNNING, STATUS_OK, STATUS_REPORT, STATUS_ERROR, MAILBOX_BYTES, claimWord,
  type WorkerMessage, type WorkerOp, type CoreReportData,
} from "./protocol.js";

interface ExecutorLibrary { instance: KernelInstance; ops: WorkerOp[]; }

/** What every core of one launch shares (Executor.launchOf): read once per launch on each thread. */
interface CoreLaunch {
  seq: number;
  ncores: number;
  lib: ExecutorLibrary | undefined;
  op: WorkerOp | undefined;
  /** The launch's template context block (flags, tensors), which each core copies into its own. */
  template: number;
  flags: number;
  /** The kernel's arguments less the tensors (0 in their places), which are each core's own descriptors. */
  scalars: (number | bigint)[];
  traceArea: number;
}

const encoder = new TextEncoder();

/** Longest text (error message, warning) a core's report carries; longer ones are cut with a note. */
const MAX_TEXT = 16 * 1024;

/** Copies a report with every string longer than max cut, with a note saying how long it was. */
function shortenTexts<T>(value: T, max: number): T {
  if (typeof value === "string") return (value.length > max ? `${value.slice(0, max)}... [${value.length - max} more characters cut: the text was ${value.length} characters long]` : value) as T;
  if (Array.isArray(value)) return value.map((v) => shortenTexts(v, max)) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenTexts(v, max)])) as T;
  return value;
}

/** How long a core thread spins (on a launch's completion, then on the next launch) before it sleeps. */
export const SPIN_MS = 2;

/** One thread's side of the core pool. */
export class Executor {
  private readonly libraries = new Map<number, ExecutorLibrary>();
  private readonly scalarsF64: Float64Array;
  private readonly scalarsI64: BigInt64Array;
  private readonly mailboxBytes: Uint8Array;
  private readonly views: MemoryViews;
  /** The output's shared coverage table, where each core enters its writes when its kernel returns. */
  private readonly coverage: Uint32Array;

  constructor(
    private readonly control: Int32Array,
    private readonly mailboxes: SharedArrayBuffer,
    private readonly memory: WebAssembly.Memory,
    /** Worker index, or -1 for the main thread. */
    readonly index: number,
    /** Tells the main thread's event loop that an asynchronous launch completed (workers post a message). */
    private readonly announce: (seq: number) => void = () => undefined,
  ) {
    this.scalarsF64 = new Float64Array(control.buffer, C_SCALARS_BYTE_OFFSET);
    this.scalarsI64 = new BigInt64Array(control.buffer, C_SCALARS_BYTE_OFFSET);
    this.mailboxBytes = new Uint8Array(mailboxes);
    this.views = new MemoryViews(memory);
    this.coverage = new Uint32Array(control.buffer, C_COVERAGE_BYTE_OFFSET);
  }

  /** Takes a library (its compiled module) in, or drops one. */
  apply(msg: WorkerMessage): void {
    if (msg.type === "forget") { this.libraries.delete(msg.id); return; }
    const locator = msg.sourceMap ? createSourceLocator(msg.sourceMap, msg.offsetMap, msg.code) : null;
    const sanitizer = isSanitized(msg.module)
      ? sanitizerImports({ memory: this.memory, staticBase: msg.staticBase, staticBytes: msg.staticBytes, template: () => Atomics.load(this.control, C_TEMPLATE) >>> 0, coreBlocks: () => this.coreBlocks(), locator })
      : undefined;
    noteStaticData(msg.staticBase, msg.staticBytes, msg.ops[0]?.name.split("::")[0] ?? `library ${msg.id}`);
    this.libraries.set(msg.id, { instance: new KernelInstance(msg.module, this.memory, locator, withStaticData(sanitizer, msg.staticBase, msg.staticBytes)), ops: msg.ops });
  }

  /** Every core's private block in the launch in progress (the sanitizer names them in its messages). */
  private coreBlocks(): CoreBlock[] {
    const view = new DataView(this.memory.buffer);
    return Array.from({ length: Atomics.load(this.control, C_NCORES) }, (_, core) => {
      const start = Atomics.load(this.control, C_CONTEXTS + core) >>> 0;
      return { core, start, end: view.getUint32(start + CTX_HEAP_END, true) };
    });
  }

  /** Claims and runs cores of launch seq until none is left. */
  runClaims(seq: number): void {
    const ncores = Atomics.load(this.control, C_NCORES);
    let core = this.claim(seq, ncores);
    if (core < 0) return;
    // What every core of the launch shares, read once: the launch was published before its first core was claimed.
    const launch = this.launchOf(seq, ncores);
    for (; core >= 0; core = this.claim(seq, ncores)) this.runCore(launch, core);
  }

  /** The launch's fields every core of it shares, from the control block and its template context. */
  private launchOf(seq: number, ncores: number): CoreLaunch {
    const control = this.control;
    const lib = this.libraries.get(Atomics.load(control, C_LIBRARY));
    const op = lib?.ops[Atomics.load(control, C_OP)];
    const template = Atomics.load(control, C_TEMPLATE) >>> 0;
    const flags = this.views.view(template + CTX_FLAGS + 4).getInt32(template + CTX_FLAGS, true);
    const params = op?.kernel.params ?? [];
    // Scalars are the launch's; a tensor's argument is its descriptor's address in each core's own context block.
    const scalars = params.map((p, i) => (p.kind === "tensor" ? 0 : p.kind === "i64" ? this.scalarsI64[i] : this.scalarsF64[i]));
    return { seq, ncores, lib, op, template, flags, scalars, traceArea: flags & FLAG_TRACE ? Atomics.load(control, C_TRACE) >>> 0 : 0 };
  }

  /** Claims the next core of launch seq, or returns -1 when none is left (or the launch is over). */
  private claim(seq: number, ncores: number): number {
    for (;;) {
      const word = Atomics.load(this.control, C_CLAIM);
      if (word >>> 8 !== (seq & 0xFFFFFF)) return -1;
      const next = word & 0xFF;
      if (next >= ncores) return -1;
      if (Atomics.compareExchange(this.control, C_CLAIM, word, claimWord(seq, next + 1)) === word) return next;
    }
  }

  /** Writes a core's report into its mailbox; whatever its size, it fits (long texts are cut with a note). */
  private writeReport(core: number, report: CoreReportData): void {
    const room = MAILBOX_BYTES - 4;
    let bytes = encoder.encode(JSON.stringify(report));
    if (bytes.length > room) {
      // Too much to say: keep the error and the first warnings (each text cut short), and say that writes were lost.
      const cut = shortenTexts({ ...report, writes: [], reads: [], warnings: [...report.warnings.slice(0, 20), "write log too large to report: cross-core checks skipped"], writesLost: true }, MAX_TEXT);
      bytes = encoder.encode(JSON.stringify(cut));
      if (bytes.length > room) bytes = encoder.encode(JSON.stringify({ ...cut, error: cut.error && { ...cut.error, details: undefined }, warnings: [] }));
    }
    const at = core * MAILBOX_BYTES;
    new DataView(this.mailboxes).setUint32(at, bytes.length, true);
    this.mailboxBytes.set(bytes, at + 4);
  }

  private runCore(launch: CoreLaunch, core: number): void {
    if (this.index >= 0 && Atomics.load(this.control, C_FAULT) === this.index + 1) {
      Atomics.store(this.control, C_FAULT, 0);
      throw new Error(`fault injected into core thread ${this.index}`);
    }
    const control = this.control;
    const { seq, lib, op, template, flags } = launch;
    Atomics.store(control, C_STATUS + core, STATUS_RUNNING);
    let status = STATUS_OK;
    const ctx = Atomics.load(control, C_CONTEXTS + core) >>> 0;
    try {
      // The watchdog writes the launch's seq into the stop word of every core, started or not.
      if (Atomics.load(this.views.words(ctx + CTX_HEADER_BYTES), (ctx + CTX_STOP) >>> 2) === seq) throw new KernelTimeoutError("E_NOT_STARTED", `core ${core} was not started: the launch ran past its timeout`, { core });
      if (!lib || !op) throw new Error(`core thread ${this.index}: library ${Atomics.load(control, C_LIBRARY)} is not loaded here`);
      const view = this.views.view(ctx + CTX_HEADER_BYTES);
      const params = op.kernel.params;
      const args = launch.scalars.slice();
      for (let i = 0; i < params.length; i++) if (params[i].kind === "tensor") args[i] = ctx + CTX_DESC + i * DESC_BYTES;
      const site: CoreSite = {
        op: op.name, core, ctx, multicore: (flags & FLAG_MULTICORE) !== 0, printAllCores: (flags & FLAG_PRINT_ALL_CORES) !== 0, kernel: op.kernel,
        tcmBase: view.getUint32(ctx + CTX_TCM_BASE, true),
        tensorName: (slot) => describeDescriptor(new DataView(this.memory.buffer), ctx, slot, op.kernel),
      };
      const traceArea = launch.traceArea;
      lib.instance.traceTo(traceArea ? new TraceWriter(new Float64Array(this.memory.buffer), (traceArea + core * TRACE_CORE_BYTES) / 8) : null, this.index);
      const outcome = lib.instance.run(site, op.kernel.name, args, template, seq);
      const output = view.getUint32(ctx + CTX_DST, true);
      // The cross-core overlap and gap checks of a clean call, on this core's thread (coverage-table.ts).
      if (site.multicore && (flags & FLAG_LOG_WRITES) && !(flags & FLAG_WATCH)) enterCoreWrites(this.coverage, core, launch.ncores, seq, view, ctx, outcome.writes, outcome.reads);
      const returned = !site.multicore && outcome.returned !== 0 && outcome.returned !== output ? outcome.returned : 0;
      if (outcome.warnings.length || outcome.writes.length || outcome.reads.length || outcome.droppedPrintf || returned) {
        this.writeReport(core, { warnings: outcome.warnings, writes: outcome.writes, reads: outcome.reads, dropped: outcome.droppedPrintf, returned });
        status = STATUS_REPORT;
      }
    } catch (e) {
      this.writeReport(core, { error: errorToData(e), warnings: [], writes: [], dropped: 0 });
      status = STATUS_ERROR;
    }
    // Publish the status before counting the core done: the main thread reads statuses
    // only after it has seen C_DONE reach the core count (seq-cst atomics order these).
    Atomics.store(control, C_STATUS + core, status);
    if (Atomics.add(control, C_DONE, 1) + 1 === launch.ncores) {
      Atomics.store(control, C_COMPLETE, seq);
      Atomics.notify(control, C_COMPLETE);
      // Atomics.waitAsync alone can leave an idle event loop asleep after the notify (the promise
      // settles only when something else wakes the loop); a message always wakes it.
      if (Atomics.load(control, C_ASYNC)) this.announce(seq);
    }
  }
}
