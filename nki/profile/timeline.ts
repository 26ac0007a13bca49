// The estimated timeline of one run (one SPMD instance on its NeuronCore): each NKI instruction on its
// engine in program order (each engine runs its own instruction stream in order), starting when its
// engine is free and every instruction it depends on has finished. Dependencies come from the data:
// a read waits for earlier writes of the elements it reads, a write for earlier reads and writes of
// its elements (boxes, checks/regions.ts). Engines overlap wherever the data flow allows. DMA
// transfers share the 16 DMA engines' bandwidth in order and finish a fixed latency later; they are
// drawn on DMA queue lanes (the first queue free at the start).
import type { Storage } from "../machine/tile.js";
import { overlaps, type Region } from "../checks/regions.js";
import { instructionCost, COSTS, type EngineName } from "./cost.js";
import type { NkiInstruction } from "./instructions.js";

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
}

export interface Timeline {
  readonly placed: readonly Placed[];
  readonly totalUs: number;
  /** Busy time per engine (µs). */
  readonly busyUs: Record<EngineName, number>;
  readonly counts: Record<EngineName, number>;
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
  const history = new Map<Storage, StorageHistory & { floor: { endUs: number; index: number } }>();
  const dmaQueues: number[] = [];
  const placed: Placed[] = [];
  let totalUs = 0;

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
    placed.push({ index, instruction: ins, engine, lane, startUs, durUs: engine === "DMA" ? cost.latencyUs : cost.busyUs, endUs, waitedFor });
    totalUs = Math.max(totalUs, endUs);
    for (const a of ins.accesses) {
      let h = history.get(a.storage);
      if (!h) history.set(a.storage, (h = { writes: [], reads: [], floor: { endUs: 0, index: -1 } }));
      const list = a.kind === "read" ? h.reads : h.writes;
      list.push({ region: a.region, endUs: a.kind === "read" ? startUs + cost.busyUs : endUs, index });
      if (list.length > KEEP) {
        const old = list.shift()!;
        if (old.endUs > h.floor.endUs) h.floor = { endUs: old.endUs, index: old.index };
      }
    }
  });
  return { placed, totalUs, busyUs, counts };
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
