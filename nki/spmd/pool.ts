// The SPMD worker threads: each runs kernel instances with its own interpreter
// (the program loaded again from the same source) and its own tile engine,
// over the one device memory. Threads start at the first grid launch that
// needs them and stay (unref'd: they never keep the process alive). A job's
// instances are claimed from a shared counter; the calling thread claims too
// when it waits anyway, and a thread still starting up is not waited for. A
// thread that dies during a job, or cannot start, is WorkerCrashError;
// one that does not answer by the deadline (plus a grace period) is stopped
// and the call fails with KernelTimeoutError. Either way the threads are
// rebuilt for the next call.
import { Worker, receiveMessageOnPort, MessageChannel, type MessagePort } from "node:worker_threads";
import { threadOptions } from "../../host/cores/thread-options.js";
import { hbm } from "../../host/device/hbm.js";
import { KernelTimeoutError, WorkerCrashError } from "../../host/checks/errors.js";
import { engineModuleForThreads, allocateThreadResources, releaseThreadResources, type ThreadResources } from "./thread-resources.js";
import {
  J_RUNNING, J_CRASHED, J_CLAIM, J_FAILED_AT, JOB_CONTROL_WORDS, NONE_FAILED, START_BLOCK_BYTES, START_FAILED, STARTED, S_IN_JOB, S_STATE, startFailure,
  type JobMessage, type DoneMessage, type WorkerInit,
} from "./protocol.js";

/** How long past the deadline a thread may take to stop on its own (the interpreter checks the deadline between statements). */
export const STOP_GRACE_MS = 2000;
/** How long the calling thread sleeps between checks for a dead thread. */
const POLL_MS = 50;

interface PoolThread {
  index: number;
  worker: Worker;
  port: MessagePort;
  resources: ThreadResources;
  started: SharedArrayBuffer;
  /** The job it was last given (its death inside it marks the job crashed). */
  job: { seq: number; control: Int32Array } | null;
}

/** A job in flight: its control words and the threads that run it. */
export interface Job {
  control: Int32Array;
  threads: PoolThread[];
  message: JobMessage;
}

export class SpmdPool {
  private threads: PoolThread[] = [];
  private seq = 0;

  /** Threads running now. */
  get size(): number { return this.threads.length; }

  /** Thread i's Worker (tests stop one to see a crash handled). */
  threadForTest(i: number): Worker { return this.threads[i].worker; }
  /** Whether thread i is running a job now. */
  inJobForTest(i: number): boolean { return Atomics.load(new Int32Array(this.threads[i].started), S_IN_JOB) !== 0; }

  /** At least n threads (started now if needed; their start-up overlaps the caller's own work). */
  private ensure(n: number): void {
    while (this.threads.length < n) this.threads.push(this.start(this.threads.length));
  }

  private start(index: number): PoolThread {
    const { port1, port2 } = new MessageChannel();
    const resources = allocateThreadResources();
    const started = new SharedArrayBuffer(START_BLOCK_BYTES);
    const init: WorkerInit & { port: MessagePort } = { index, memory: hbm().memory, engine: engineModuleForThreads(), resources, started, port: port2 };
    const worker = new Worker(new URL("./worker.js", import.meta.url), threadOptions({ workerData: init, transferList: [port2] }));
    worker.unref();
    port1.unref();
    const thread: PoolThread = { index, worker, port: port1, resources, started, job: null };
    // A thread that dies marks its job crashed: the worker's own exit handler does when it can (process.exit,
    // an uncaught error), this one when the thread was stopped from outside. A synchronous caller cannot run
    // event handlers while it waits, so both are needed.
    worker.on("error", () => undefined);
    worker.on("exit", () => {
      const job = thread.job;
      if (job && Atomics.load(new Int32Array(started), S_IN_JOB) === job.seq) {
        Atomics.compareExchange(job.control, J_CRASHED, 0, index + 1);
        Atomics.notify(job.control, J_RUNNING);
      }
    });
    return thread;
  }

  /** Posts a job's instances [first, count) to `n` threads; returns the job to run beside and wait for. */
  post(message: Omit<JobMessage, "type" | "control" | "seq">, first: number, n: number): Job {
    this.ensure(n);
    const buffer = new SharedArrayBuffer(JOB_CONTROL_WORDS * 4);
    const control = new Int32Array(buffer);
    control[J_CLAIM] = first;
    control[J_FAILED_AT] = NONE_FAILED;
    const full: JobMessage = { ...message, type: "job", seq: ++this.seq, control: buffer };
    const threads = this.threads.slice(0, n);
    for (const t of threads) {
      t.job = { seq: full.seq, control };
      t.port.postMessage(full);
    }
    return { control, threads, message: full };
  }

