// Output write log: the element intervals this core copied into the output,
// merged on the fly, so the host can find overlaps and gaps between cores.
import { CTX_WLOG, CTX_WLOG_COUNT, MAX_WLOG, FLAG_LOG_WRITES, TD_FLAGS, TDF_OUTPUT } from "./layout";
import { CTX, FLAGS } from "./core";
import { host_drain_write_log } from "./bindings/host";

/** Records that elements [start, end) of the output were written by this core. */
export function log_write(start: u32, end: u32): void {
  if (start == end) return;
  let n = load<i32>(CTX, CTX_WLOG_COUNT);
  if (n > 0) {
    const last = CTX + CTX_WLOG + <usize>((n - 1) << 3);
    if (load<u32>(last, 4) == start) { store<u32>(last, end, 4); return; } // extends the last interval
  }
  if (n == MAX_WLOG) { host_drain_write_log(); n = 0; }
  const e = CTX + CTX_WLOG + <usize>(n << 3);
  store<u32>(e, start);
  store<u32>(e, end, 4);
  store<i32>(CTX, n + 1, CTX_WLOG_COUNT);
}

/** Records a write of elements [start, end) into the tensor at desc, if it is the output and writes are logged. */
// @ts-ignore: decorator
@inline export function log_output_write(desc: usize, start: u32, end: u32): void {
  if ((FLAGS & FLAG_LOG_WRITES) && (load<i32>(desc, TD_FLAGS) & TDF_OUTPUT)) log_write(start, end);
}
