// A worker thread of the core pool. It never returns to its event loop: it
// waits for a launch in shared memory, runs the cores it claims (executor.ts),
// then watches the launch's deadline until it completes. Libraries arrive as
// messages, received synchronously when a launch needs them.
import { workerData, receiveMessageOnPort } from "node:worker_threads";
import { Executor, SPIN_MS } from "./executor.js";
import { C_SEQ, C_COMMAND, C_LIBRARY_MESSAGES, C_PARKED, C_THREADS, COMMAND_EXIT, type WorkerInit, type WorkerMessage, type CompletionMessage } from "./protocol.js";

const init = workerData as WorkerInit;
const control = new Int32Array(init.control);
const executor = new Executor(control, init.mailboxes, init.memory, init.index, (seq) => init.port.postMessage({ type: "complete", seq } satisfies CompletionMessage));
let messagesSeen = init.messagesAtStart;

/** Receives the library messages broadcast since the last launch (posted before they were counted). */
function receiveLibraries(): void {
  const wanted = Atomics.load(control, C_LIBRARY_MESSAGES);
  while (messagesSeen < wanted) {
    const got = receiveMessageOnPort(init.port);
    if (!got) break;
    messagesSeen++;
    executor.apply(got.message as WorkerMessage);
  }
}

/** Waits until the sequence number differs from `seen` (spinning SPIN_MS first: a launch that follows soon is picked up in ~µs instead of a futex wake); returns the new one. */
function waitForLaunch(seen: number): number {
  const until = performance.now() + SPIN_MS;
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

let seen = init.seqAtStart;
for (;;) {
  seen = waitForLaunch(seen);
  if (Atomics.load(control, C_COMMAND) === COMMAND_EXIT) break;
  receiveLibraries();
  // Workers past the library's thread count run nothing, but still watch the deadline: the main
  // thread may be running a core that never ends, and only another thread can ask it to stop.
  if (init.index < Atomics.load(control, C_THREADS)) executor.runClaims(seen);
  executor.watch(seen);
}
