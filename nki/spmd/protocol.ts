// What the calling thread and the SPMD worker threads say to each other. A
// job is posted to each worker; instances are claimed from a shared counter,
// so any number of threads runs the same instances, and a thread still
// starting when the others have claimed them all runs none. A worker counts
// itself in J_RUNNING before it claims, answers with a message, then counts
// itself out and wakes the caller: the job is over when every instance was
// claimed (or one failed) and no thread is running. Tensors never move: they
// are described by their device address.
import type { ErrorData } from "../../host/checks/errors.js";
import type { ThreadResources } from "./thread-resources.js";
import type { SourceSite } from "../python/values.js";
import type { SharedWrite } from "./overlaps.js";

/** Words of a job's control block (Int32Array over a SharedArrayBuffer). */
export const J_CLAIM = 0;       // next instance number to claim
export const J_FAILED_AT = 1;   // lowest instance number that failed (INT32_MAX when none): later ones are not started
export const J_RUNNING = 2;     // threads inside the job's claim loop (a thread that has not started yet claims nothing)
export const J_CRASHED = 3;     // 1 + index of a worker whose thread died during the job, else 0
export const JOB_CONTROL_WORDS = 4;
export const NONE_FAILED = 0x7fffffff;

/**
 * A worker's state block (shared with the calling thread). Word S_STATE: 0 while it loads, STARTED when it
 * takes jobs, START_FAILED when it could not start (S_MESSAGE_LENGTH bytes of message from MESSAGE_AT). Word
 * S_IN_JOB: the number of the job it is running, 0 between jobs (a thread that dies inside one fails it).
 */
export const S_STATE = 0;
export const S_IN_JOB = 1;
const S_MESSAGE_LENGTH = 2;
const MESSAGE_AT = 12;
export const STARTED = 1;
export const START_FAILED = 2;
export const START_BLOCK_BYTES = 4096;

/** Writes why a worker could not start into its state block. */
export function reportStartFailure(block: SharedArrayBuffer, e: unknown): void {
  const text = new TextEncoder().encode(e instanceof Error ? (e.stack ?? e.message) : String(e)).subarray(0, START_BLOCK_BYTES - MESSAGE_AT);
  new Uint8Array(block, MESSAGE_AT).set(text);
  new Int32Array(block)[S_MESSAGE_LENGTH] = text.length;
  Atomics.store(new Int32Array(block), S_STATE, START_FAILED);
}

/** The message reportStartFailure wrote. */
export function startFailure(block: SharedArrayBuffer): string {
  const length = new Int32Array(block)[S_MESSAGE_LENGTH];
  return new TextDecoder().decode(new Uint8Array(block, MESSAGE_AT, length).slice());
}

/** A tensor as a worker sees it: where it is and what it holds. */
export interface TensorRef { tensor: { addr: number; sizes: number[]; dtype: string } }
/** A shared_hbm output of the launch as it crosses threads: the tensor and its init map (OutputRecord). */
export interface OutputRef extends TensorRef { initAddr: number; name?: string; site?: SourceSite }
/** An argument as it crosses threads (tensors as references; arrays are tuples). */
export type WireValue = TensorRef | number | bigint | boolean | string | null | WireValue[];

/** What a worker receives at start. */
export interface WorkerInit {
  index: number;
  /** The main thread's device memory (hbm()). */
  memory: WebAssembly.Memory;
  /** The tile engine's compiled module (each thread instantiates its own). */
  engine: WebAssembly.Module;
  /** Device memory the main thread set aside for this thread (arenas, scratch). */
  resources: ThreadResources;
  /** The start block (STARTED, START_FAILED): a job's caller tells a thread that could not start from a slow one. */
  started: SharedArrayBuffer;
}

/** One launch's share of work, posted to every participating worker. */
export interface JobMessage {
  type: "job";
  /** Numbers the jobs: an answer that arrives after its job ended (a thread that started late) is told apart. */
  seq: number;
  control: SharedArrayBuffer;
  /** The kernel file's name (what errors show) and the exact source the caller loaded. */
  file: string;
  source: string;
  kernel: string;
  args: WireValue[];
  kwargs: Record<string, WireValue>;
  grid: number[];
  /** Instances to run: numbers below `count` claimed from J_CLAIM. */
  count: number;
  /** The shared_hbm tensors instance 0 allocated, in creation order: every instance's k-th allocation is outputs[k]. */
  outputs: OutputRef[];
  /** Date.now() after which the kernel stops with KernelTimeoutError. */
  deadline: number;
  device: string;
  /** Whether the NKI checks (races, instance overlaps, capacity) are on, as on the calling thread. */
  checks: boolean;
}

/** One instance a worker ran. */
export interface InstanceReport {
  index: number;
  ms: number;
  /** What the instance printed (device_print), replayed by the caller in instance order. */
  printed: string;
  /** Instructions per engine, when the language room counts them. */
  counts?: Record<string, number>;
}

/** A worker's answer to a job. */
export interface DoneMessage {
  type: "done";
  seq: number;
  worker: number;
  ran: InstanceReport[];
  /** The stores of its instances to the shared outputs, for the overlap check across instances (overlaps.ts). */
  writes: SharedWrite[];
  /** The instance that failed and its error (the worker stops claiming after it). */
  failed?: { index: number; error: ErrorData; printed: string };
}
