// A loaded operator library: its kernel module placed in device memory, its
// operators, and the call path: check arguments, run the shape function,
// allocate the output, run the kernel on one core (here) or on all cores
// (the pool), then show printf output and warnings.
import { noteStaticData, withStaticData } from "./static-data.js";
import { isCppSource } from "../../build/cpp/kernel-decls.js";
import { WITHOUT_OWNERSHIP_CHECKS } from "../../build/ownership-names.js";
import { STOP_WORD_GLOBAL } from "../../build/stop-poll-names.js";
import { hbm } from "../device/hbm.js";
import { Tensor, checkDeviceLimits, tensorShape } from "../device/tensor.js";
import { withShapeContext } from "../device/shape-context.js";
import { checkArguments, shapeArguments, type CheckedArguments } from "./arguments.js";
import { coreRegion, regionAt, printfQueueBytes, HOST_CORE, DEFAULT_HEAP_BYTES } from "../device/core-regions.js";
import { prepareCore, verifyDescriptors, returnedData, type LaunchDescriptors, type ReturnedData } from "../cores/descriptors.js";
import { describeDescriptor } from "../checks/describe.js";
import { KernelInstance, readRing, writeLogCount, type CoreSite } from "../cores/kernel-instance.js";
import { watchHostRun } from "../cores/watchdog.js";
import { output } from "../output.js";
import { sanitizerImports } from "../checks/sanitizer.js";
import { resolveRuntime, type ResolvedRuntime, type RuntimeOptions } from "./options.js";
import { GpsimdError, ShapeFunctionError, RegistryError, LibraryFormatError } from "../checks/errors.js";
import { pendingPlaces, unwrittenOutputError } from "../cores/cross-core-errors.js";
import { relocateCode, relocateData } from "../../build/relocate.js";
import { createSourceLocator } from "../checks/source-locator.js";
import type { SourceLocator } from "../checks/source-locator.js";
import type { LibraryParts, LibraryManifest } from "./library-file.js";
import type { KernelSignature } from "../../build/signatures.js";
import type { OpDefinition } from "./registry.js";
import {
  FLAG_CHECKS, FLAG_MULTICORE, FLAG_POISON, FLAG_LEAK_IS_ERROR, FLAG_LOG_WRITES, FLAG_LOG_READS, FLAG_PRINT_ALL_CORES, FLAG_TRACE, FLAG_STORES_MARK_ANYWHERE,
  CTX_WLOG,
} from "../device/layout.js";
import { checkCrossCore } from "../checks/cross-core.js";
import { dtypeInfo } from "../device/dtype.js";
import type { Pool, LaunchRequest } from "../cores/pool.js";
import { TraceWriter, TRACE_CORE_BYTES, traceClock, coreTrace, readCounters, type LaunchTrace } from "../profiling/trace.js";
import { split, S_ARGUMENTS, S_SHAPE, S_OUTPUT, S_AFTER } from "./call-stages.js";

/** An operator of a loaded library, ready to call. */
export interface Operator {
  /** lib::op */
  readonly qualifiedName: string;
  readonly definition: OpDefinition;
  readonly kernel: KernelSignature;
  /** Position among the library's operators (how launches name it to the core threads). */
  readonly index: number;
}

/** The kernel module, relocated into device memory; shared by every thread that runs it. */
export interface PlacedModule {
  module: WebAssembly.Module;
  /** The relocated module bytes (workers build their source locator from its name section). */
  code: Uint8Array;
  staticBase: number;
  staticBytes: number;
  sourceMap: string;
  offsetMap: Uint32Array;
  locator: SourceLocator | null;
  /** The static data belongs to another library (this is its counting copy, host/profiling/counting.ts): not freed with this one. */
  sharesStaticData?: boolean;
}

