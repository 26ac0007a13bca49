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
  /** The last instruction, held while the same Python call issues more (a scan's columns): one event per call. */
  private held: { event: InstructionEvent; accesses: Access[] } | null = null;

  private dispatch(e: InstructionEvent): void {
    for (const c of this.consumers) c.instruction?.(e);
  }

  /**
   * Hands the held instruction to the consumers. When its run is no longer the current one (the run
   * failed, or a kernel it called started), a check's error for it is dropped.
   */
  private release(): void {
    const h = this.held;
    if (!h) return;
    this.held = null;
    const e: InstructionEvent = { ...h.event, accesses: h.accesses.map((a) => (a.shape === MERGED ? boxAccess(a) : a)) };
    if (e.run === maybeCurrentRun()) { this.dispatch(e); return; }
    try { this.dispatch(e); } catch { /* see above */ }
  }

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
    const inputOps: Operand[] = [];
    for (const i of inputs) if (i) inputOps.push(i.op);
    const accumulating = isAccumulation(name);
    const accesses: Access[] = [];
    for (const { storage, op } of pending) {
      const read = inputOps.includes(op);
      // PSUM accumulation (+= into PSUM, a matmul's PSUM output): the one cross-iteration update NKI allows.
      const kind: AccessKind = storage.kind === "psum" && accumulating ? "accumulate" : read ? "read" : "write";
      const start = (op.addr - storage.addr) / storage.dtype.bytes;
      accesses.push({ storage, kind, region: regionOf(storage, start, op.shape, op.strides), shape: op.shape, strides: op.strides });
    }
    markInPlaceUpdates(accesses);
    const h = this.held?.event;
    if (h && h.call === ctx && h.run === run && h.name === name && h.iteration === this.current) {
      mergeAccesses(this.held!.accesses, accesses);
      return;
    }
    this.release();
    this.held = { event: { seq: ++this.seq, name, site: ctx.site, accesses: [], iteration: this.current, run, call: ctx }, accesses };
  }

  tileAllocated(storage: Storage, partitionAxis: number): void {
    if (!this.consumers.length) return;
    this.release();
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
      iteration: (value: number) => { this.release(); this.current = { loop, value, depth }; },
      end: () => {
        this.release();
        this.current = loop.parent;
        if (run) for (const c of this.consumers) c.loopEnded?.(loop, run);
      },
    };
  }

  runEnd(run: object): void {
    if (!this.consumers.length) return;
    this.release();
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

/**
 * Adds the accesses of a later engine instruction of the same Python call to `out`: an access that
 * continues an earlier one of the same storage and kind (the next column of a scan) extends its box.
 */
function mergeAccesses(out: Access[], later: readonly Access[]): void {
  for (const a of later) {
    let merged = false;
    for (let k = out.length - 1; k >= Math.max(0, out.length - 8) && !merged; k--) {
      let b = out[k];
      if (b.storage !== a.storage || b.kind !== a.kind) continue;
      const d = touchingAxis(b.region, a.region);
      if (d === null) continue;
      if (b.shape !== MERGED) {
        // First merge: a box of its own, widened in place by the next ones.
        b = out[k] = { ...b, region: { lo: [...b.region.lo], hi: [...b.region.hi], step: b.region.step, flat: false }, shape: MERGED, strides: MERGED };
      }
      if (d >= 0) {
        b.region.lo[d] = Math.min(b.region.lo[d], a.region.lo[d]);
        b.region.hi[d] = Math.max(b.region.hi[d], a.region.hi[d]);
      }
      merged = true;
    }
    if (!merged) out.push(a);
  }
}

/**
 * Whether the union of two boxes is a box: -1 when they are the same box, the dimension along which
 * they touch when they are equal in every other (step 1 there), null otherwise.
 */
function touchingAxis(a: Region, b: Region): number | null {
  if (a.flat || b.flat) return null;
  let along = -1;
  for (let d = 0; d < a.lo.length; d++) {
    if (a.lo[d] === b.lo[d] && a.hi[d] === b.hi[d] && a.step[d] === b.step[d]) continue;
    if (along >= 0 || a.step[d] !== 1 || b.step[d] !== 1 || (a.hi[d] !== b.lo[d] && b.hi[d] !== a.lo[d])) return null;
    along = d;
  }
  return along;
}

/** The shape of an access merged from several (computed once, when the instruction is handed on). */
const MERGED: readonly number[] = [];

/** A merged access with the shape and strides of its box. */
function boxAccess(a: Access): Access {
  const r = a.region;
  const dims = a.storage.shape;
  const strides: number[] = new Array<number>(dims.length);
  let n = 1;
  for (let d = dims.length - 1; d >= 0; d--) { strides[d] = n * r.step[d]; n *= dims[d]; }
  return { ...a, region: r, shape: r.lo.map((l, d) => Math.ceil((r.hi[d] - l) / r.step[d])), strides };
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
