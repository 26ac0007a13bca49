// The estimated timelines as a Chrome trace (chrome://tracing, ui.perfetto.dev): one process per SPMD
// instance, one thread (lane) per engine and DMA queue, one complete ("X") event per instruction named
// with its source line; times in microseconds.
import type { Timeline } from "./timeline.js";
import { ENGINES } from "./timeline.js";

export interface TraceEvent {
  name: string;
  ph: "X" | "M";
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

export interface ChromeTrace { traceEvents: TraceEvent[]; displayTimeUnit: "ns" | "ms"; otherData: Record<string, unknown> }

/** Lane order: the compute engines, then DMA queues in number order. */
function laneId(lane: string): number {
  const k = ENGINES.indexOf(lane as never);
  if (k >= 0) return k + 1;
  const q = /^DMA q(\d+)$/.exec(lane);
  return q ? 10 + Number(q[1]) : 99;
}

export function chromeTrace(kernel: string, instances: readonly { ids: readonly number[]; timeline: Timeline }[]): ChromeTrace {
  const events: TraceEvent[] = [];
  instances.forEach(({ ids, timeline }, k) => {
    const pid = k + 1;
    events.push({ name: "process_name", ph: "M", pid, tid: 0, args: { name: `${kernel} instance [${ids.join(", ")}] (estimate)` } });
    const lanes = new Set(timeline.placed.map((p) => p.lane));
    for (const lane of lanes) events.push({ name: "thread_name", ph: "M", pid, tid: laneId(lane), args: { name: lane } });
    for (const lane of lanes) events.push({ name: "thread_sort_index", ph: "M", pid, tid: laneId(lane), args: { sort_index: laneId(lane) } });
    for (const p of timeline.placed) {
      if (p.repeatOf >= 0) continue; // computed once: no instruction on the device
      const s = p.instruction.site;
      events.push({
        name: `${p.instruction.name}${s ? ` (${s.file.split("/").pop()}:${s.line})` : ""}`,
        cat: p.engine, ph: "X", pid, tid: laneId(p.lane),
        ts: round(p.startUs), dur: round(Math.max(p.durUs, 1e-3)),
        args: { file: s?.file, line: s?.line, engine: p.engine, free: p.instruction.free, inputs: p.instruction.inputs, bytes: p.instruction.dmaBytes || undefined, waitedFor: p.waitedFor },
      });
    }
  });
  return { traceEvents: events, displayTimeUnit: "ns", otherData: { source: "gpsimd NKI estimate (docs/cost-model.md)" } };
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
