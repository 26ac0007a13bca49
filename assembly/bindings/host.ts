// Raw imports from the host (host/cores/kernel-instance.ts). Only numbers cross: codes,
// descriptor slots, addresses and counts. The host turns them into typed errors.

/** Reports a violation; the host throws, so this never returns. */
// @ts-ignore: decorator
@external("gpsimd", "fail")
export declare function host_fail(code: i32, slot: i32, a: f64, b: f64, c: f64): void;

/** Reports a warning (incoherent use under INCOHERENT_VERBOSE, TCM leak when not an error). */
// @ts-ignore: decorator
@external("gpsimd", "warn")
export declare function host_warn(code: i32, slot: i32, a: f64, b: f64, c: f64): void;

/** Formats a printf call: format string, argument records, count. Appends to the core's ring. */
// @ts-ignore: decorator
@external("gpsimd", "printf")
export declare function host_printf(fmt: usize, args: usize, nargs: i32): void;

/** The output write log is full: the host takes its entries and empties it. */
// @ts-ignore: decorator
@external("gpsimd", "drain_write_log")
export declare function host_drain_write_log(): void;

/** A timeline event (TRACE_* kind), timestamped by the host; called only when FLAG_TRACE is set. */
// @ts-ignore: decorator
@external("gpsimd", "trace")
export declare function host_trace(kind: i32, slot: i32, bytes: f64, offset: f64): void;

/** A run of output elements [start, end) this core read (multicore, FLAG_LOG_READS): the host merges and keeps it. */
// @ts-ignore: decorator
@external("gpsimd", "log_read")
export declare function host_log_read(start: u32, end: u32): void;

/** An access (ACCESS_READ or ACCESS_WRITE) of output elements [start, end), reported under FLAG_WATCH: the host names its statement if it touches a range it watches. */
// @ts-ignore: decorator
@external("gpsimd", "watch_access")
export declare function host_watch_access(kind: i32, start: u32, end: u32): void;
