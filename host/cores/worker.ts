// A worker thread of the core pool. It never returns to its event loop: it
// waits for a launch in shared memory, runs the cores it claims (executor.ts),
// then waits for the next. Libraries arrive as messages, received
// synchronously when a launch needs them. Deadlines are the watchdog's
// (watchdog.ts): a thread running a kernel cannot watch anything.
import { workerData, receiveMessageOnPort } from "node:worker_threads";
import { Executor, SPIN_MS } from "./executor.js";
import { CTX_STOP } from "../device/layout.js";
import {
  C_SEQ, C_COMMAND, C_LIBRARY_MESSAGES, C_NCORES, C_CONTEXTS, C_PARKED, C_THREADS, C_CRASHED, C_COMPLETE, COMMAND_EXIT, COMMAND_RECEIVE,
  CRASH_AT, CRASH_BYTES, WORKER_IDLE, type WorkerInit, type WorkerMessage, type CompletionMessage,
} from "./protocol.js";

const init = workerData as WorkerInit;
const control = new Int32Array(init.control);
const state = new Int32Array(init.state);
const executor = new Executor(control, init.mailboxes, init.memory, init.index, (seq) => init.port.postMessage({ type: "complete", seq } satisfies CompletionMessage));
let messagesSeen = init.messagesAtStart;

/**
 * Receives the library messages broadcast since the last launch (posted before they were counted); says how many it
 * has when asked, or when it took new ones in (the pool waits for that before an async launch: Pool.librariesReceived).
 */
function receiveLibraries(asked: boolean): void {
  const before = messagesSeen;
  const wanted = Atomics.load(control, C_LIBRARY_MESSAGES);
  while (messagesSeen < wanted) {
    const got = receiveMessageOnPort(init.port);
    if (!got) break;
    messagesSeen++;
    executor.apply(got.message as WorkerMessage);
  }
  if (asked || messagesSeen !== before) init.port.postMessage({ type: "received", messages: messagesSeen } satisfies CompletionMessage);
}

/**
 * Waits until the sequence number differs from `seen` (after a launch it ran cores in, spinning SPIN_MS first: a
 * launch that follows soon is picked up in ~µs instead of a futex wake); returns the new one.
 */
function waitForLaunch(seen: number, spin: boolean): number {
  const until = spin ? performance.now() + SPIN_MS : 0;
  for (;;) {
    const seq = Atomics.load(control, C_SEQ);
    if (seq !== seen) return seq;
    if (performance.now() > until) break;
  }
  // Parked: count ourselves first so the main thread knows a notify is needed. The count is
  // raised before re-checking C_SEQ (inside Atomics.wait), so a launch published after this
  // point either sees the count or changes C_SEQ before we sleep: no lost wake-up.
  Atomics.add(control, C_PARKED, 1);
  Atomics.wait(control, C_SEQ, seen);
  Atomics.sub(control, C_PARKED, 1);
  return Atomics.load(control, C_SEQ);
}

// The libraries loaded before this worker started are already on the port.
for (let i = 0; i < init.replayed; i++) {
  const got = receiveMessageOnPort(init.port);
  if (got) executor.apply(got.message as WorkerMessage);
}

/** Tells a caller blocked on the launch that this thread is dying (it cannot see the worker's exit event while it waits). */
function reportCrash(e: unknown): void {
  const text = new TextEncoder().encode(e instanceof Error ? e.message : String(e)).subarray(0, CRASH_BYTES - 4);
  new DataView(init.mailboxes).setUint32(CRASH_AT, text.length, true);
  new Uint8Array(init.mailboxes, CRASH_AT + 4).set(text);
  Atomics.store(control, C_CRASHED, init.index + 1);
  // Stop the launch's other cores (the calling thread may be running one): it fails anyway.
  const words = new Int32Array(init.memory.buffer);
  for (let k = 0; k < Atomics.load(control, C_NCORES); k++) Atomics.store(words, ((Atomics.load(control, C_CONTEXTS + k) >>> 0) + CTX_STOP) >>> 2, Atomics.load(control, C_SEQ));
  Atomics.add(control, C_COMPLETE, 0);
  Atomics.notify(control, C_COMPLETE);
}

init.port.postMessage({ type: "ready", messages: messagesSeen } satisfies CompletionMessage);
let seen = init.seqAtStart;
try {
  // Whether this thread ran cores in the last launch. One that a launch leaves out (a library with fewer threads than
  // the pool has workers) sleeps at once: spinning after every launch of that library, it burned a CPU for nothing.
  let tookPart = false;
  for (;;) {
    seen = waitForLaunch(seen, tookPart);
    tookPart = false;
    const command = Atomics.load(control, C_COMMAND);
    if (command === COMMAND_EXIT) break;
    receiveLibraries(command === COMMAND_RECEIVE);
    if (command === COMMAND_RECEIVE || init.index >= Atomics.load(control, C_THREADS)) continue;
    tookPart = true;
    // Before any claim: while the state word holds the launch, this thread may hold one of its cores. Retired: stop.
    if (Atomics.compareExchange(state, 0, WORKER_IDLE, seen) !== WORKER_IDLE) break;
    executor.runClaims(seen);
    Atomics.store(state, 0, WORKER_IDLE);
  }
} catch (e) {
  reportCrash(e);
  throw e;
}
