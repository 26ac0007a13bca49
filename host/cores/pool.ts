// The core pool: worker threads that run the logical cores of multicore
// launches, with the main thread taking part in synchronous ones. Workers
// start once and are woken through shared memory; tensors never move. A
// launch's cores are claimed dynamically, so any number of threads gives the
// same result. One launch runs at a time. A kernel that runs past its
// deadline is stopped by the watchdog (watchdog.ts: its loops and calls poll
// a stop word); threads that still do not finish are rebuilt.
import { threadOptions } from "./thread-options.js";
import { Worker, MessageChannel, type MessagePort } from "node:worker_threads";
import { hbm } from "../device/hbm.js";
import { coreRegion, DEFAULT_HEAP_BYTES } from "../device/core-regions.js";
import { prepareCore, type LaunchDescriptors } from "./descriptors.js";
import { KernelTimeoutError, WorkerCrashError } from "../checks/errors.js";
import type { Library, Operator, Traced } from "../library/library.js";
import { TRACE_CORE_BYTES, traceClock, type LaunchPhases } from "../profiling/trace.js";
import { CTX_DESC, DESC_BYTES, CTX_STOP, CTX_LAUNCH, FLAG_TRACE } from "../device/layout.js";
import type { CheckedArguments } from "../library/arguments.js";
import type { Tensor } from "../device/tensor.js";
import { Executor } from "./executor.js";
import { watchdog, SLOT_POOL } from "./watchdog.js";
import { finishLaunch } from "./outcome.js";
import { locateCrossCore } from "./locate-rerun.js";
import { pendingPlaces } from "./cross-core-errors.js";
import {
  C_SEQ, C_CLAIM, C_DONE, C_COMPLETE, C_NCORES, C_THREADS, C_LIBRARY, C_OP, C_TEMPLATE, C_COMMAND, C_LIBRARY_MESSAGES,
  C_PARKED, C_STATUS, C_CONTEXTS, C_SCALARS_BYTE_OFFSET, C_TRACE, CONTROL_BYTES, COMMAND_LAUNCH, COMMAND_EXIT, COMMAND_RECEIVE, WORKER_IDLE, WORKER_RETIRED,
  STATUS_PENDING, STATUS_RUNNING, MAILBOXES_BYTES, C_ASYNC, C_CRASHED, C_FAULT, CRASH_AT, claimWord, epochNow,
  type WorkerMessage, type WorkerInit, type CompletionMessage,
} from "./protocol.js";

/** One multicore call. */
export interface LaunchRequest {
  library: Library;
  op: Operator;
  checked: CheckedArguments;
  output: Tensor;
  flags: number;
  /** The host's copy of the launch's descriptors (descriptors.ts), set when the launch is published. */
  descriptors?: LaunchDescriptors;
  /** Filled in when the launch is traced (FLAG_TRACE) and succeeded. */
  traced?: Traced;
  /** A traced launch's steps on the calling thread, filled in as they happen (outcome.ts adds the last ones). */
  phases?: Partial<LaunchPhases>;
}

/** A launch that has been published to the workers. */
interface InFlight {
  seq: number;
  request: LaunchRequest;
  deadline: number;
  /** Settles the async caller; null for a sync launch. */
  settle: ((error: unknown) => void) | null;
  collected: boolean;
  /** An async launch's timer: the last resort if its cores do not finish after the watchdog stopped them. */
  timer?: ReturnType<typeof setTimeout>;
}

/** How long the main thread spins on completion before it sleeps: it has run its share of the cores and waits for the workers' last ones. */
const MAIN_SPIN_MS = 1;
/** How long a kernel asked to stop may take to do so before its threads are terminated (a kernel polls at every loop iteration and call, so only a thread stuck outside kernel code gets here). MAX_TIMEOUT_MS leaves room for it. */
export const STOP_GRACE_MS = 2000;

