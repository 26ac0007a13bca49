// One instance of a library's kernel module on one thread, and what it needs
// from the host: violation reports, warnings, printf, the abort handler. It
// runs a kernel on one emulated core at a time; after any error it is thrown
// away and rebuilt, so a possibly corrupted instance is never reused.
import { violationError, type ViolationSite } from "../checks/violations.js";
import { GpsimdError, KernelAbortError, KernelTrapError, KernelHeapError } from "../checks/errors.js";
import { formatPrintf, type PrintfArg } from "./printf-format.js";
import {
  CTX_WLOG, CTX_WLOG_COUNT, CTX_PRINTF_BASE, CTX_PRINTF_SIZE, CTX_PRINTF_HEAD, PF_MAX_ARGS,
  PF_TAG_INT, PF_TAG_UINT, PF_TAG_FLOAT, PF_TAG_STRING, PF_TAG_BOOL, ABI_VERSION, CTX_HEADER_BYTES, CTX_DESC, DESC_BYTES,
  TD_SIZES, TD_NUMEL, CTX_TCM_BASE, CTX_STREAMS, MAX_WLOG, CTX_STOP, CTX_TCM_TABLE, TCMB_KIND, TCMB_SITE,
} from "../device/layout.js";
import { regionAt } from "../device/core-regions.js";
import { hbm } from "../device/hbm.js";
import { MemoryViews } from "../device/memory-views.js";
import { clearUsedHeap, markWholeHeapUsed, recordStackUse } from "./heap-hygiene.js";
import { withRerunHint } from "../checks/rerun-hint.js";
import { isSanitized } from "../checks/sanitizer.js";
import { E_STOPPED, E_TCM_LEAK } from "../checks/error-codes.js";
import { SET_STOP_WORD_EXPORT, STOP_IMPORT } from "../../build/stop-poll-names.js";
import { INSTRUCTION_CLASSES, counterExport } from "../../build/count-names.js";
import { LibraryFormatError } from "../checks/errors.js";
import { currentStack, describePlace, functionName, type SourceLocator, type SourcePlace } from "../checks/source-locator.js";
import { TRACE_PRINTF, type TraceWriter } from "../profiling/trace.js";
import { activeWatch } from "../checks/access-watch.js";
import { mergedIntervals } from "../checks/cross-core.js";
import { isOwnershipCode, ownershipError, type OwnershipContext } from "../checks/ownership-errors.js";
import { OWN_REPORT } from "../../build/ownership-names.js";
import type { KernelSignature } from "../../build/signatures.js";
import { split, S_SETUP, S_HEAP, S_ENTER, S_KERNEL, S_EXIT } from "../library/call-stages.js";

/** Where a kernel runs and how to name what it touches. */
export interface CoreSite extends ViolationSite {
  /** Address of the core's context block. */
  ctx: number;
  multicore: boolean;
  /** Every core's printf is kept, tagged with its core id (otherwise only core 0's). */
  printAllCores: boolean;
  /** The kernel that runs: its parameters say which descriptor slots hold the call's tensors. */
  kernel: KernelSignature;
}

/** What one kernel run on one core left for the host. */
export interface CoreOutcome {
  /** The descriptor address the kernel returned (0 for none). */
  returned: number;
  /** Warnings, already worded. */
  warnings: string[];
  /** Output intervals drained from the write log during the run, as [start, end, start, end, ...]. */
  writes: number[];
  /** Output intervals the core read (multicore, FLAG_LOG_READS), merged, as [start, end, ...]. */
  reads: number[];
  /** printf calls dropped because this core may not print. */
  droppedPrintf: number;
}

const utf16 = new TextDecoder("utf-16le");
const utf8 = new TextEncoder();

/** Reads an AssemblyScript string (UTF-16, byte length stored just before it). */
export function readString(memory: WebAssembly.Memory, ptr: number): string {
  ptr >>>= 0; // wasm passes addresses as i32: above 2 GiB they arrive negative
  if (ptr === 0) return "(null)";
  const view = new DataView(memory.buffer);
  const bytes = view.getUint32(ptr - 4, true);
  return utf16.decode(new Uint8Array(memory.buffer, ptr, bytes).slice());
}

/** Where a core's printf ring is: the host's own numbers, never the kernel-writable copies in the context block. */
export interface Ring { base: number; size: number; }