/** Places a library's module in device memory: allocates and fills its static data, relocates and compiles its code. */
export function placeModule(parts: LibraryParts): PlacedModule {
  const staticBytes = Math.max(parts.data.length, 16);
  const staticBase = hbm().alloc(staticBytes, "library static data");
  try {
    new Uint8Array(hbm().memory.buffer, staticBase, parts.data.length).set(relocateData(parts, staticBase));
    const code = relocateCode(parts, staticBase);
    const module = new WebAssembly.Module(code);
    const locator = parts.sourceMap ? createSourceLocator(parts.sourceMap, parts.offsetMap, code) : null;
    noteStaticData(staticBase, staticBytes, parts.manifest.name);
    return { module, code, staticBase, staticBytes, sourceMap: parts.sourceMap, offsetMap: parts.offsetMap, locator };
  } catch (e) {
    hbm().release(staticBase); // a library that fails to load keeps no device memory
    if (e instanceof GpsimdError) throw e;
    throw new LibraryFormatError("E_LIBRARY_FORMAT", `lib${parts.manifest.name}: its kernel module cannot be placed in device memory (${e instanceof Error ? e.message : String(e)}); rebuild it`, { cause: e });
  }
}

/** A loaded library. */
export class Library {
  /** Operators by name. */
  readonly ops = new Map<string, Operator>();
  /**
   * Each core's printf ring size, from NEURON_RT_GPSIMD_STDOUT_QUEUE_SIZE_BYTES as it is when the library loads (the
   * Neuron runtime reads it once, when it starts). Read per call, the variable cost a getenv in every launch.
   */
  readonly printfBytes = printfQueueBytes();
  private settings: ResolvedRuntime;
  private hostInstance: KernelInstance | null = null;
  private unloaded = false;

  constructor(
    /** Namespace from NEURON_LIBRARY: ops.<namespace>.<op>. */
    readonly namespace: string,
    /** Where the library file is. */
    readonly path: string,
    readonly manifest: LibraryManifest,
    readonly placed: PlacedModule,
    definitions: OpDefinition[],
    settings: ResolvedRuntime,
    /** Logical cores (1 unless multicore). */
    readonly cores: number,
    /** Worker threads that run this library's cores. */
    readonly threads: number,
    /** The core threads (started when a multicore library loads, or at the first async call): multicore calls, and async calls of any library. */
    private readonly pool: () => Pool,
  ) {
    this.settings = settings;
    this.poisonsTcm = manifest.extraCflags.includes(WITHOUT_OWNERSHIP_CHECKS) && !manifest.computeSrcs.some(isCppSource);
    // Every kernel runs on the calling thread when the call is sync and single-core, so its code must be stop-polled:
    // a C++ library built before C++ kernels were (its runtime does not export the stop word) must be rebuilt.
    if (manifest.computeSrcs.some(isCppSource) && !WebAssembly.Module.exports(placed.module).some((e) => e.name === STOP_WORD_GLOBAL)) {
      throw new LibraryFormatError("E_ABI", `${path} was built by an older gpsimd whose C++ kernels could not be stopped: rebuild it with custom_op.load`);
    }
    for (const d of definitions) {
      const kernel = manifest.kernels.find((k) => k.name === d.kernel)!;
      this.ops.set(d.op, { qualifiedName: `${namespace}::${d.op}`, definition: d, kernel, index: this.ops.size });
    }
  }

  /**
   * Whether copies out of TCM look for fresh-TCM poison: only in an AssemblyScript build without the raw load and store
   * checks (build/ownership-names.ts), whose kernel stores mark no written-map; elsewhere they check the written-map,
   * which every copy in and every store keeps (assembly/ownership.ts), so tcm_malloc need not fill a block.
   */
  private readonly poisonsTcm: boolean;

  /** True when every function runs on all cores. */
  get multicore(): boolean { return this.manifest.multicore; }
  /** Current runtime settings. */
  get options(): Readonly<ResolvedRuntime> { return this.settings; }