/** The process's pool of core threads. */
export class Pool {
  private workers: Worker[] = [];
  /** Settles when the worker has started and can run cores (its start-up does not count against timeout_ms). */
  private readonly readiness = new Map<Worker, { ready: Promise<void>; settle: () => void }>();
  /** Each worker's state word (protocol.ts: WorkerInit.state). */
  private readonly states = new Map<Worker, Int32Array>();
  /** Library broadcasts each worker has taken in (it instantiated their modules), as it last said. */
  private readonly received = new Map<Worker, number>();
  /** Async launches waiting for workers to take libraries in (librariesReceived). */
  private receiveWaiters: { done: () => boolean; resolve: () => void }[] = [];
  /** Bumped when the threads are rebuilt: an async launch that prepared the old ones prepares again. */
  private generation = 0;
  private ports: MessagePort[] = [];
  private control!: Int32Array;
  private controlBuffer!: SharedArrayBuffer;
  private mailboxes!: SharedArrayBuffer;
  private scalarsF64!: Float64Array;
  private scalarsI64!: BigInt64Array;
  private seq = 0;
  private messages = 0;
  private nextLibraryId = 1;
  private readonly libraryIds = new Map<Library, number>();
  private template = 0;
  /** The stop words of the launch being published (publish), one per core. */
  private readonly stopWords: number[] = [];
  /** Device memory for traced launches' events (allocated at the first traced launch, grown for more cores). */
  private traceArea = 0;
  private traceCores = 0;
  private inFlight: InFlight | null = null;
  private queue: Promise<void> = Promise.resolve();
  private closing = false;
  /** The main thread's executor (its own instances of every library). */
  private main!: Executor;

  constructor() { this.fresh(); }

  /** New control block and mailboxes (at start, and when the threads are rebuilt). */
  private fresh(): void {
    this.controlBuffer = new SharedArrayBuffer(CONTROL_BYTES);
    this.control = new Int32Array(this.controlBuffer);
    this.mailboxes = new SharedArrayBuffer(MAILBOXES_BYTES);
    this.scalarsF64 = new Float64Array(this.controlBuffer, C_SCALARS_BYTE_OFFSET);
    this.scalarsI64 = new BigInt64Array(this.controlBuffer, C_SCALARS_BYTE_OFFSET);
    this.seq = 0;
    this.messages = 0;
    this.main = new Executor(this.control, this.mailboxes, hbm().memory, -1);
    for (const [library, id] of this.libraryIds) this.main.apply(libraryMessage(library, id));
  }

  /** Number of worker threads running. */
  get threadCount(): number { return this.workers.length; }

  /** Starts worker `index`; `seqAtStart` 0 makes it look at the launch in shared memory at once (a replacement joins a launch in flight). */
  private startWorker(index: number, seqAtStart = this.seq): void {
    const { port1, port2 } = new MessageChannel();
    const state = new SharedArrayBuffer(4);
    const init: WorkerInit = {
      index, control: this.controlBuffer, mailboxes: this.mailboxes, memory: hbm().memory, port: port2,
      replayed: this.libraryIds.size, messagesAtStart: this.messages, seqAtStart, state,
    };
    const worker = new Worker(new URL("./worker.js", import.meta.url), threadOptions({ workerData: init, transferList: [port2] }));
    this.states.set(worker, new Int32Array(state));
    let settle!: () => void;
    const ready = new Promise<void>((resolve) => { settle = resolve; });
    this.readiness.set(worker, { ready, settle });
    port1.on("message", (m: CompletionMessage) => {
      if (m.type === "complete") return this.onComplete(m.seq);
      if (m.type === "ready") settle();
      this.onReceived(worker, m.messages);
    });
    worker.unref();
    port1.unref(); // a pending async call holds the event loop (launchAsync), not the port
    worker.on("error", (e) => this.onWorkerDeath(worker, e));
    worker.on("exit", (code) => this.onWorkerDeath(worker, new Error(`exit code ${code}`)));
    this.workers[index] = worker;
    this.ports[index] = port1;
    // A new worker learns every library loaded so far.
    for (const [library, id] of this.libraryIds) this.send(index, libraryMessage(library, id));
  }

  private send(index: number, message: WorkerMessage): void {
    this.ports[index].postMessage(message);
  }

  /** Posts a message to every worker and counts it; workers receive it before their next launch. */
  private broadcast(message: WorkerMessage): void {
    for (let i = 0; i < this.workers.length; i++) this.send(i, message);
    this.messages++;
    Atomics.store(this.control, C_LIBRARY_MESSAGES, this.messages);
  }

  /** Starts workers up to n; a new worker first receives every library loaded so far. */
  private ensureThreads(n: number): void {
    while (this.workers.length < n) this.startWorker(this.workers.length);
  }

  /** Makes a library's module available to the workers (existing ones by message, new ones at start). */
  register(library: Library): void {
    if (this.libraryIds.has(library)) return;
    library.pooled = true;
    const id = this.nextLibraryId++;
    this.libraryIds.set(library, id);
    const message = libraryMessage(library, id);
    this.main.apply(message);
    this.broadcast(message);
  }