/** Bytes ever written to a core's ring: the kernel can overwrite the count, so anything but a byte count counts as none. */
function ringHead(view: DataView, ctx: number): number {
  const head = view.getFloat64(ctx + CTX_PRINTF_HEAD, true);
  return Number.isSafeInteger(head) && head >= 0 ? head : 0;
}

/** Appends text to a core's printf ring (the oldest text is overwritten when full). */
export function appendToRing(memory: WebAssembly.Memory, ring: Ring, ctx: number, text: string): void {
  const { base, size } = ring;
  if (size === 0) return;
  const view = new DataView(memory.buffer);
  let head = ringHead(view, ctx);
  const bytes = utf8.encode(text);
  const at = new Uint8Array(memory.buffer, base, size);
  const skip = Math.max(0, bytes.length - size); // only the last `size` bytes can survive
  for (let i = skip; i < bytes.length; i++) at[(head + i) % size] = bytes[i];
  head += bytes.length;
  view.setFloat64(ctx + CTX_PRINTF_HEAD, head, true);
}

/** The text in a core's printf ring, and how many bytes were overwritten (main thread: the ring's place comes from the host's region table). */
export function readRing(ctx: number): { text: string; lost: number } {
  const region = regionAt(ctx);
  const head = ringHead(hbm().view(), ctx);
  if (!region || region.printfBytes === 0 || head === 0) return { text: "", lost: 0 };
  const size = region.printfBytes;
  const ring = new Uint8Array(hbm().memory.buffer, region.ring, size);
  const kept = Math.min(head, size);
  const out = new Uint8Array(kept);
  for (let i = 0; i < kept; i++) out[i] = ring[(head - kept + i) % size];
  return { text: new TextDecoder().decode(out), lost: head - kept };
}

/** Entries in a core's output write log: the count is kernel-writable, so it is clamped to the log's capacity. */
export function writeLogCount(view: DataView, ctx: number): number {
  return Math.min(Math.max(view.getInt32(ctx + CTX_WLOG_COUNT, true), 0), MAX_WLOG);
}

/** Layout numbers the kernel library was compiled with, checked against host/device/layout.ts. */
const LAYOUT_CHECKS: [number, number, string][] = [
  [0, ABI_VERSION, "ABI_VERSION"], [1, CTX_HEADER_BYTES, "CTX_HEADER_BYTES"], [2, CTX_DESC, "CTX_DESC"], [3, DESC_BYTES, "DESC_BYTES"],
  [4, TD_SIZES, "TD_SIZES"], [5, TD_NUMEL, "TD_NUMEL"], [6, CTX_TCM_BASE, "CTX_TCM_BASE"], [7, CTX_STREAMS, "CTX_STREAMS"],
];

/** A kernel module instantiated against the device memory. */
export class KernelInstance {
  private instance: WebAssembly.Instance | null = null;
  private site: CoreSite | null = null;
  private warnings: string[] = [];
  private writes: number[] = [];
  private reads: number[] = [];
  /** Numbers in `reads` past which it is merged (sorted), so that runs read out of order do not fill the core's report. */
  private readsBound = READS_BOUND;
  private dropped = 0;
  private enter!: (ctx: number) => void;
  private enterFrom!: (ctx: number, template: number, core: number) => void;
  private exit!: () => number;
  private setStopWord!: (address: number) => void;
  /** The executed-instruction counters of a counting module (build/count-pass.ts), in INSTRUCTION_CLASSES order; null for a plain one. */
  private counters: WebAssembly.Global[] | null = null;
  /** A C++ kernel's stack bounds and low-water mark (STACK_GLOBALS), looked up once per instance; null without them (AssemblyScript). */
  private stackGlobals: WebAssembly.Global[] | null = null;
  /** The stop word the instance polls (set before a run when it changes). */
  private stopWordAt = -1;
  /** The run's stop token: the watchdog writes it into the stop word to stop this run. */
  private stopToken = 0;
  private runStart: (() => void) | null = null;
  private kernelStart: (() => void) | null = null;
  private tracer: TraceWriter | null = null;
  private thread = -1;
  /** The printf ring of the run in progress, as the host wrote it before the kernel started. */
  private ring: Ring = { base: 0, size: 0 };
  private readonly views: MemoryViews;
  /** Built in sanitize mode: every store was checked before it ran (errors found later need no rerun hint). */
  private readonly sanitized: boolean;