  /** Changes runtime settings (checks, leak_is_error, cross_core_checks, print_all_cores, timeout_ms, trace). */
  configure(options: RuntimeOptions): this {
    this.settings = resolveRuntime(options, this.settings, `${this.namespace}.configure`);
    return this;
  }

  /** Flags every core of a launch gets. */
  flags(): number {
    const s = this.settings;
    return (s.checks ? FLAG_CHECKS | (this.poisonsTcm ? FLAG_POISON : 0) : 0) | (s.leak_is_error ? FLAG_LEAK_IS_ERROR : 0)
      | (this.multicore ? FLAG_MULTICORE : 0) | ((this.multicore ? s.cross_core_checks : s.checks) ? FLAG_LOG_WRITES : 0)
      | (this.multicore && s.cross_core_checks ? FLAG_LOG_READS : 0) // reads race only between cores
      | (s.print_all_cores ? FLAG_PRINT_ALL_CORES : 0) | (s.trace ? FLAG_TRACE : 0) | (this.manifest.sanitize ? FLAG_STORES_MARK_ANYWHERE : 0);
  }

  private operator(name: string): Operator {
    if (this.unloaded) throw new RegistryError("E_UNLOADED", `library ${this.namespace} (${this.path}) was unloaded`);
    const op = this.ops.get(name);
    if (!op) throw new RegistryError("E_UNKNOWN_OP", `${this.namespace} has no operator ${name}; it has ${[...this.ops.keys()].join(", ")}`);
    return op;
  }

  /** Runs the shape function on meta tensors and allocates the output it describes. */
  private makeOutput(op: Operator, args: unknown[]): Tensor {
    const metaArgs = shapeArguments(args);
    let shaped: unknown;
    try {
      shaped = withShapeContext(() => op.definition.shape(...metaArgs), this.multicore ? this.cores : 1);
    } catch (e) {
      // A gpsimd error from inside the shape function (a factory given bad sizes, say) keeps its class and code
      // and gains the operator's name, which it could not know.
      if (e instanceof GpsimdError && e.code !== "E_SHAPE_FN_DATA") {
        if (e.op !== undefined) throw e;
        const Same = e.constructor as new (code: string, message: string, context: object) => GpsimdError;
        throw new Same(e.code, `shape function of ${op.qualifiedName} failed: ${e.message}`, { op: op.qualifiedName, core: e.core, details: e.details, cause: e });
      }
      const why = e instanceof Error ? e.message : String(e);
      throw new ShapeFunctionError("E_SHAPE_FN", `shape function of ${op.qualifiedName} failed: ${why}`, { op: op.qualifiedName, cause: e });
    }
    if (!(shaped instanceof Tensor)) {
      throw new ShapeFunctionError("E_SHAPE_FN_RESULT", `shape function of ${op.qualifiedName} returned ${shaped === undefined ? "undefined" : typeof shaped}; it must return a tensor of the output's shape and dtype, e.g. zeros(t_in.sizes(), kFloat)`, { op: op.qualifiedName });
    }
    checkDeviceLimits(shaped, `${op.qualifiedName}: the output from the shape function`, op.qualifiedName);
    split?.mark(S_SHAPE);
    // As on the device, the shape function gives only the shape and dtype: the output is not initialised.
    const out = new Tensor(tensorShape(shaped), shaped.dtype); // the constructor copies the sizes
    split?.mark(S_OUTPUT);
    return out;
  }

  /** With trace on: the timeline and counters of the last call that succeeded. */
  lastTrace: LaunchTrace | null = null;
  private hostTrace: Float64Array | null = null;

