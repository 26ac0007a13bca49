// Per-core timelines of traced launches (library.configure({ trace: true })):
// each core's kernel span and the events the kernel library reports (TCM
// copies, stream cache refills and flushes, TCM blocks) plus printf, with the
// core's counters read from its context block after the run. Events are
// packed as float64 records, so a core thread writes them straight into
// shared memory and the main thread reads them back without serialising.
import {
  CTX_STAT_TCM_IN_BYTES, CTX_STAT_TCM_OUT_BYTES, CTX_STAT_TCM_IN_CALLS, CTX_STAT_TCM_OUT_CALLS, CTX_STAT_ELEM_READS,
  CTX_STAT_ELEM_WRITES, CTX_STAT_STREAM_READS, CTX_STAT_STREAM_WRITES, CTX_STAT_PRINTF_CALLS, CTX_STAT_FILL_BYTES,
  TRACE_TCM_IN, TRACE_TCM_OUT, TRACE_STREAM_REFILL, TRACE_STREAM_FLUSH, TRACE_TCM_MALLOC, TRACE_TCM_FREE,
} from "../device/layout.js";
import { INSTRUCTION_CLASSES, type InstructionCounts } from "../../build/count-names.js";

/** Event kind the host adds (the kernel library's kinds are TRACE_* in layout.ts): a printf call; bytes of text, offset in the printf ring (-1: dropped). */
export const TRACE_PRINTF = 16;

/** Names of event kinds, as shown on the timeline. */
export const TRACE_KIND_NAMES: Record<number, string> = {
  [TRACE_TCM_IN]: "tensor_to_tcm", [TRACE_TCM_OUT]: "tcm_to_tensor", [TRACE_STREAM_REFILL]: "stream refill",
  [TRACE_STREAM_FLUSH]: "stream flush", [TRACE_TCM_MALLOC]: "tcm_malloc", [TRACE_TCM_FREE]: "tcm_free", [TRACE_PRINTF]: "printf",
};

/** Events one core keeps per launch; later ones are counted as dropped (the counters stay exact). */
export const TRACE_EVENTS_PER_CORE = 32768;
/** float64 slots of a core's header: event count, dropped events, span start, span end, thread, counted (1/0), instructions by class. */
const HEADER = 16;
/** Header slot of the "instructions counted" flag; the counts by class follow it. */
const COUNTED = 5;
/** float64 slots per event: time, kind, slot, bytes, offset. */
const RECORD = 5;
/** Bytes of one core's trace area. */
export const TRACE_CORE_BYTES = (HEADER + RECORD * TRACE_EVENTS_PER_CORE) * 8;

// Times are milliseconds since a fixed epoch, from the wall clock of the thread that records them
// (performance.timeOrigin + performance.now()), so the core threads' times are comparable. The epoch
// keeps the numbers small enough for float64 to resolve nanoseconds.
const EPOCH_MS = 1.7e12;
const ORIGIN = performance.timeOrigin - EPOCH_MS;

/** Now, in ms since the trace epoch (comparable across threads). */
export function traceClock(): number {
  return ORIGIN + performance.now();
}

/** One event of a core's timeline. */
export interface TraceEvent {
  /** ms since the trace epoch. */
  time: number;
  /** TRACE_* kind. */
  kind: number;
  /** Descriptor slot of the tensor (argument position, -1 output, -2 kernel-made); TCM kind for malloc/free. */
  slot: number;
  bytes: number;
  /** Tensor element offset (copies, streams), TCM address (malloc/free), ring position (printf). */
  offset: number;
}

/** What the kernel library counted on one core (CTX_STAT_*; kept when checks are on). */
export interface CoreCounters {
  tcmInBytes: number;
  tcmOutBytes: number;
  tcmInCalls: number;
  tcmOutCalls: number;
  elemReads: number;
  elemWrites: number;
  streamReads: number;
  streamWrites: number;
  printfCalls: number;
  /** Bytes stored by zeros/ones/full/eye/fill_ inside the kernel. */
  fillBytes: number;
}

/** One core's part of a traced launch. */
export interface CoreTrace {
  core: number;
  /** Worker thread that ran it (-1: the calling thread). */
  thread: number;
  /** Kernel span, ms since the trace epoch. */
  start: number;
  end: number;
  events: TraceEvent[];
  /** Events past TRACE_EVENTS_PER_CORE, not kept. */
  dropped: number;
  counters: CoreCounters;
  /** Output element intervals this core wrote, [start, end, start, end, ...] (when writes are logged). */
  writes: number[];
  /** printf text of this core (what its ring kept). */
  printf: string;
  /** Executed kernel instructions by class, when the launch ran a counting module (host/profiling/counting.ts); null otherwise. */
  instructions: InstructionCounts | null;
}