  constructor(
    private readonly module: WebAssembly.Module,
    private readonly memory: WebAssembly.Memory,
    private readonly locator: SourceLocator | null,
    private readonly extraImports: (instance: KernelInstance) => Record<string, Record<string, WebAssembly.ImportValue>> = () => ({}),
  ) {
    this.views = new MemoryViews(memory);
    this.sanitized = isSanitized(module);
  }

  /** The site of the run in progress (for imports that report). */
  currentSite(): CoreSite {
    if (!this.site) throw new Error("no kernel is running");
    return this.site;
  }

  /** Records the next runs' kernel spans and events with writer (null: stop tracing); thread names the worker (-1: the calling thread). */
  traceTo(writer: TraceWriter | null, thread = -1): void {
    this.tracer = writer;
    this.thread = thread;
  }

  /** Sets what runs at the start of every run, before the core enters (extra imports reset their per-run state here). */
  onRunStart(hook: () => void): void {
    this.runStart = hook;
  }

  /** Sets what runs once the core has entered, just before the kernel function (the sanitizer locks trusted fields here). */
  onKernelStart(hook: () => void): void {
    this.kernelStart = hook;
  }

  private imports(): WebAssembly.Imports {
    const memory = this.memory;
    // Extra imports add to the modules (the sanitizer's hooks live in env); they never replace the host's own.
    const { env: extraEnv, gpsimd: extraGpsimd, ...extraModules } = this.extraImports(this);
    return {
      env: {
        ...extraEnv,
        memory,
        abort: (msg: number, file: number, line: number, column: number) => {
          const site = this.currentSite();
          const text = readString(memory, msg);
          const raisedFile = file ? sourcePath(readString(memory, file)) : null;
          const raised = raisedFile ? `${raisedFile}:${line}:${column}` : null;
          // An abort inside the standard library (a bad length, an index check) names the library file: the kernel's own line is on the stack.
          const found = this.locator?.locate(new Error().stack ?? "");
          const place = found?.file && !found.file.startsWith("~lib/") ? found : null;
          const at = place ? `${functionName(place)} (${place.file}:${place.line}:${place.column})` : raised;
          // A C++ kernel's stack check (assembly/cpp-abi.ts): the same trap as an AssemblyScript kernel's overflow.
          if (text.startsWith(STACK_OVERFLOW_ABORT)) {
            throw new KernelTrapError("E_TRAP", `${site.op} (core ${site.core}): trap: ${text}${place ? ` at ${at}` : ""}`, {
              op: site.op, core: site.core, details: { message: "stack overflow", function: place ? functionName(place) : undefined, file: place?.file, line: place?.line, column: place?.column },
            });
          }
          throw new KernelAbortError("E_ABORT", `${site.op} (core ${site.core}): abort: ${text}${at ? ` at ${at}` : ""}${place && raisedFile?.startsWith("~lib/") ? `, raised in ${raised}` : ""}`, {
            op: site.op, core: site.core,
            details: { message: text, function: place ? functionName(place) : undefined, file: place?.file ?? raisedFile, line: place?.line ?? line, column: place?.column ?? column },
          });
        },
        seed: () => 0x5eed,
        trace: (msg: number, n: number, ...values: number[]) => {
          this.warnings.push(`trace: ${readString(memory, msg)}${n ? ` ${values.slice(0, n).join(", ")}` : ""}`);
        },
      },
      gpsimd: {
        ...extraGpsimd,
        // The kernel statement that called into the kernel library is on the stack: name it (error paths only).
        fail: (code: number, slot: number, a: number, b: number, c: number) => { throw this.violation(code, slot, a, b, c); },
        warn: (code: number, slot: number, a: number, b: number, c: number) => { this.warnings.push(this.violation(code, slot, a, b, c).message); },
        printf: (fmt: number, args: number, nargs: number) => this.printf(fmt, args, nargs),
        drain_write_log: () => this.drainWriteLog(),
        log_read: (start: number, end: number) => this.logRead(start >>> 0, end >>> 0),
        // Only in a rerun that names a cross-core error's statements (host/checks/access-watch.ts).
        watch_access: (kind: number, start: number, end: number) => activeWatch()?.record(this.currentSite().core, kind, start >>> 0, end >>> 0, () => this.kernelPlace()),
        trace: (kind: number, slot: number, bytes: number, offset: number) => this.tracer?.event(kind, slot, bytes, offset),
        [STOP_IMPORT.name]: () => this.stopRequested(),
      },
      ...extraModules,
    };
  }