  /** Calls operator `name` and returns its output (blocks until every core is done). */
  call(name: string, args: unknown[]): Tensor {
    split?.start();
    const callStart = this.settings.trace ? traceClock() : 0; // only a traced call keeps it (keepTrace)
    const op = this.operator(name);
    const checked = checkArguments(op.qualifiedName, op.kernel, args);
    split?.mark(S_ARGUMENTS);
    const out = this.makeOutput(op, args);
    try {
      if (this.multicore) {
        const request = this.launchRequest(op, checked, out);
        this.pool().launchSync(request);
        this.keepTrace(op, callStart, request.traced);
      } else {
        this.keepTrace(op, callStart, this.runOnHost(op, checked, out));
      }
      return out;
    } catch (e) {
      let error = e;
      try {
        // An output the kernel left partly unwritten (checkCoverage) names the writes nearest the gap: the call runs
        // again on copies, on the calling thread, as a multicore call's cross-core errors do (locate-rerun.ts).
        if (pendingPlaces(e)) error = this.pool().locate(e, this.launchRequest(op, checked, out));
      } finally {
        out.dispose();
      }
      throw error;
    }
  }

  /** Whether the core threads have this library (a multicore library gets them when it loads; any other at its first async call). */
  pooled = false;

  /** Calls operator `name` without blocking the event loop; the kernel runs on worker threads. */
  async callAsync(name: string, args: unknown[]): Promise<Tensor> {
    const callStart = traceClock();
    const op = this.operator(name);
    const checked = checkArguments(op.qualifiedName, op.kernel, args);
    const out = this.makeOutput(op, args);
    // Until the call ends, its tensors stay allocated (dispose() waits) and so does the library (unload() waits).
    const pinned = checked.tensors.filter((t): t is Tensor => t !== null);
    for (const t of pinned) t.pin();
    this.callsInFlight++;
    try {
      const request = this.launchRequest(op, checked, out);
      await this.pool().launchAsync(request);
      this.keepTrace(op, callStart, request.traced);
      return out;
    } catch (e) {
      out.dispose();
      throw e;
    } finally {
      for (const t of pinned) t.unpin();
      if (--this.callsInFlight === 0 && this.unloaded) this.release();
    }
  }

  /** Asynchronous calls started and not yet settled. */
  private callsInFlight = 0;

  /** Keeps a traced call's timeline as lastTrace. */
  private keepTrace(op: Operator, callStart: number, traced: Traced | undefined): void {
    if (traced) this.lastTrace = { op: op.qualifiedName, multicore: this.multicore, callStart, callEnd: traceClock(), ...traced };
  }

  private launchRequest(op: Operator, checked: CheckedArguments, out: Tensor): LaunchRequest {
    return { library: this, op, checked, output: out, flags: this.flags() };
  }

  /** What runOnHost tells the kernel instance about each operator's runs on this thread (host/cores/kernel-instance.ts): made once per region. */
  private readonly hostSites = new Map<Operator, CoreSite>();

  /** The site of op's runs on the calling thread, in the region whose context block is at ctx. */
  private hostSite(op: Operator, ctx: number, tcmBase: number): CoreSite {
    const have = this.hostSites.get(op);
    if (have && have.ctx === ctx && have.tcmBase === tcmBase) return have;
    const site: CoreSite = {
      op: op.qualifiedName, core: 0, ctx, multicore: false, printAllCores: false, kernel: op.kernel,
      tensorName: (slot) => describeDescriptor(hbm().view(), ctx, slot, op.kernel), tcmBase,
    };
    this.hostSites.set(op, site);
    return site;
  }

