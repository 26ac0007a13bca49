// A profile as Chrome trace JSON (the Trace Event Format, which Perfetto and
// chrome://tracing open): process 1 is the GpSimd engine with one lane per
// core (its kernel span, TCM copies, stream refills and flushes, TCM blocks,
// printf, a counter of TCM bytes in use, and counters of the estimated device
// time by cause: accessor, DMA, compute, and of compute by instruction class
// when instructions were counted); process 0 is the host with the call
// as the caller saw it. Times are µs from the start of the call.
import { TRACE_TCM_IN, TRACE_TCM_OUT, TRACE_STREAM_REFILL, TRACE_STREAM_FLUSH, TRACE_TCM_MALLOC, TRACE_TCM_FREE } from "../device/layout.js";
import { TRACE_KIND_NAMES, TRACE_PRINTF, type TraceEvent } from "./trace.js";
import type { ProfileResult } from "./profile.js";

/** One event of the Trace Event Format. */
export interface ChromeTraceEvent {
  name: string;
  /** X complete, i instant, C counter, M metadata. */
  ph: "X" | "i" | "C" | "M";
  /** µs. */
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  cat?: string;
  s?: "t" | "p" | "g";
  args?: Record<string, unknown>;
}

/** The JSON object a trace file holds. */
export interface ChromeTrace {
  traceEvents: ChromeTraceEvent[];
  displayTimeUnit: "ms" | "ns";
  otherData: Record<string, unknown>;
}

const HOST_PID = 0;
const ENGINE_PID = 1;

/** The tensor a slot names: a parameter, the output, or a tensor the kernel made. */
function tensorName(slot: number, params: string[]): string {
  if (slot === -1) return "output";
  if (slot === -2) return "kernel-made tensor";
  return params[slot] ?? `argument ${slot}`;
}

function eventArgs(e: TraceEvent, params: string[]): Record<string, unknown> {
  switch (e.kind) {
    case TRACE_TCM_IN: case TRACE_TCM_OUT: case TRACE_STREAM_REFILL: case TRACE_STREAM_FLUSH:
      return { tensor: tensorName(e.slot, params), bytes: e.bytes, element_offset: e.offset };
    case TRACE_TCM_MALLOC: case TRACE_TCM_FREE:
      return { block: e.slot === 1 ? "stream cache" : "tcm_malloc", bytes: e.bytes, address: `0x${e.offset.toString(16)}` };
    case TRACE_PRINTF:
      return e.offset < 0 ? { dropped: true } : { bytes: e.bytes };
    default:
      return { slot: e.slot, bytes: e.bytes, offset: e.offset };
  }
}

/** The profile's median traced call as a Chrome trace. */
export function chromeTrace(result: ProfileResult): ChromeTrace {
  const trace = result.trace;
  const t0 = trace.callStart;
  const us = (ms: number) => Math.round((ms - t0) * 1e6) / 1e3; // ms since the trace epoch -> µs since the call, ns resolution
  const events: ChromeTraceEvent[] = [
    { name: "process_name", ph: "M", ts: 0, pid: HOST_PID, tid: 0, args: { name: "host" } },
    { name: "thread_name", ph: "M", ts: 0, pid: HOST_PID, tid: 0, args: { name: "calling thread" } },
    { name: "process_name", ph: "M", ts: 0, pid: ENGINE_PID, tid: 0, args: { name: `GpSimd engine: ${trace.op}` } },
    {
      name: trace.op, cat: "call", ph: "X", ts: 0, dur: us(trace.callEnd), pid: HOST_PID, tid: 0,
      args: { wall_ms_median_untraced: result.wall.median, estimated_device_us: result.estimate.totalNs / 1e3, returned_copy_bytes: trace.returnedBytes },
    },
  ];
  for (const core of trace.cores) {
    const tid = core.core;
    const estimate = result.estimate.cores[core.core];
    events.push(
      { name: "thread_name", ph: "M", ts: 0, pid: ENGINE_PID, tid, args: { name: `core ${core.core}${core.thread >= 0 ? ` (thread ${core.thread})` : ""}` } },
      { name: "thread_sort_index", ph: "M", ts: 0, pid: ENGINE_PID, tid, args: { sort_index: core.core } },
      {
        name: "kernel", cat: "kernel", ph: "X", ts: us(core.start), dur: us(core.end) - us(core.start), pid: ENGINE_PID, tid,
        args: {
          ...core.counters, instructions: core.instructions ?? undefined, estimated_device_us: estimate ? estimate.totalNs / 1e3 : 0,
          dropped_events: core.dropped, printf: core.printf || undefined,
        },
      },
    );
    if (estimate) {
      // The estimate by cause as a counter on the core's lane: which of the three bounds this core, at a glance.
      events.push({
        name: `core ${core.core} estimated device µs`, ph: "C", ts: us(core.start), pid: ENGINE_PID, tid,
        args: { accessor: estimate.accessorNs / 1e3, dma: estimate.dmaNs / 1e3, compute: estimate.computeNs / 1e3 },
      });
      // The compute term by instruction class, when the instructions were counted: what the core's arithmetic is made of.
      if (estimate.computeNsByClass) {
        events.push({
          name: `core ${core.core} estimated compute µs by class`, ph: "C", ts: us(core.start), pid: ENGINE_PID, tid,
          args: Object.fromEntries(Object.entries(estimate.computeNsByClass).map(([k, ns]) => [k, ns / 1e3])),
        });
      }
    }
    let tcmInUse = 0;
    for (const e of core.events) {
      const name = TRACE_KIND_NAMES[e.kind] ?? `event ${e.kind}`;
      events.push({ name, cat: name, ph: "i", s: "t", ts: us(e.time), pid: ENGINE_PID, tid, args: eventArgs(e, result.params) });
      if (e.kind === TRACE_TCM_MALLOC || e.kind === TRACE_TCM_FREE) {
        tcmInUse += e.kind === TRACE_TCM_MALLOC ? e.bytes : -e.bytes;
        events.push({ name: `core ${core.core} TCM bytes`, ph: "C", ts: us(e.time), pid: ENGINE_PID, tid, args: { bytes: tcmInUse } });
      }
    }
  }
  return {
    traceEvents: events, displayTimeUnit: "ns",
    otherData: {
      op: trace.op, multicore: trace.multicore, cores: trace.cores.length,
      wall_ms: result.wall, traced_wall_ms: result.tracedWall,
      estimated_device_time_us: {
        note: "an estimate from the cost model (docs/cost-model.md), not a measurement", device: result.estimate.device,
        total: result.estimate.totalNs / 1e3, launch: result.estimate.launchNs / 1e3, kernel: result.estimate.kernelNs / 1e3, bound: result.estimate.bound, limited_by: result.estimate.limitedBy,
        compute_from: result.estimate.computeFrom, slowest_core_held_back: result.estimate.heldBackNs / 1e3,
        cores: result.estimate.cores.map((c) => ({ core: c.core, accessor: c.accessorNs / 1e3, dma: c.dmaNs / 1e3, compute: c.computeNs / 1e3, total: c.totalNs / 1e3, instructions: c.instructions })),
      },
    },
  };
}