  /**
   * The error for a violation the kernel library reported, at the kernel statement that called into the library; a
   * leak, reported after the kernel returned, at the statement that allocated the first block left.
   */
  private violation(code: number, slot: number, a: number, b: number, c: number): GpsimdError {
    const site = this.currentSite();
    if (isOwnershipCode(code)) return ownershipError(code, site, this.ownershipContext());
    return violationError(code, slot, a, b, c, site, code === E_TCM_LEAK ? this.allocationPlace(site.ctx) : this.kernelPlace());
  }

  /** What the errors of the raw load and store checks need (host/checks/ownership-errors.ts). */
  private ownershipContext(): OwnershipContext {
    const global = (name: string) => Number((this.instance?.exports[name] as WebAssembly.Global | undefined)?.value ?? 0) >>> 0;
    const span = global("gpsimd_own_static_span");
    return {
      memory: this.memory, place: this.kernelPlace(), allocationPlace: (n) => this.locator?.locateAllocation(n) ?? null,
      statics: { base: global("gpsimd_own_static_lo"), bytes: span ? span + 15 : 0 },
      report: { address: global(OWN_REPORT.addr), bytes: global(OWN_REPORT.bytes), bad: global(OWN_REPORT.bad) },
    };
  }

  /** Where the first block in the core's TCM table was allocated: null for a stream accessor's cache, or when not known. */
  private allocationPlace(ctx: number): SourcePlace | null {
    const view = new DataView(this.memory.buffer);
    if (view.getInt32(ctx + CTX_TCM_TABLE + TCMB_KIND, true) !== 0) return null;
    return this.locator?.locateAllocation(view.getInt32(ctx + CTX_TCM_TABLE + TCMB_SITE, true)) ?? null;
  }

  /** The kernel's own source line that is running now (the caller of the current host import). */
  private kernelPlace(): SourcePlace | null {
    return this.locator?.locateKernel(currentStack()) ?? null;
  }

  private printf(fmt: number, args: number, nargs: number): void {
    args >>>= 0; // an i32 from wasm: unsigned above 2 GiB
    const site = this.currentSite();
    if (site.multicore && site.core !== 0 && !site.printAllCores) {
      this.dropped++;
      this.tracer?.event(TRACE_PRINTF, site.core, 0, -1);
      return;
    }
    const view = new DataView(this.memory.buffer);
    const values: PrintfArg[] = [];
    for (let i = 0; i < Math.min(nargs, PF_MAX_ARGS); i++) {
      const rec = args + i * 16;
      const tag = view.getInt32(rec, true);
      if (tag === PF_TAG_INT) values.push({ kind: "int", value: view.getBigInt64(rec + 8, true) });
      else if (tag === PF_TAG_UINT) values.push({ kind: "uint", value: view.getBigUint64(rec + 8, true) });
      else if (tag === PF_TAG_FLOAT) values.push({ kind: "float", value: view.getFloat64(rec + 8, true) });
      else if (tag === PF_TAG_STRING) values.push({ kind: "string", value: readString(this.memory, view.getUint32(rec + 8, true)) });
      else if (tag === PF_TAG_BOOL) values.push({ kind: "bool", value: view.getBigInt64(rec + 8, true) !== 0n });
    }
    const text = formatPrintf(readString(this.memory, fmt), values);
    if (this.tracer) this.tracer.event(TRACE_PRINTF, site.core, utf8.encode(text).length, view.getFloat64(site.ctx + CTX_PRINTF_HEAD, true));
    appendToRing(this.memory, this.ring, site.ctx, site.multicore && site.printAllCores ? tagLines(text, site.core) : text);
  }