  /** Runs a single-core kernel on this thread, as core 0; returns its trace when the call is traced. */
  private runOnHost(op: Operator, checked: CheckedArguments, out: Tensor): Traced | undefined {
    const region = coreRegion(HOST_CORE, this.manifest.heapBytes || DEFAULT_HEAP_BYTES, this.printfBytes);
    const view = hbm().view();
    const flags = this.flags();
    const launch = prepareCore(region.ctx, 0, 1, flags, checked.tensors, out);
    const raw = checked.scalars.map((s, i) => s ?? launch.argDescs[i]!);
    this.hostInstance ??= new KernelInstance(this.placed.module, hbm().memory, this.placed.locator, withStaticData(this.manifest.sanitize
      ? sanitizerImports({ memory: hbm().memory, staticBase: this.placed.staticBase, staticBytes: this.placed.staticBytes, locator: this.placed.locator })
      : undefined, this.placed.staticBase, this.placed.staticBytes));
    // The TCM base the kernel library trusts, as the host wrote it into the context block (coreRegion).
    const site = this.hostSite(op, region.ctx, region.tcm);
    const writer = flags & FLAG_TRACE ? new TraceWriter(this.hostTrace ??= new Float64Array(TRACE_CORE_BYTES / 8), 0) : null;
    this.hostInstance.traceTo(writer);
    let outcome: ReturnType<KernelInstance["run"]>;
    try {
      const instance = this.hostInstance;
      outcome = watchHostRun(op.qualifiedName, region.ctx, this.settings.timeout_ms, (token) => instance.run(site, op.kernel.name, raw, 0, token));
    } catch (e) {
      // What the kernel printed before it failed is often the best clue.
      showCoreOutput(op.qualifiedName, [{ core: 0, ctx: region.ctx, warnings: [], dropped: 0 }]);
      // A kernel that changed a descriptor and then failed: the change is the more telling error.
      verifyDescriptors(hbm().words(), region.ctx, launch, site);
      throw e;
    } finally {
      this.hostInstance.traceTo(null);
    }
    const logged = writeLog(view, region.ctx);
    const writes = outcome.writes.length ? [...outcome.writes, ...logged] : logged;
    const printed = writer ? readRing(region.ctx).text : "";
    showCoreOutput(op.qualifiedName, [{ core: 0, ctx: region.ctx, warnings: outcome.warnings, dropped: 0 }]);
    verifyDescriptors(hbm().words(), region.ctx, launch, site);
    const returnedBytes = copyResult(op, 0, region.ctx, outcome.returned, launch, out);
    if (returnedBytes === null && flags & FLAG_LOG_WRITES) checkCoverage(op, writes, out);
    split?.mark(S_AFTER);
    if (!writer) return undefined;
    const core = coreTrace(this.hostTrace!, 0, { core: 0, counters: readCounters(view, region.ctx), writes: returnedBytes ? [0, out.numel()] : writes, printf: printed });
    return { cores: [core], returnedBytes: returnedBytes ?? 0 };
  }

  /**
   * Stops using the library: its operators fail from now on (RegistryError E_UNLOADED). Calls already
   * started (async ones queued or running) finish normally; its static data and its place on the core
   * threads are freed when the last of them ends.
   */
  unload(): void {
    if (this.unloaded) return;
    this.unloaded = true;
    if (this.callsInFlight === 0) this.release();
  }

  private release(): void {
    if (this.pooled) this.pool().forget(this);
    if (!this.placed.sharesStaticData) hbm().release(this.placed.staticBase);
  }

  /** True after unload(). */
  get isUnloaded(): boolean { return this.unloaded; }
}

/** What the core threads (or the calling thread) recorded of a traced launch. */
export type Traced = Pick<LaunchTrace, "cores" | "returnedBytes">;

/**
 * Copies the tensor a single-core kernel returned into the output, once checked to be one its launch
 * created (descriptors.ts); returns the bytes copied, or null when the kernel returned the output itself.
 */
export function copyResult(op: Operator, core: number, ctx: number, returned: number, launch: LaunchDescriptors, out: Tensor): number | null {
  if (returned === 0 || returned === launch.outputDesc) return null; // nothing, or the output itself (as returnedData finds)
  const region = regionAt(ctx)!;
  const site = { op: op.qualifiedName, core, kernel: op.kernel };
  const src = returnedData(hbm().view(), ctx, returned, launch, { start: region.heap, end: region.heap + region.heapBytes }, site);
  return src ? copyReturned(op, src, out) : null;
}

