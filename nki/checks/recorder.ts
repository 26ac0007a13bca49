// Follows a kernel run through the machine's hooks and hands each finished instruction, as plain
// facts (what it read, wrote or accumulated into, where, inside which loop iterations), to the
// consumers: the race and capacity checks and the profiler. Operands are collected as instructions.ts
// makes them; at the instruction's end the ones it listed as inputs were read, the others written.
import type { CallContext, SourceSite } from "../python/values.js";
import type { Storage } from "../machine/tile.js";
import type { Operand } from "../machine/engine.js";
import { maybeCurrentRun, type KernelRun } from "../machine/kernel-run.js";
import { setMachineObserver, type InputSeen, type LoopHandle, type MachineObserver } from "./hooks.js";
import { regionOf, type Region } from "./regions.js";

export type AccessKind = "read" | "write" | "accumulate";

/** One operand of a finished instruction. */
export interface Access {
  readonly storage: Storage;
  readonly kind: AccessKind;
  readonly region: Region;
  /** The operand's shape as the engine iterates it (partitions first for tiles). */
  readonly shape: readonly number[];
  /** Strides per axis (0: broadcast). */
  readonly strides: readonly number[];
}

/** One execution of an nl range loop. */
export interface LoopInfo {
  readonly id: number;
  readonly kind: string;
  readonly site: SourceSite | undefined;
  /** The iteration the loop runs in (null: not inside a loop). */
  readonly parent: Iteration | null;
}

/** One iteration of a loop; `parent` chains to the enclosing loops' iterations. */
export interface Iteration {
  readonly loop: LoopInfo;
  readonly value: number;
  readonly depth: number;
}

export interface InstructionEvent {
  /** Instruction number in the run (from 1). */
  readonly seq: number;
  readonly name: string;
  readonly site: SourceSite | undefined;
  readonly accesses: readonly Access[];
  /** The innermost loop iteration the instruction ran in (null: outside every nl range loop). */
  readonly iteration: Iteration | null;
  readonly run: KernelRun;
  /** The Python call that issued it: one NKI call may be several engine instructions (a scan runs column by column). */
  readonly call: CallContext;
}

/** What follows runs: each hook optional. */
export interface RunConsumer {
  instruction?(e: InstructionEvent): void;
  tileAllocated?(storage: Storage, partitionAxis: number, seq: number, run: KernelRun): void;
  loopEnded?(loop: LoopInfo, run: KernelRun): void;
  runEnd?(run: KernelRun, lastSeq: number): void;
}

interface Pending { storage: Storage; op: Operand }

/** The consumers and the state of the run being followed (one run at a time per thread). */
class Recorder implements MachineObserver {
  readonly consumers: RunConsumer[] = [];
  private pending: Pending[] = [];
  private run: KernelRun | null = null;
  private seq = 0;
  private current: Iteration | null = null;
  private loopIds = 0;

  private sync(): KernelRun | null {
    const run = maybeCurrentRun();
    if (run !== this.run) {
      this.run = run;
      this.seq = 0;
      this.current = null; // (pending operands stay: they belong to the instruction about to end)
    }
    return run;
  }

  operand(storage: Storage, op: Operand): void {
    if (this.consumers.length) this.pending.push({ storage, op });
  }

  instruction(name: string, inputs: readonly (InputSeen | null)[], ctx: CallContext): void {
    if (!this.consumers.length) return;
    const run = this.sync();
    const pending = this.pending;
    this.pending = [];
    if (!run) return;
    const inputOps = new Set<Operand>();
    for (const i of inputs) if (i) inputOps.add(i.op);
    const accumulating = isAccumulation(name);
    const accesses: Access[] = [];
    for (const { storage, op } of pending) {
      const read = inputOps.has(op);
      // PSUM accumulation (+= into PSUM, a matmul's PSUM output): the one cross-iteration update NKI allows.
      const kind: AccessKind = storage.kind === "psum" && accumulating ? "accumulate" : read ? "read" : "write";
      const start = (op.addr - storage.addr) / storage.dtype.bytes;
      accesses.push({ storage, kind, region: regionOf(storage, start, op.shape, op.strides), shape: op.shape, strides: op.strides });
    }
    markInPlaceUpdates(accesses);
    const e: InstructionEvent = { seq: ++this.seq, name, site: ctx.site, accesses, iteration: this.current, run, call: ctx };
    for (const c of this.consumers) c.instruction?.(e);
  }

  tileAllocated(storage: Storage, partitionAxis: number): void {
    if (!this.consumers.length) return;
    const run = this.sync();
    if (!run) return;
    for (const c of this.consumers) c.tileAllocated?.(storage, partitionAxis, this.seq, run);
  }

  loopStart(kind: string, site: SourceSite | undefined): LoopHandle {
    if (!this.consumers.length) return { iteration() {}, end() {} };
    const run = this.sync();
    const loop: LoopInfo = { id: ++this.loopIds, kind, site, parent: this.current };
    const depth = (this.current?.depth ?? 0) + 1;
    return {
      iteration: (value: number) => { this.current = { loop, value, depth }; },
      end: () => {
        this.current = loop.parent;
        if (run) for (const c of this.consumers) c.loopEnded?.(loop, run);
      },
    };
  }

  runEnd(run: object): void {
    if (!this.consumers.length) return;
    const r = run as KernelRun;
    const last = this.run === r ? this.seq : 0;
    for (const c of this.consumers) c.runEnd?.(r, last);
    if (this.run === r) { this.run = null; this.current = null; this.pending = []; }
  }
}

/**
 * An instruction that reads and writes the same elements (dst = dst op x, acc += x, the copy back of
 * a[i] += x) is an in-place update: NKI takes such associative updates as reductions, not as
 * loop-carried dependencies (matrix_multiplication.rst), so both accesses become accumulations.
 */
function markInPlaceUpdates(accesses: Access[]): void {
  for (let w = 0; w < accesses.length; w++) {
    const wa = accesses[w];
    if (wa.kind !== "write") continue;
    for (let r = 0; r < accesses.length; r++) {
      const ra = accesses[r];
      if (ra.kind !== "read" || ra.storage !== wa.storage || !sameRegion(ra.region, wa.region)) continue;
      accesses[w] = { ...wa, kind: "accumulate" };
      accesses[r] = { ...ra, kind: "accumulate" };
    }
  }
}

function sameRegion(a: Region, b: Region): boolean {
  return a.flat === b.flat && a.lo.every((l, d) => l === b.lo[d] && a.hi[d] === b.hi[d] && a.step[d] === b.step[d]);
}

/** "operator": += into PSUM; "matmul": a matmul (its PSUM output accumulates); null otherwise. */
function isAccumulation(name: string): "operator" | "matmul" | null {
  if (name.startsWith("operator +=")) return "operator";
  if (name.includes("matmul")) return "matmul";
  return null;
}

const recorder = new Recorder();
setMachineObserver(recorder);

/** Adds a consumer for the runs that follow (until removed). */
export function addConsumer(c: RunConsumer): void { recorder.consumers.push(c); }
export function removeConsumer(c: RunConsumer): void {
  const i = recorder.consumers.indexOf(c);
  if (i >= 0) recorder.consumers.splice(i, 1);
}

/** The parent iteration of an iteration (the enclosing loop's iteration at the time). */
export function parentOf(it: Iteration): Iteration | null { return it.loop.parent; }

/** The chain of iterations from the outermost loop in: [outer, ..., it]. */
export function iterationChain(it: Iteration | null): Iteration[] {
  const out: Iteration[] = [];
  for (let x = it; x; x = x.loop.parent) out.push(x);
  return out.reverse();
}