  /** A poll saw the stop word set (build/stop-polls.ts): stops the kernel if the request is for this run. */
  private stopRequested(): void {
    const site = this.site;
    if (!site) return;
    const words = new Int32Array(this.memory.buffer);
    const at = (site.ctx + CTX_STOP) >>> 2;
    const word = Atomics.load(words, at);
    if (word === this.stopToken) throw violationError(E_STOPPED, -3, 0, 0, 0, site);
    // A late request for an earlier run: cleared (unless a new one arrived meanwhile).
    Atomics.compareExchange(words, at, word, 0);
  }

  /** A run of output elements the core read: extends the last run it touches the end of, or adds one. */
  private logRead(start: number, end: number): void {
    const n = this.reads.length;
    if (n && this.reads[n - 1] === start) this.reads[n - 1] = end;
    else this.reads.push(start, end);
    if (this.reads.length > this.readsBound) {
      this.reads = mergedIntervals(this.reads);
      this.readsBound = Math.max(READS_BOUND, 2 * this.reads.length);
    }
  }

  private drainWriteLog(): void {
    const site = this.currentSite();
    const view = new DataView(this.memory.buffer);
    const n = writeLogCount(view, site.ctx);
    for (let i = 0; i < n; i++) {
      const e = site.ctx + CTX_WLOG + i * 8;
      this.writes.push(view.getUint32(e, true), view.getUint32(e + 4, true));
    }
    view.setInt32(site.ctx + CTX_WLOG_COUNT, 0, true);
  }

  private instantiate(): WebAssembly.Instance {
    let instance: WebAssembly.Instance;
    try {
      instance = new WebAssembly.Instance(this.module, this.imports());
    } catch (e) {
      // The module's start function ran top-level code; the only kernel-library call it can make is an allocation.
      if (e instanceof Error && !(e instanceof GpsimdError) && /no kernel is running/.test(e.message)) {
        throw new KernelHeapError("E_MODULE_ALLOCATION", "a kernel source allocates at module level (a top-level array literal, `new`, or string concatenation): the kernel heap exists only while a kernel runs and is emptied at every launch. Use a StaticArray<T> literal (static data) or allocate inside the kernel function", { cause: e });
      }
      throw e;
    }
    const layout = instance.exports.__gpsimd_layout as (i: number) => number;
    for (const [i, expected, name] of LAYOUT_CHECKS) {
      const got = layout(i);
      if (got !== expected) throw new LibraryFormatError("E_ABI", `this library was built with a different gpsimd kernel library (${name} is ${got}, expected ${expected}): rebuild it`);
    }
    this.enter = instance.exports.__gpsimd_enter as (ctx: number) => void;
    this.enterFrom = instance.exports.__gpsimd_enter_from as (ctx: number, template: number, core: number) => void;
    this.exit = instance.exports.__gpsimd_exit as () => number;
    const setStopWord = instance.exports[SET_STOP_WORD_EXPORT];
    if (typeof setStopWord !== "function") throw new LibraryFormatError("E_ABI", "this library was built without stop polls (an older gpsimd): nothing could stop a runaway kernel; rebuild it");
    this.setStopWord = setStopWord as (address: number) => void;
    const counters = INSTRUCTION_CLASSES.map((c) => instance.exports[counterExport(c)]);
    this.counters = counters.every((g) => g instanceof WebAssembly.Global) ? counters as WebAssembly.Global[] : null;
    const stack = STACK_GLOBALS.map((name) => instance.exports[name]);
    this.stackGlobals = stack.every((g) => g instanceof WebAssembly.Global) ? stack as WebAssembly.Global[] : null;
    this.stopWordAt = -1;
    return instance;
  }

  /** The value of an exported i32 global of the running instance, unsigned (undefined: none by that name, or no instance). */
  globalValue(name: string): number | undefined {
    const global = this.instance?.exports[name];
    return global instanceof WebAssembly.Global ? Number(global.value) >>> 0 : undefined;
  }

  /** Looks up an exported kernel function. */
  kernel(name: string): Function | undefined {
    this.instance ??= this.instantiate();
    const f = this.instance.exports[name];
    return typeof f === "function" ? f : undefined;
  }

