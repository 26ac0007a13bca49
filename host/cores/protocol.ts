// The shared-memory protocol between the main thread and the worker threads
// that run multicore launches. One Int32Array (the control block) carries the
// launch; per-core mailboxes carry reports back as JSON. Libraries (compiled
// modules) travel once by message and are received synchronously.
import type { KernelSignature } from "../../build/signatures.js";
import { coverageTableBytes } from "./coverage-table.js";

// ---- control block (Int32Array indices) ----
/** Launch sequence number; workers wait on it. Bumped once per launch. */
export const C_SEQ = 0;
/** Claim word: (seq & 0xFFFFFF) << 8 | next core. Workers claim cores with compare-and-swap, so a late worker can never claim a core of another launch. */
export const C_CLAIM = 1;
/** Cores finished in this launch. */
export const C_DONE = 2;
/** The seq of the last completed launch: set by the thread that finishes its last core; waiters wait for it to change. */
export const C_COMPLETE = 3;
export const C_NCORES = 4;
/** Workers with an index at or above this do not take part (the library's `threads`). */
export const C_THREADS = 5;
export const C_LIBRARY = 6;
export const C_OP = 7;
/** Address of the launch's template context (flags, tensors), copied by each core. */
export const C_TEMPLATE = 8;
/** 0 launch, 1 exit. */
export const C_COMMAND = 9;
/** Library messages sent so far; a worker receives messages until it has seen this many. */
export const C_LIBRARY_MESSAGES = 10;
/** Workers parked in Atomics.wait (the main thread skips notify when none is). */
export const C_PARKED = 11;
/** Device-memory address of the launch's trace area (TRACE_CORE_BYTES per core), 0 when the launch is not traced. */
export const C_TRACE = 12;
/** Index + 1 of a core thread that failed outside any kernel (an internal error): it is dying; its message is in the crash area. */
export const C_CRASHED = 13;
/** 1 when the launch is asynchronous: the thread that completes it also posts a message (see Pool.onComplete). */
export const C_ASYNC = 14;
/** Fault injection for tests: the worker with this index + 1 fails at its next core (0: none). */
export const C_FAULT = 15;
/** Per-core status words start here. */
export const C_STATUS = 16;
export const MAX_CORES = 64;
/** Context block address of each logical core, after the status words. */
export const C_CONTEXTS = C_STATUS + MAX_CORES;
/** Scalar arguments: Float64 slots after the context addresses (BigInt64 view of the same bytes for int64). */
export const C_SCALARS_BYTE_OFFSET = (C_CONTEXTS + MAX_CORES) * 4;
export const MAX_SCALARS = 16;
/** The output's shared coverage table (coverage-table.ts), after the scalars: a slot per core, host code only. */
export const C_COVERAGE_BYTE_OFFSET = C_SCALARS_BYTE_OFFSET + (MAX_SCALARS + 1) * 8;
export const CONTROL_BYTES = C_COVERAGE_BYTE_OFFSET + coverageTableBytes(MAX_CORES);

/** Now, in ms since the Unix epoch, from this thread's high-resolution clock. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export const COMMAND_LAUNCH = 0;
export const COMMAND_EXIT = 1;
/** Receive the library messages broadcast so far and say so ({ type: "received" }); run nothing. */
export const COMMAND_RECEIVE = 2;

// ---- per-core status ----
export const STATUS_PENDING = 0;
export const STATUS_RUNNING = 1;
export const STATUS_OK = 2;
/** Finished, with a report (warnings, drained write log, dropped printf) in the mailbox. */
export const STATUS_REPORT = 3;
export const STATUS_ERROR = 4;

/** Bytes of each core's mailbox. */
export const MAILBOX_BYTES = 64 * 1024;
/** After the mailboxes: the crash area, [length, UTF-8 text] of a dying core thread's error. */
export const CRASH_AT = MAX_CORES * MAILBOX_BYTES;
export const CRASH_BYTES = 4096;
export const MAILBOXES_BYTES = CRASH_AT + CRASH_BYTES;

/** A core's report, as JSON in its mailbox. */
export interface CoreReportData {
  error?: import("../checks/errors.js").ErrorData;
  warnings: string[];
  writes: number[];
  /** Output intervals the core read (multicore: the cross-core race check), as [start, end, ...]. */
  reads?: number[];
  dropped: number;
  /** Descriptor address a single-core kernel returned when it is not the output (its result, to copy). */
  returned?: number;
}

/** An operator of a library, as workers know it. */
export interface WorkerOp { name: string; kernel: KernelSignature; }

/**
 * A worker's messages to the main thread: it is ready to run cores (with the libraries of the first `messages`
 * broadcasts); it has received the first `messages` library broadcasts; an asynchronous launch completed.
 */
export type CompletionMessage = { type: "ready"; messages: number } | { type: "received"; messages: number } | { type: "complete"; seq: number };

/** Messages to workers (received with receiveMessageOnPort). */
export type WorkerMessage =
  | { type: "library"; id: number; module: WebAssembly.Module; ops: WorkerOp[]; sourceMap: string; offsetMap: Uint32Array; code: Uint8Array; staticBase: number; staticBytes: number }
  | { type: "forget"; id: number };

/** What a worker is started with. */
export interface WorkerInit {
  index: number;
  control: SharedArrayBuffer;
  mailboxes: SharedArrayBuffer;
  memory: WebAssembly.Memory;
  /** Library messages waiting on the port when the worker starts (every library loaded so far). */
  replayed: number;
  /** C_LIBRARY_MESSAGES when the worker started: broadcasts after that are for it too. */
  messagesAtStart: number;
  /** C_SEQ when the worker was created: a launch published before the thread is up is still seen as new. */
  seqAtStart: number;
  /**
   * The thread's own state word (Int32 [0]): WORKER_IDLE, the seq of the launch it takes part in (set by
   * compare-and-swap from idle before it claims a core, back to idle once every core it claimed is done), or
   * WORKER_RETIRED (set by the pool from idle: the thread takes no more work). So the pool knows whether a thread that
   * dies held any core of the launch in flight, and can retire an idle thread so that it never takes one.
   */
  state: SharedArrayBuffer;
  port: import("node:worker_threads").MessagePort;
}

/** A worker's state word (WorkerInit.state): holding nothing, or retired; otherwise the seq of its launch. */
export const WORKER_IDLE = 0;
export const WORKER_RETIRED = -1;

/** Packs a claim word. */
export function claimWord(seq: number, next: number): number {
  return ((seq & 0xFFFFFF) << 8) | next;
}