/** A traced launch. */
export interface LaunchTrace {
  /** lib::op */
  op: string;
  multicore: boolean;
  /** The call as the host saw it: arguments checked, shape function, kernel on every core, checks. */
  callStart: number;
  callEnd: number;
  cores: CoreTrace[];
  /** Bytes the runtime copied from a tensor the kernel returned into the output (0 when it wrote get_dst_tensor()). */
  returnedBytes: number;
  /** A multicore launch's steps on the calling thread (absent for a single-core call). */
  host?: LaunchPhases;
}

/**
 * When the calling thread reached each step of a multicore launch, ms since the trace epoch (traceClock): with the
 * cores' spans, where a call's time goes per thread (bench/multicore-breakdown.ts). Taken only for traced launches.
 */
export interface LaunchPhases {
  /** The pool starts publishing the launch (arguments checked, shape function run, output allocated before). */
  publishStart: number;
  /** The launch is in shared memory, just before the store that publishes it (a spinning worker may start a core at once); waking parked workers comes after. */
  published: number;
  /** The calling thread has no core left to claim (a synchronous launch; equal to `published` for an async one). */
  claimsDone: number;
  /** The calling thread has seen the launch complete (every core done). */
  completeSeen: number;
  /** Every core's status, report (mailbox) and write log read; printf shown. */
  reportsRead: number;
  /** Every core's tensor descriptors verified (unchanged by the kernel). */
  descriptorsVerified: number;
  /** The cross-core checks (overlaps, races, gaps) done. */
  checked: number;
}

/** Writes one core's events into float64 slots from `base` (a core thread's share of shared memory, or a local array). */
export class TraceWriter {
  private count = 0;
  private dropped = 0;

  constructor(private readonly f64: Float64Array, private readonly base: number, private readonly capacity = TRACE_EVENTS_PER_CORE) {}

  /** Starts the kernel span. */
  begin(thread: number): void {
    this.count = 0;
    this.dropped = 0;
    this.f64[this.base + 4] = thread;
    this.f64[this.base + 2] = traceClock();
  }

  /** Records an event now. */
  event(kind: number, slot: number, bytes: number, offset: number): void {
    if (this.count >= this.capacity) { this.dropped++; return; }
    const at = this.base + HEADER + this.count * RECORD;
    this.f64[at] = traceClock();
    this.f64[at + 1] = kind;
    this.f64[at + 2] = slot;
    this.f64[at + 3] = bytes;
    this.f64[at + 4] = offset;
    this.count++;
  }

  /** Ends the kernel span (also after a failure), with the executed instructions by class when the module counts them (INSTRUCTION_CLASSES order). */
  end(instructions: number[] | null = null): void {
    this.f64[this.base + 3] = traceClock();
    this.f64[this.base + COUNTED] = instructions ? 1 : 0;
    if (instructions) this.f64.set(instructions, this.base + COUNTED + 1);
    this.f64[this.base] = this.count;
    this.f64[this.base + 1] = this.dropped;
  }
}

/**
 * A core's trace: what a TraceWriter wrote from `base`, with the rest of what the host knows of the core. The
 * records are copied as they are and become event objects only when `events` is first read: most traced calls
 * are never looked at event by event.
 */
export function coreTrace(f64: Float64Array, base: number, rest: Pick<CoreTrace, "core" | "counters" | "writes" | "printf">): CoreTrace {
  const records = f64.slice(base + HEADER, base + HEADER + f64[base] * RECORD);
  let events: TraceEvent[] | null = null;
  return {
    ...rest, thread: f64[base + 4], start: f64[base + 2], end: f64[base + 3], dropped: f64[base + 1],
    instructions: f64[base + COUNTED] ? Object.fromEntries(INSTRUCTION_CLASSES.map((c, i) => [c, f64[base + COUNTED + 1 + i]])) as InstructionCounts : null,
    get events(): TraceEvent[] {
      events ??= Array.from({ length: records.length / RECORD }, (_, i) => {
        const at = i * RECORD;
        return { time: records[at], kind: records[at + 1], slot: records[at + 2], bytes: records[at + 3], offset: records[at + 4] };
      });
      return events;
    },
  };
}

/** The counters in the context block at ctx (valid until the core's next launch). */
export function readCounters(view: DataView, ctx: number): CoreCounters {
  const at = (offset: number) => view.getFloat64(ctx + offset, true);
  return {
    tcmInBytes: at(CTX_STAT_TCM_IN_BYTES), tcmOutBytes: at(CTX_STAT_TCM_OUT_BYTES),
    tcmInCalls: at(CTX_STAT_TCM_IN_CALLS), tcmOutCalls: at(CTX_STAT_TCM_OUT_CALLS),
    elemReads: at(CTX_STAT_ELEM_READS), elemWrites: at(CTX_STAT_ELEM_WRITES),
    streamReads: at(CTX_STAT_STREAM_READS), streamWrites: at(CTX_STAT_STREAM_WRITES),
    printfCalls: at(CTX_STAT_PRINTF_CALLS), fillBytes: at(CTX_STAT_FILL_BYTES),
  };
}