  /**
   * Starts the threads a multicore library will use and hands them its module, so that its first
   * launch does not wait for threads to boot (a worker takes tens of milliseconds to start).
   */
  prepare(library: Library): void {
    this.register(library);
    this.ensureThreads(Math.max(1, library.threads - 1));
  }

  /** Drops a library from the workers. */
  forget(library: Library): void {
    const id = this.libraryIds.get(library);
    if (id === undefined) return;
    this.libraryIds.delete(library);
    library.pooled = false;
    this.main.apply({ type: "forget", id });
    this.broadcast({ type: "forget", id });
  }

  /**
   * Runs a launch and waits for it: the calling thread runs cores too, beside threads - 1 workers.
   * It may, because every loop and call of a kernel (AssemblyScript or C++) polls its stop word and
   * the watchdog thread, not this one, sets it at the deadline.
   */
  launchSync(request: LaunchRequest): void {
    if (this.inFlight) this.finishBlocking(this.inFlight);
    const phases = request.flags & FLAG_TRACE ? (request.phases = { publishStart: traceClock() } as Partial<LaunchPhases>) : null;
    const launch = this.publish(request, null, request.library.threads - 1);
    try {
      this.main.runClaims(launch.seq);
      if (phases) phases.claimsDone = traceClock();
    } catch (e) {
      // Not a kernel error (those are reported per core): the calling thread's executor failed, and
      // workers may still run cores of the launch: they are replaced.
      this.abandon(launch);
      this.rebuild();
      const op = request.op.qualifiedName;
      throw new WorkerCrashError("E_CORE_THREAD_FAILED", `${op}: the calling thread failed while running cores (${e instanceof Error ? e.message : String(e)}); the result is discarded and the threads were restarted`, { op, cause: e });
    }
    this.finishBlocking(launch);
  }

