// The shared block between the calling thread and the watchdog thread
// (watchdog.ts, watchdog-thread.ts). Kept apart so the thread loads nothing else.

// ---- the watch block (Int32 indices; Float64 at byte offsets) ----
/** Bumped by the calling thread to wake the watchdog; it waits on this word. */
export const W_WAKE = 0;
/** Bumped by the watchdog after it writes its wake-up time (orders that write before the callers' reads). */
export const W_PUBLISHED = 1;
/** Float64 index: when the watchdog wakes next, in epoch ms (Infinity: only when woken). */
export const F_SLEEP_UNTIL = 1;
/** Slots: one run or launch each. Byte offset of slot s: SLOTS_AT + s * SLOT_BYTES. */
export const SLOTS_AT = 16;
export const MAX_STOP_WORDS = 64;
export const SLOT_BYTES = 16 + 4 * MAX_STOP_WORDS;
/** Slot fields (byte offsets): token (i32, 0 = disarmed), count (i32), deadline (f64), stop-word addresses (i32 each). */
export const S_TOKEN = 0, S_COUNT = 4, S_DEADLINE = 8, S_WORDS = 16;
/** The calling thread's single-core runs. */
export const SLOT_HOST = 0;
/** The core pool's launch. */
export const SLOT_POOL = 1;
export const SLOTS = 2;
export const WATCH_BYTES = SLOTS_AT + SLOTS * SLOT_BYTES;

/** What the watchdog thread is started with. */
export interface WatchdogInit { watch: SharedArrayBuffer; memory: WebAssembly.Memory; }