  /** How many threads run the job now, or -1 when it is over: every instance claimed (or one failed) and no thread running. */
  private running(job: Job): number {
    const c = job.control;
    // Claims happen after a thread counts itself running: read the claims first.
    const claimedAll = Atomics.load(c, J_CLAIM) >= job.message.count || Atomics.load(c, J_FAILED_AT) !== NONE_FAILED;
    const running = Atomics.load(c, J_RUNNING);
    return claimedAll && running === 0 ? -1 : running;
  }

  private waitMs(job: Job): number {
    return Math.max(1, Math.min(POLL_MS, job.message.deadline + STOP_GRACE_MS - Date.now()));
  }

  /** Blocks until the job is over; throws WorkerCrashError or KernelTimeoutError (and rebuilds the threads). */
  waitSync(job: Job): DoneMessage[] {
    for (let running = this.running(job); running >= 0; running = this.running(job)) {
      this.checkAlive(job);
      Atomics.wait(job.control, J_RUNNING, running, this.waitMs(job));
    }
    this.checkStarts(job);
    return this.collect(job);
  }

  /** As waitSync, without blocking the event loop. */
  async wait(job: Job): Promise<DoneMessage[]> {
    for (let running = this.running(job); running >= 0; running = this.running(job)) {
      this.checkAlive(job);
      const waiting = Atomics.waitAsync(job.control, J_RUNNING, running, this.waitMs(job));
      if (waiting.async) await waiting.value;
    }
    this.checkStarts(job);
    return this.collect(job);
  }

  /** A thread that could not start is an error even when the others did its share. */
  private checkStarts(job: Job): void {
    const failed = job.threads.find((t) => Atomics.load(new Int32Array(t.started), S_STATE) === START_FAILED);
    if (!failed) return;
    const why = startFailure(failed.started);
    this.reset();
    throw new WorkerCrashError("E_WORKER_START", `an NKI worker thread could not start (running ${job.message.kernel}): ${why}`, { details: { kernel: job.message.kernel, file: job.message.file } });
  }

  /** Throws (after stopping the threads) when a thread of the job died or the job ran past its deadline and grace. */
  private checkAlive(job: Job): void {
    const crashed = Atomics.load(job.control, J_CRASHED);
    if (crashed) {
      this.reset();
      throw new WorkerCrashError("E_WORKER_CRASH", `NKI worker thread ${crashed - 1} died while running ${job.message.kernel} (${job.message.file}); the call failed and the threads were restarted`, { details: { kernel: job.message.kernel, file: job.message.file, thread: crashed - 1 } });
    }
    this.checkStarts(job);
    if (Date.now() > job.message.deadline + STOP_GRACE_MS) {
      const neverStarted = job.threads.filter((t) => Atomics.load(new Int32Array(t.started), S_STATE) !== STARTED).length;
      this.reset();
      if (neverStarted) throw new WorkerCrashError("E_WORKER_START", `${neverStarted} NKI worker thread${neverStarted === 1 ? "" : "s"} never started (running ${job.message.kernel}); the threads were restarted`, { details: { kernel: job.message.kernel, file: job.message.file } });
      const claimed = Math.min(Atomics.load(job.control, J_CLAIM), job.message.count);
      throw new KernelTimeoutError("E_TIMEOUT", `${job.message.kernel} (${job.message.file}) ran past its timeout and did not stop; its threads were stopped (instances claimed: ${claimed} of ${job.message.count})`, { details: { kernel: job.message.kernel, file: job.message.file, grid: job.message.grid } });
    }
  }

  /** The job's answers (each posted before its thread counted itself out); late answers to earlier jobs are dropped. */
  private collect(job: Job): DoneMessage[] {
    const answers: DoneMessage[] = [];
    for (const t of job.threads) {
      for (let got = receiveMessageOnPort(t.port); got; got = receiveMessageOnPort(t.port)) {
        const answer = got.message as DoneMessage;
        if (answer.seq === job.message.seq) answers.push(answer);
      }
    }
    return answers;
  }

  /** Stops every thread (a stuck or dead one cannot be reused); new ones start at the next call. */
  reset(): void {
    const old = this.threads;
    this.threads = [];
    for (const t of old) {
      t.job = null; // stopped on purpose: not a crash
      void t.worker.terminate().finally(() => releaseThreadResources(t.resources));
      t.port.close();
    }
  }
}

let pool: SpmdPool | null = null;

/** The process's SPMD threads. */
export function spmdPool(): SpmdPool {
  return (pool ??= new SpmdPool());
}

/** Stops the SPMD threads (they restart when needed). */
export async function shutdownSpmd(): Promise<void> {
  if (!pool) return;
  const old = pool;
  pool = null;
  old.reset();
  await new Promise((resolve) => setImmediate(resolve));
}
