// The watchdog: a small thread of its own that stops kernels past their
// deadline. A runaway kernel blocks the thread that runs it (the calling
// thread included), so something else must set its stop word (build/stop-polls.ts).
// The calling thread arms a slot per run with plain stores into shared memory;
// it wakes the watchdog only when the new deadline is earlier than the one the
// watchdog already sleeps until (in a stream of launches: almost never).
import { threadOptions } from "./thread-options.js";
import { Worker } from "node:worker_threads";
import { hbm } from "../device/hbm.js";
import { W_WAKE, W_PUBLISHED, F_SLEEP_UNTIL, SLOTS_AT, SLOT_BYTES, SLOT_HOST, WATCH_BYTES, type WatchdogInit } from "./watch-block.js";

export { SLOT_HOST, SLOT_POOL } from "./watch-block.js";
import { CTX_STOP } from "../device/layout.js";
import { GpsimdError } from "../checks/errors.js";
import { timeoutError } from "./outcome.js";

/** The calling thread's side. */
export class Watchdog {
  private readonly buffer = new SharedArrayBuffer(WATCH_BYTES);
  private readonly i32 = new Int32Array(this.buffer);
  private readonly f64 = new Float64Array(this.buffer);
  private readonly thread: Worker;

  constructor(memory: WebAssembly.Memory) {
    this.f64[F_SLEEP_UNTIL] = Infinity; // not started yet: it scans every slot when it starts
    this.thread = new Worker(new URL("./watchdog-thread.js", import.meta.url), threadOptions({ workerData: { watch: this.buffer, memory } satisfies WatchdogInit }));
    this.thread.unref(); // it never keeps the process alive
  }

  /**
   * Watches run `token` (not 0): at `deadline` (epoch ms) the watchdog writes the token into every
   * stop word (byte addresses in device memory). The caller has cleared the stop words first.
   */
  arm(slot: number, token: number, deadline: number, stopWords: ArrayLike<number>): void {
    const i = (SLOTS_AT + slot * SLOT_BYTES) >> 2;
    // The token is the slot's lock: 0 while the other fields change, so the watchdog never acts on
    // a half-written slot (it reads the token before and after the other fields).
    Atomics.store(this.i32, i, 0);
    this.i32[i + 1] = stopWords.length;
    this.f64[(i + 2) >> 1] = deadline;
    for (let k = 0; k < stopWords.length; k++) this.i32[i + 4 + k] = stopWords[k];
    Atomics.store(this.i32, i, token);
    // Dekker-style: our token store comes before this load of W_PUBLISHED, the watchdog's bump of
    // W_PUBLISHED (after writing Infinity) before its scan; so either its scan sees this slot, or
    // we see the wake-up time it wrote after the scan (or Infinity, written before it).
    Atomics.load(this.i32, W_PUBLISHED);
    if (deadline < this.f64[F_SLEEP_UNTIL]) {
      Atomics.add(this.i32, W_WAKE, 1);
      Atomics.notify(this.i32, W_WAKE);
    }
  }

  /** The run ended: nothing to stop. */
  disarm(slot: number): void {
    Atomics.store(this.i32, (SLOTS_AT + slot * SLOT_BYTES) >> 2, 0);
  }
}

let instance: Watchdog | null = null;

/** The process's watchdog, started on first use. */
export function watchdog(): Watchdog {
  return (instance ??= new Watchdog(hbm().memory));
}

let hostToken = 0;
/** This thread's performance.timeOrigin (a constant; its getter showed in every single-core call). */
const ORIGIN = performance.timeOrigin;

/** Runs fn (a single-core kernel of operator op on the calling thread, core block at ctx) under the watchdog; fn gets the run's stop token. */
export function watchHostRun<T>(op: string, ctx: number, timeoutMs: number, fn: (token: number) => T): T {
  hostToken = (hostToken % 0x3FFFFFFF) + 1;
  const stopWord = ctx + CTX_STOP;
  // Through the allocator's cached view, which reaches every core region (memory.buffer per call cost ~0.1 us).
  Atomics.store(hbm().words(), stopWord >>> 2, 0); // an address may lie above 2 GiB
  const dog = watchdog();
  dog.arm(SLOT_HOST, hostToken, ORIGIN + performance.now() + timeoutMs, [stopWord]); // epochNow(), its getter read once
  try {
    return fn(hostToken);
  } catch (e) {
    if (e instanceof GpsimdError && e.code === "E_STOPPED") throw timeoutError(op, timeoutMs, [0], []);
    throw e;
  } finally {
    dog.disarm(SLOT_HOST);
  }
}