/** Copies a tensor the kernel returned (not the output itself) into the output; returns the bytes copied. */
export function copyReturned(op: Operator, src: ReturnedData, out: Tensor): number {
  const { data, dtype, numel } = src;
  if (dtype !== out.dtype || numel !== out.numel()) {
    throw new ShapeFunctionError("E_RETURN_MISMATCH", `${op.qualifiedName}: the kernel returned ${dtypeInfo(dtype).name} with ${numel} elements, but the shape function declared ${out.describe()}; make them agree (or write into get_dst_tensor())`, { op: op.qualifiedName });
  }
  hbm().bytes().copyWithin(out.address, data, data + numel * dtypeInfo(dtype).bytes);
  return numel * dtypeInfo(dtype).bytes;
}

/** The intervals still in a core's write log, as [start, end, ...]. */
export function writeLog(view: DataView, ctx: number): number[] {
  const out: number[] = [];
  const n = writeLogCount(view, ctx);
  for (let i = 0; i < n; i++) out.push(view.getUint32(ctx + CTX_WLOG + 8 * i, true), view.getUint32(ctx + CTX_WLOG + 8 * i + 4, true));
  return out;
}

/**
 * Fails if a single-core call left output elements unwritten (`intervals`: its write log, [start, end, ...]). A
 * multicore call's coverage is the cross-core check's (host/cores/outcome.ts), which also finds overlaps.
 */
export function checkCoverage(op: Operator, intervals: number[], out: Tensor): void {
  // The output written in one run from its first element to its last (a tiny call, most calls): nothing is missing.
  if (intervals.length === 2 && intervals[0] === 0 && intervals[1] >= out.numel()) return;
  const f = checkCrossCore([{ core: 0, intervals }], out.numel());
  // Thrown before the writes nearest the gap are named: the caller's catch has a rerun find them (locate-rerun.ts).
  if (f.unwritten) throw unwrittenOutputError(op.qualifiedName, f, out, false);
}

/** The cores' warnings, each text once: the same warning from several cores names them all, "(cores 0-7)". */
function mergeCoreWarnings(reports: CoreReport[]): string[] {
  if (reports.every((r) => r.warnings.length === 0)) return [];
  const groups = new Map<string, number[]>();
  for (const r of reports) {
    for (const w of r.warnings) {
      const key = w.replace(/\(core \d+\)/, "(core *)");
      groups.set(key, [...(groups.get(key) ?? []), r.core]);
    }
  }
  return [...groups].map(([key, cores]) => (cores.length === 1 ? key.replace("(core *)", `(core ${cores[0]})`) : key.replace("(core *)", `(cores ${ranges(cores)})`)));
}

/** "0-3, 5, 7-8" */
function ranges(sorted: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return parts.join(", ");
}

/** What one core left to show: its printf ring and warnings. */
export interface CoreReport { core: number; ctx: number; warnings: string[]; dropped: number; }

/** Shows printf output (with its header) and warnings after an operator finished. */
export function showCoreOutput(op: string, reports: CoreReport[]): void {
  const sinks = output();
  let dropped = 0;
  for (const r of reports) {
    const { text, lost } = readRing(r.ctx);
    if (text) {
      const header = `${new Date().toISOString()} INFO  gpsimd: Printing stdout from GPSIMD (${op}, core ${r.core}):\n`;
      sinks.printf(header + (lost ? `[${lost} earlier bytes overwritten: the printf ring holds the last ${text.length}]\n` : "") + text + (text.endsWith("\n") ? "" : "\n"));
    }
    dropped += r.dropped;
  }
  for (const w of mergeCoreWarnings(reports)) sinks.warn(w);
  if (dropped) {
    const printers = reports.filter((r) => r.dropped).map((r) => `core ${r.core} (${r.dropped})`).join(", ");
    sinks.warn(`${op}: ${dropped} printf call${dropped === 1 ? "" : "s"} on cores other than 0 dropped: ${printers} (in multicore mode only core 0 may print; load with print_all_cores: true to see every core's output)`);
  }
}
