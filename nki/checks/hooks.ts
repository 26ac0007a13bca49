// The calls the NKI machine makes so that the checks (nki/checks) and the profiler (nki/profile) can
// follow a run: every engine operand as it is made, the end of every instruction, the loops of nl's
// ranges, tile allocations and the end of each run. The machine calls these; they do nothing until an
// observer is installed, so the machine never depends on the checks (this file imports types only).
import type { CallContext, SourceSite } from "../python/values.js";
import type { Storage } from "../machine/tile.js";
import type { Operand } from "../machine/engine.js";

/** An instruction input as instructions.ts lists it (null: a scalar). */
export interface InputSeen { readonly op: Operand }

export interface MachineObserver {
  operand(storage: Storage, op: Operand): void;
  instruction(name: string, inputs: readonly (InputSeen | null)[], ctx: CallContext): void;
  tileAllocated(storage: Storage, partitionAxis: number): void;
  loopStart(kind: string, site: SourceSite | undefined): LoopHandle;
  runEnd(run: object): void;
}

/** One execution of an nl range loop, as the observer follows it. */
export interface LoopHandle {
  iteration(value: number): void;
  end(): void;
}

const noLoop: LoopHandle = { iteration() {}, end() {} };
let observer: MachineObserver | null = null;

export function setMachineObserver(o: MachineObserver | null): void { observer = o; }

/** Called by instructions.ts for every operand it makes; returns the operand. */
export function noteOperand(storage: Storage, op: Operand): Operand {
  if (observer) observer.operand(storage, op);
  return op;
}

/** Called by instructions.ts after every engine instruction (operands not among `inputs` were written). */
export function noteInstruction(name: string, inputs: readonly (InputSeen | null)[], ctx: CallContext): void {
  if (observer) observer.instruction(name, inputs, ctx);
}

/** Called by kernel-run.ts when a tile is allocated (partitionAxis: the axis nl.par_dim marked). */
export function noteTileAllocated(storage: Storage, partitionAxis: number): void {
  if (observer) observer.tileAllocated(storage, partitionAxis);
}

/** Called by nl's range iterators when a loop starts; the handle hears each iteration and the end. */
export function noteLoopStart(kind: string, site: SourceSite | undefined): LoopHandle {
  return observer ? observer.loopStart(kind, site) : noLoop;
}

/** Called by kernel-run.ts when a run (one SPMD instance) returned normally. */
export function noteRunEnd(run: object): void {
  if (observer) observer.runEnd(run);
}
