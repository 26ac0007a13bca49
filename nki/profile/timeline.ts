// The estimated timeline of one run (one SPMD instance on its NeuronCore): each NKI instruction on its
// engine in program order (each engine runs its own instruction stream in order), starting when its
// engine is free and every instruction it depends on has finished. Dependencies come from the data:
// a read waits for earlier writes of the elements it reads, a write for earlier reads and writes of
// its elements (boxes, checks/regions.ts). Engines overlap wherever the data flow allows. DMA
// transfers share the 16 DMA engines' bandwidth in order and finish a fixed latency later; they are
// drawn on DMA queue lanes (the first queue free at the start). An instruction that repeats an earlier
// one on unchanged inputs (an unrolled loop's invariant work, repeats.ts) is computed once: the repeat
// takes the first one's result and no engine time.
import type { Storage } from "../machine/tile.js";
import { overlaps, type Region } from "../checks/regions.js";
import { instructionCost, COSTS, type EngineName } from "./cost.js";
import type { NkiInstruction } from "./instructions.js";
import { RepeatFinder } from "./repeats.js";

export interface Placed {
  readonly index: number;
  readonly instruction: NkiInstruction;
  readonly engine: EngineName;
  /** Lane drawn in (DMA queues: "DMA q0", ...). */
  readonly lane: string;
  readonly startUs: number;
  /** Engine busy time. */
  readonly durUs: number;
  /** When its results are there. */
  readonly endUs: number;
  /** What decided its start: the instruction it waited for (or the previous one on its engine), -1: none. */
  readonly waitedFor: number;
  /** The earlier instruction whose result it reuses (computed once, no engine time), -1: none. */
  readonly repeatOf: number;
}

export interface Timeline {
  readonly placed: readonly Placed[];
  readonly totalUs: number;
  /** Busy time per engine (µs). */
  readonly busyUs: Record<EngineName, number>;
  readonly counts: Record<EngineName, number>;
  /** Instructions that repeat an earlier one on unchanged inputs, not charged. */
  readonly repeats: number;
}

interface Touch { readonly region: Region; readonly endUs: number; readonly index: number }
interface StorageHistory { writes: Touch[]; reads: Touch[] }

/** Older touches beyond this many per storage are folded into one time bound (keeps the schedule linear). */
const KEEP = 64;

export const ENGINES: readonly EngineName[] = ["Tensor", "Vector", "Scalar", "GpSimd", "DMA"];

export function schedule(instructions: readonly NkiInstruction[]): Timeline {
  const engineFree: Record<EngineName, number> = { Tensor: 0, Vector: 0, Scalar: 0, GpSimd: 0, DMA: 0 };
  const engineLast: Record<EngineName, number> = { Tensor: -1, Vector: -1, Scalar: -1, GpSimd: -1, DMA: -1 };
  const busyUs: Record<EngineName, number> = { Tensor: 0, Vector: 0, Scalar: 0, GpSimd: 0, DMA: 0 };
  const counts: Record<EngineName, number> = { Tensor: 0, Vector: 0, Scalar: 0, GpSimd: 0, DMA: 0 };
  const history: History = new Map();
  const dmaQueues: number[] = [];
  const placed: Placed[] = [];
  const repeatFinder = new RepeatFinder();
  let totalUs = 0, repeats = 0;

  instructions.forEach((ins, index) => {
    const engine = ins.engine;
    let ready = 0, waitedFor = -1;
    const wait = (t: { endUs: number; index: number }) => { if (t.endUs > ready) { ready = t.endUs; waitedFor = t.index; } };
    let dependent = false;
    for (const a of ins.accesses) {
      const h = history.get(a.storage);
      if (!h) continue;
      if (h.floor.index >= 0) wait(h.floor);
      const check = (list: Touch[]) => { for (const t of list) if (overlaps(t.region, a.region, a.storage)) { wait(t); if (t.index === engineLast[engine]) dependent = true; } };
      check(h.writes);
      if (a.kind !== "read") check(h.reads);
    }
    const repeatOf = repeatFinder.visit(ins, index);
    if (repeatOf >= 0) {
      // Its result is the earlier instruction's: there when that one ends; no engine time.
      wait(placed[repeatOf]);
      placed.push({ index, instruction: ins, engine, lane: engine, startUs: ready, durUs: 0, endUs: ready, waitedFor, repeatOf });
      repeats++;
      record(history, ins, index, ready, ready);
      return;
    }
    if (engineFree[engine] >= ready) { ready = engineFree[engine]; waitedFor = engineLast[engine]; }
    const cost = instructionCost(ins, dependent);
    const startUs = ready + (waitedFor >= 0 && placed[waitedFor]?.engine !== engine ? COSTS.syncUs.value : 0);
    const endUs = startUs + cost.latencyUs;
    engineFree[engine] = startUs + cost.busyUs;
    engineLast[engine] = index;
    busyUs[engine] += cost.busyUs;
    counts[engine]++;
    let lane: string = engine;
    if (engine === "DMA") {
      let q = dmaQueues.findIndex((t) => t <= startUs);
      if (q < 0) q = dmaQueues.length < COSTS.dmaEngines.value ? dmaQueues.length : dmaQueues.indexOf(Math.min(...dmaQueues));
      dmaQueues[q] = endUs;
      lane = `DMA q${q}`;
    }
    placed.push({ index, instruction: ins, engine, lane, startUs, durUs: engine === "DMA" ? cost.latencyUs : cost.busyUs, endUs, waitedFor, repeatOf: -1 });
    totalUs = Math.max(totalUs, endUs);
    record(history, ins, index, startUs + cost.busyUs, endUs);
  });
  return { placed, totalUs, busyUs, counts, repeats };
}

type History = Map<Storage, StorageHistory & { floor: { endUs: number; index: number } }>;

/** Adds an instruction's reads (done at `readEndUs`) and writes (there at `writeEndUs`) to the history of its storages. */
function record(history: History, ins: NkiInstruction, index: number, readEndUs: number, writeEndUs: number): void {
  for (const a of ins.accesses) {
    let h = history.get(a.storage);
    if (!h) history.set(a.storage, (h = { writes: [], reads: [], floor: { endUs: 0, index: -1 } }));
    const list = a.kind === "read" ? h.reads : h.writes;
    list.push({ region: a.region, endUs: a.kind === "read" ? readEndUs : writeEndUs, index });
    if (list.length > KEEP) {
      const old = list.shift()!;
      if (old.endUs > h.floor.endUs) h.floor = { endUs: old.endUs, index: old.index };
    }
  }
}

/** The chain of instructions that decided the end: from the last to finish back through what each waited for. */
export function criticalPath(t: Timeline): Placed[] {
  if (!t.placed.length) return [];
  let last = t.placed[0];
  for (const p of t.placed) if (p.endUs > last.endUs) last = p;
  const path: Placed[] = [];
  for (let p: Placed | undefined = last; p; p = p.waitedFor >= 0 ? t.placed[p.waitedFor] : undefined) path.push(p);
  return path.reverse();
}