  /**
   * Runs kernel `name` with raw arguments on the core described by site; with a template, the core
   * first copies the launch's tensors from it. `stopToken` (not 0) is what the watchdog writes into
   * the core's stop word to stop this run. Throws a typed error.
   */
  run(site: CoreSite, name: string, args: (number | bigint)[], template: number, stopToken: number): CoreOutcome {
    this.instance ??= this.instantiate();
    const stopWord = site.ctx + CTX_STOP;
    if (this.stopWordAt !== stopWord) this.setStopWord(this.stopWordAt = stopWord);
    this.stopToken = stopToken;
    const fn = this.instance.exports[name] as (...a: (number | bigint)[]) => number;
    this.site = site;
    this.warnings = [];
    this.writes = [];
    this.reads = [];
    this.readsBound = READS_BOUND;
    this.dropped = 0;
    // The host rewrote the ring's place just before this run (core-regions.ts): take it now, before
    // the kernel can change the copy in its context block, and print only there.
    const view = this.views.view(site.ctx + CTX_HEADER_BYTES);
    this.ring = { base: view.getUint32(site.ctx + CTX_PRINTF_BASE, true), size: view.getUint32(site.ctx + CTX_PRINTF_SIZE, true) };
    split?.mark(S_SETUP);
    // Nothing the previous call on this core left on the heap (any library's) is readable by this one.
    const heapEnd = clearUsedHeap(this.memory, this.views, site.ctx);
    this.runStart?.();
    if (this.counters) for (const g of this.counters) g.value = 0n;
    this.tracer?.begin(this.thread);
    split?.mark(S_HEAP);
    try {
      if (template) this.enterFrom(site.ctx, template, site.core);
      else this.enter(site.ctx);
      this.kernelStart?.();
      split?.mark(S_ENTER);
      const returned = (fn(...args) ?? 0) >>> 0; // an address: wasm returns i32, device memory reaches 4 GiB
      split?.mark(S_KERNEL);
      this.exit();
      const stack = this.stackGlobals;
      if (stack) recordStackUse(this.views, site.ctx, heapEnd, Number(stack[0].value) >>> 0, Number(stack[1].value) >>> 0, Number(stack[2].value) >>> 0);
      const reads = this.reads.length > READS_BOUND ? mergedIntervals(this.reads) : this.reads;
      split?.mark(S_EXIT);
      return { returned, warnings: this.warnings, writes: this.writes, reads, droppedPrintf: this.dropped };
    } catch (e) {
      markWholeHeapUsed(this.views, site.ctx, heapEnd);
      this.instance = null; // never reuse an instance that failed mid-kernel
      throw withRerunHint(this.asKernelError(e, site), this.sanitized);
    } finally {
      this.tracer?.end(this.counters && this.counters.map((g) => Number(g.value)));
      this.site = null;
    }
  }

  /** Turns a trap or a host error thrown through the kernel into a typed error that names the place. */
  private asKernelError(e: unknown, site: CoreSite): GpsimdError {
    if (e instanceof GpsimdError) return e;
    const err = e instanceof Error ? e : new Error(String(e));
    const where = this.locator?.locate(err.stack ?? "") ?? null;
    const at = where ? describePlace(where) : "";
    const what = err instanceof RangeError && /call stack/.test(err.message) ? "stack overflow (unbounded recursion?)" : err.message;
    const kind = err instanceof WebAssembly.RuntimeError || err instanceof RangeError ? "trap" : "error";
    return new KernelTrapError("E_TRAP", `${site.op} (core ${site.core}): ${kind}: ${what}${at}`, { op: site.op, core: site.core, details: { message: err.message, ...(where ? { ...where, function: functionName(where) } : {}) }, cause: err });
  }
}

/** The C++ device runtime's stack globals (assembly/cpp-abi.ts) that recordStackUse takes: limit, low-water mark, top. */
const STACK_GLOBALS = ["gpsimd_stack_limit", "gpsimd_stack_low", "gpsimd_stack_top"] as const;

/** Numbers of a core's read log kept unmerged (a column pass over a core's part makes a run per row). */
const READS_BOUND = 512;

/** How the C++ device runtime's stack check (assembly/cpp-abi.ts gpsimd_stack_overflow) begins its abort. */
const STACK_OVERFLOW_ABORT = "stack overflow: the C++ stack (";

/** asc names sources relative to "/"; the standard library's as ~lib/... */
function sourcePath(file: string): string {
  return file.startsWith("~lib/") || file.startsWith("/") ? file : `/${file}`;
}

function tagLines(text: string, core: number): string {
  return text.replace(/^(?=.)/gm, `[core ${core}] `);
}
