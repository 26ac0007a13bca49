// The watchdog thread (watchdog.ts): sleeps until the earliest deadline of
// the armed slots, then writes each overdue run's token into its stop words.
// The kernels poll those words (build/stop-polls.ts) and stop with a typed
// error. It never runs kernel code, so it is never the thread that is stuck.
import { workerData } from "node:worker_threads";
import { epochNow } from "./protocol.js";
import { W_WAKE, W_PUBLISHED, F_SLEEP_UNTIL, SLOTS_AT, SLOT_BYTES, SLOTS, type WatchdogInit } from "./watch-block.js";

const { watch, memory } = workerData as WatchdogInit;
const i32 = new Int32Array(watch);
const f64 = new Float64Array(watch);
/** The token and deadline last fired per slot: a slot stays armed until its run ends, and is fired once. */
const fired = Array.from({ length: SLOTS }, () => ({ token: 0, deadline: 0 }));

for (;;) {
  // Awake: a caller that arms a slot from now on must wake us (see Watchdog.arm).
  f64[F_SLEEP_UNTIL] = Infinity;
  Atomics.add(i32, W_PUBLISHED, 1);
  const wake = Atomics.load(i32, W_WAKE);
  const now = epochNow();
  let next = Infinity;
  for (let s = 0; s < SLOTS; s++) {
    const i = (SLOTS_AT + s * SLOT_BYTES) >> 2;
    const token = Atomics.load(i32, i);
    if (token === 0) continue;
    const deadline = f64[(i + 2) >> 1];
    if (fired[s].token === token && fired[s].deadline === deadline) continue;
    if (deadline > now) { next = Math.min(next, deadline); continue; }
    const count = i32[i + 1];
    const addresses = Array.from({ length: count }, (_, k) => i32[i + 4 + k]);
    if (Atomics.load(i32, i) !== token) continue; // re-armed while we read: look again at the next wake-up
    fired[s] = { token, deadline };
    // A store that lands after the run ended (and a new one cleared its word) carries an old
    // token: the kernel's host import compares it with its own and clears it.
    const words = new Int32Array(memory.buffer);
    for (const address of addresses) Atomics.store(words, address >>> 2, token);
  }
  f64[F_SLEEP_UNTIL] = next;
  Atomics.add(i32, W_PUBLISHED, 1);
  Atomics.wait(i32, W_WAKE, wake, next === Infinity ? Infinity : Math.max(0, next - epochNow()));
}