  /** Runs a launch without blocking the event loop. */
  launchAsync(request: LaunchRequest): Promise<void> {
    // The threads and their ports never keep the process alive; a pending call does, until it settles.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const result = this.queue.then(() => this.prepareAsync(request.library)).then(() => new Promise<void>((resolve, reject) => {
      if (this.inFlight) this.finishBlocking(this.inFlight);
      const phases = request.flags & FLAG_TRACE ? (request.phases = { publishStart: traceClock() } as Partial<LaunchPhases>) : null;
      const launch = this.publish(request, (error) => (error ? reject(error) : resolve()), request.library.threads);
      if (phases) phases.claimsDone = phases.published; // the calling thread runs no core of an async launch
      this.watchAsync(launch);
    })).finally(() => clearInterval(keepAlive));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Before an async launch is published (and its deadline starts): its threads have started, and each has taken the
   * library in (instantiated its module), so that neither counts against the launch's timeout_ms; only the kernel's
   * time does. Threads rebuilt meanwhile are prepared again.
   */
  private async prepareAsync(library: Library): Promise<void> {
    this.register(library); // before threads start: a new thread takes it in at start-up
    for (;;) {
      const generation = this.generation;
      await this.threadsReady(library.threads);
      await this.librariesReceived(library.threads);
      if (generation === this.generation) return;
    }
  }

  /** Starts n workers and waits until they can run cores, so that their start-up is not counted against the launch's timeout. */
  private threadsReady(n: number): Promise<unknown> {
    this.ensureThreads(n);
    return Promise.all(this.workers.slice(0, n).map((w) => this.readiness.get(w)?.ready));
  }

  /**
   * Waits until workers 0..n-1 have taken in every library broadcast so far: those behind are woken with
   * COMMAND_RECEIVE (a launch that runs nothing) and say when they have (worker.ts).
   */
  private librariesReceived(n: number): Promise<void> {
    const target = this.messages;
    const behind = () => this.workers.slice(0, n).some((w) => (this.received.get(w) ?? 0) < target);
    if (!behind()) return Promise.resolve();
    if (this.inFlight) this.finishBlocking(this.inFlight); // a launch's threads must see its seq before the next one
    return new Promise<void>((resolve) => {
      this.receiveWaiters.push({ done: () => !behind(), resolve });
      const c = this.control;
      c[C_COMMAND] = COMMAND_RECEIVE;
      Atomics.store(c, C_SEQ, (this.seq = (this.seq % 0xFFFFFF) + 1));
      if (Atomics.load(c, C_PARKED) > 0) Atomics.notify(c, C_SEQ);
    });
  }

  /** A worker says how many library broadcasts it has taken in. */
  private onReceived(worker: Worker, messages: number): void {
    if (!this.workers.includes(worker)) return;
    this.received.set(worker, Math.max(messages, this.received.get(worker) ?? 0));
    const waiters = this.receiveWaiters;
    this.receiveWaiters = waiters.filter((w) => !w.done());
    for (const w of waiters) if (!this.receiveWaiters.includes(w)) w.resolve();
  }

  /** Writes the launch into shared memory and wakes `workers` workers. */
  private publish(request: LaunchRequest, settle: InFlight["settle"], workers: number): InFlight {
    const lib = request.library;
    this.register(lib);
    const cores = lib.cores;
    this.ensureThreads(workers);
    const heap = lib.manifest.heapBytes || DEFAULT_HEAP_BYTES;
    // Each core's context block (coreRegion may grow device memory, so the words view is taken after), its status, and
    // its stop word cleared, which the watchdog gets (a list kept for the next launch: no array per launch).
    const stopWords = this.stopWords;
    stopWords.length = cores;
    for (let k = 0; k < cores; k++) stopWords[k] = coreRegion(k, heap, lib.printfBytes).ctx + CTX_STOP;
    const words = hbm().words();
    for (let k = 0; k < cores; k++) {
      Atomics.store(this.control, C_CONTEXTS + k, stopWords[k] - CTX_STOP);
      Atomics.store(this.control, C_STATUS + k, STATUS_PENDING);
      Atomics.store(words, stopWords[k] >>> 2, 0);
    }
    this.template ||= hbm().alloc(CTX_DESC + 16 * DESC_BYTES, "launch template");
    const view = hbm().view();
    request.descriptors = prepareCore(this.template, 0, cores, request.flags, request.checked.tensors, request.output);
    const seq = (this.seq = (this.seq % 0xFFFFFF) + 1);
    view.setInt32(this.template + CTX_LAUNCH, seq, true);
    request.checked.scalars.forEach((s, i) => {
      if (typeof s === "bigint") this.scalarsI64[i] = s;
      else if (typeof s === "number") this.scalarsF64[i] = s;
    });
    const c = this.control;
    c[C_LIBRARY] = this.libraryIds.get(lib)!;
    c[C_OP] = request.op.index;
    c[C_NCORES] = cores;
    c[C_THREADS] = workers;
    c[C_TEMPLATE] = this.template;
    c[C_TRACE] = request.flags & FLAG_TRACE ? this.traceAreaFor(cores) : 0;
    c[C_COMMAND] = COMMAND_LAUNCH;
    c[C_ASYNC] = settle ? 1 : 0;
    Atomics.store(c, C_DONE, 0);
    // C_COMPLETE is not reset: it keeps the previous launch's seq until this one completes, so a
    // thread still watching the previous launch sees it complete, never this one's fresh state.
    Atomics.store(c, C_CLAIM, claimWord(seq, 0));
    const deadline = performance.now() + lib.options.timeout_ms;
    // Before the launch is published: a core that starts polls a cleared word (reset above).
    watchdog().arm(SLOT_POOL, seq, epochNow() + lib.options.timeout_ms, stopWords);
    // Publishing: every write above happens-before a worker's Atomics.load of C_SEQ that sees seq. A traced launch's
    // time of publishing is taken before it: a spinning worker may start a core at once.
    if (request.phases) request.phases.published = traceClock();
    Atomics.store(c, C_SEQ, seq);
    // Parked workers are woken only for a launch they take part in: one that runs on the calling thread alone leaves
    // them asleep (woken, each would only see it is left out and sleep again, a futex wake per launch for nothing).
    if (workers > 0 && Atomics.load(c, C_PARKED) > 0) Atomics.notify(c, C_SEQ);
    const launch: InFlight = { seq, request, deadline, settle, collected: false };
    this.inFlight = launch;
    return launch;
  }

  /** The trace area, with room for `cores` cores. */
  private traceAreaFor(cores: number): number {
    if (this.traceCores < cores) {
      if (this.traceArea) hbm().release(this.traceArea);
      this.traceArea = hbm().alloc(cores * TRACE_CORE_BYTES, "trace events");
      this.traceCores = cores;
    }
    return this.traceArea;
  }

  /** When to give up on a launch: its deadline (when the watchdog stops its cores), then a grace period. */
  private limit(launch: InFlight): number {
    return launch.deadline + STOP_GRACE_MS;
  }

  /** Blocks until the launch completes (or a core thread dies, or it runs past its limit), then collects it. */
  private finishBlocking(launch: InFlight): void {
    const c = this.control;
    const spinUntil = performance.now() + MAIN_SPIN_MS;
    while (Atomics.load(c, C_COMPLETE) !== launch.seq && performance.now() < spinUntil) { /* spin: short kernels end here */ }
    for (let complete = Atomics.load(c, C_COMPLETE); complete !== launch.seq; complete = Atomics.load(c, C_COMPLETE)) {
      // A dying worker says so here: this thread cannot see its exit event while it waits.
      if (Atomics.load(c, C_CRASHED)) return this.crashed(launch);
      const left = this.limit(launch) - performance.now();
      if (left <= 0) return this.timeOut(launch);
      Atomics.wait(c, C_COMPLETE, complete, left);
    }
    this.collect(launch);
  }

  /** Watches an async launch from the event loop: completion comes by message (onComplete); this timer is the last resort. */
  private watchAsync(launch: InFlight): void {
    const check = (): void => {
      if (launch.collected) return;
      if (Atomics.load(this.control, C_COMPLETE) === launch.seq) return this.collect(launch);
      if (Atomics.load(this.control, C_CRASHED)) return this.crashed(launch);
      const left = this.limit(launch) - performance.now();
      if (left <= 0) return this.timeOut(launch);
      launch.timer = setTimeout(check, left);
    };
    launch.timer = setTimeout(check, Math.max(1, this.limit(launch) - performance.now()));
  }

  /** A worker says an asynchronous launch completed. */
  private onComplete(seq: number): void {
    const launch = this.inFlight;
    if (launch && launch.seq === seq && launch.settle && Atomics.load(this.control, C_COMPLETE) === seq) this.collect(launch);
  }

  /** Reads every core's outcome (outcome.ts) and settles the launch. */
  private collect(launch: InFlight): void {
    if (launch.collected) return;
    if (launch.request.phases) launch.request.phases.completeSeen = traceClock();
    this.abandon(launch);
    let failure: unknown = null;
    try {
      finishLaunch(launch.request, this.control, this.mailboxes, this.traceArea);
    } catch (e) {
      // A cross-core error names its statements: found by running the call again here (locate-rerun.ts).
      failure = this.locate(e, launch.request);
    }
    if (launch.settle) launch.settle(failure);
    else if (failure) throw failure;
  }

  /**
   * The error of a failed call with the statements it names, found by running the call again on the calling thread
   * (locate-rerun.ts); any other error as it is. Also for single-core calls that ran on the calling thread outside
   * the pool (Library.call): an async launch still in flight ends first, since one launch runs at a time.
   */
  locate(error: unknown, request: LaunchRequest): unknown {
    if (!pendingPlaces(error)) return error;
    if (this.inFlight) this.finishBlocking(this.inFlight);
    return locateCrossCore(error, request, (rerun) => this.rerunHere(rerun));
  }

  /** Runs a launch on the calling thread alone, core after core, to its end (no worker takes part). */
  private rerunHere(request: LaunchRequest): void {
    const launch = this.publish(request, null, 0);
    try {
      this.main.runClaims(launch.seq);
    } finally {
      this.abandon(launch);
    }
  }

  /** A launch's cores did not stop when asked: the threads are rebuilt (nothing else stops them). */
  private timeOut(launch: InFlight): void {
    this.abandon(launch);
    const running: number[] = [];
    for (let k = 0; k < launch.request.library.cores; k++) if (Atomics.load(this.control, C_STATUS + k) === STATUS_RUNNING) running.push(k);
    const op = launch.request.op.qualifiedName;
    const error = new KernelTimeoutError("E_TIMEOUT", `${op}: still running after ${launch.request.library.options.timeout_ms} ms on core${running.length === 1 ? "" : "s"} ${running.join(", ") || "(none started)"}, and its core threads did not finish within ${STOP_GRACE_MS} ms after it was stopped; the core threads were terminated and will be restarted`, { op, core: running[0], details: { running, timeout_ms: launch.request.library.options.timeout_ms } });
    this.rebuild();
    if (launch.settle) launch.settle(error);
    else throw error;
  }

  /** The launch is over for the pool: no longer in flight, nothing for the watchdog or its timer to do. */
  private abandon(launch: InFlight): void {
    launch.collected = true;
    clearTimeout(launch.timer);
    if (this.inFlight === launch) this.inFlight = null;
    watchdog().disarm(SLOT_POOL);
  }

  /** A core thread said it is dying (worker.ts): the launch fails with WorkerCrashError and the threads are rebuilt. */
  private crashed(launch: InFlight): void {
    const length = new DataView(this.mailboxes).getUint32(CRASH_AT, true);
    const why = new TextDecoder().decode(new Uint8Array(this.mailboxes, CRASH_AT + 4, length).slice());
    const index = Atomics.load(this.control, C_CRASHED) - 1;
    this.abandon(launch);
    this.rebuild();
    const op = launch.request.op.qualifiedName;
    const error = new WorkerCrashError("E_WORKER_DIED", `${op}: core thread ${index} died (${why}) while the operator ran; its result is discarded and the threads were restarted`, { op, details: { thread: index } });
    if (launch.settle) launch.settle(error);
    else throw error;
  }

  private onWorkerDeath(worker: Worker, cause: Error): void {
    const index = this.workers.indexOf(worker);
    if (this.closing || index < 0) return;
    const launch = this.inFlight;
    if (launch && !launch.collected && Atomics.load(this.states.get(worker)!, 0) !== launch.seq) {
      // It held no core of the launch in flight (it died idle, its exit seen only now): the launch goes on with the
      // other threads, and a new thread takes the dead one's place and joins it.
      this.replace(index);
      return;
    }
    this.rebuild();
    if (launch && !launch.collected) {
      this.abandon(launch);
      const op = launch.request.op.qualifiedName;
      const error = new WorkerCrashError("E_WORKER_DIED", `${op}: a core thread died (${cause.message}) while the operator ran; its result is discarded and the threads were restarted`, { op, cause });
      if (launch.settle) launch.settle(error);
    }
  }

  /** Makes worker `index` fail with an internal error at its next core (fault-injection tests: a thread that dies during a call). */
  injectFaultForTest(index: number): void {
    Atomics.store(this.control, C_FAULT, index + 1);
  }

  /**
   * Terminates one worker as if it had crashed (fault-injection tests). An idle one is retired first, so that it takes
   * no launch before the termination lands, and replaced at once: the next launch never waits for a dead thread.
   */
  killThreadForTest(index: number): void {
    const worker = this.workers[index];
    if (!worker) return;
    if (Atomics.compareExchange(this.states.get(worker)!, 0, WORKER_IDLE, WORKER_RETIRED) === WORKER_IDLE) this.replace(index);
    void worker.terminate();
  }

  /** A new thread in worker `index`'s place (the old one is dead or retired); it joins the launch in flight, if any. */
  private replace(index: number): void {
    const old = this.workers[index];
    this.readiness.get(old)?.settle();
    this.readiness.delete(old);
    this.received.delete(old);
    this.states.delete(old);
    this.startWorker(index, 0);
  }

  /** Stops every worker and starts afresh (lazily, at the next launch). */
  private rebuild(): void {
    const old = this.workers;
    this.generation++;
    for (const w of old) this.readiness.get(w)?.settle(); // a launch waiting for them starts the new ones
    for (const w of old) { this.readiness.delete(w); this.received.delete(w); this.states.delete(w); }
    const waiters = this.receiveWaiters;
    this.receiveWaiters = [];
    for (const w of waiters) w.resolve(); // none waits for threads that are gone (prepareAsync prepares the new ones)
    this.workers = [];
    this.ports = [];
    this.inFlight = null;
    this.fresh();
    this.closing = true;
    for (const w of old) void w.terminate();
    this.closing = false;
  }

  /** Stops the worker threads now (they are unref'd, so a process can also just exit). */
  async close(): Promise<void> {
    this.closing = true;
    Atomics.store(this.control, C_COMMAND, COMMAND_EXIT);
    Atomics.store(this.control, C_SEQ, this.seq + 1);
    Atomics.notify(this.control, C_SEQ);
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers = [];
    this.ports = [];
    this.fresh();
    this.closing = false;
  }
}

function libraryMessage(library: Library, id: number): WorkerMessage {
  return {
    type: "library", id, module: library.placed.module,
    ops: [...library.ops.values()].map((o) => ({ name: o.qualifiedName, kernel: o.kernel })), // in Operator.index order
    sourceMap: library.placed.sourceMap, offsetMap: library.placed.offsetMap, code: library.placed.code,
    staticBase: library.placed.staticBase, staticBytes: library.placed.staticBytes,
  };
}

let pool: Pool | null = null;

/** The process's core pool, started on first use. */
export function corePool(): Pool {
  pool ??= new Pool();
  return pool;
}

/** Stops the core threads (optional: they never keep the process alive). */
export async function shutdown(): Promise<void> {
  await pool?.close();
}
