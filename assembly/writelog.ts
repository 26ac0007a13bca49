// Output write log: the element intervals this core copied into the output,
// merged on the fly, so the host can find overlaps and gaps between cores.
// Single-element writes that do not extend the last interval (an element-wise
// accessor writing out of order, e.g. a transpose) would each add an interval
// and drain the log to the host every 512 writes; instead they set a bit in a
// coverage bitmap taken from the top of the kernel heap, which becomes
// intervals again when the kernel returns. A heap too full for the bitmap
// keeps the interval log (correct, slower).
//
// Reads of the output are logged too, in multicore launches only (FLAG_LOG_READS): a core reading elements another
// core writes in the same call reads whatever the timing gives (host/checks/cross-core.ts names it). There every read
// of a tensor is a TCM copy or a tensor operation (element-wise and stream accessors are refused), so reads come in
// runs, merged here on the fly and handed to the host one run at a time.
//
// Under FLAG_WATCH (the host's rerun of a call that failed a cross-core check, host/cores/locate-rerun.ts) nothing is
// logged: every access of the output goes to the host, which names the statement of those touching the ranges it
// watches. The write log then stays empty, so the inline extension below never applies and every write reaches
// log_write.
import { CTX_WLOG, CTX_WLOG_COUNT, MAX_WLOG, FLAG_LOG_WRITES, FLAG_LOG_READS, FLAG_WATCH, TD_FLAGS, TDF_OUTPUT, TD_NUMEL } from "./layout";
import { CTX, FLAGS, is_multicore } from "./core";
import { host_drain_write_log, host_log_read, host_watch_access } from "./bindings/host";

/** Access kinds host_watch_access reports (host/checks/access-watch.ts has the same numbers). */
const ACCESS_READ: i32 = 0;
const ACCESS_WRITE: i32 = 1;

/** The coverage bitmap of this launch (one bit per output element), 0 when none; BITMAP_NONE when the heap had no room. */
let bitmap: usize = 0;
let bitmapWords: u32 = 0;
const BITMAP_NONE: usize = <usize>1;

/** The run of output elements being read, [read_start, read_end); empty when equal. */
let read_start: u32 = 0, read_end: u32 = 0;

/** Forgets the bitmap and the read run (at the start of a launch: the heap the bitmap lived in is emptied). */
export function reset_write_log(): void {
  bitmap = 0;
  read_start = read_end = 0;
}

/** Records that elements [start, end) of the output were written by this core. */
export function log_write(start: u32, end: u32): void {
  if (start == end) return;
  if (FLAGS & FLAG_WATCH) { host_watch_access(ACCESS_WRITE, start, end); return; }
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

/** Records a write of element i of the output (at desc) that does not extend the last interval: sets the element's bit. */
function log_element_write(desc: usize, i: u32): void {
  if (FLAGS & FLAG_WATCH) { log_write(i, i + 1); return; }
  if (bitmap == 0) {
    // Single-core only: the cross-core checks read intervals in the order the cores logged them.
    bitmapWords = <u32>((load<i64>(desc, TD_NUMEL) + 31) >> 5);
    let at: usize = 0;
    // The heap is gpsimd's (rt/stub.ts) in every gpsimd build; a plain `asc` check of a kernel compiles without it.
    // @ts-ignore: a global of that heap, which editors' kernel tsconfig leaves out
    if (isDefined(__gpsimd_heap_take_top)) { if (!is_multicore()) at = __gpsimd_heap_take_top(<usize>bitmapWords << 2); }
    if (at != 0) memory.fill(at, 0, <usize>bitmapWords << 2);
    bitmap = at != 0 ? at : BITMAP_NONE;
  }
  if (bitmap == BITMAP_NONE) { log_write(i, i + 1); return; }
  const word = bitmap + (<usize>(i >> 5) << 2);
  store<u32>(word, load<u32>(word) | (<u32>1 << (i & 31)));
}

/** Turns the coverage bitmap into intervals of the log (when the kernel returns, before the host reads the log). */
export function flush_write_bitmap(): void {
  if (bitmap <= BITMAP_NONE) return;
  for (let w: u32 = 0; w < bitmapWords; w++) {
    let bits = load<u32>(bitmap + (<usize>w << 2));
    const base = w << 5;
    if (bits == 0xFFFFFFFF) { log_write(base, base + 32); continue; }
    while (bits != 0) {
      const first = ctz(bits);
      const ones = ctz(~(bits >> first)); // a run of set bits from `first` (32 - first when it reaches the top)
      log_write(base + first, base + first + ones);
      bits = ones + first >= 32 ? 0 : bits & ~((<u32>-1 >> (32 - ones - first)));
    }
  }
  bitmap = 0;
}

/** Records a write of elements [start, end) into the tensor at desc, if it is the output and writes are logged. */
// @ts-ignore: decorator
@inline export function log_output_write(desc: usize, start: u32, end: u32): void {
  if ((FLAGS & FLAG_LOG_WRITES) && (load<i32>(desc, TD_FLAGS) & TDF_OUTPUT)) {
    // Writes in order (element-wise, or chunk after chunk of TCM copies) extend the last interval: the common case,
    // inline. Under FLAG_WATCH the log stays empty, so every write goes on to log_write.
    const n = load<i32>(CTX, CTX_WLOG_COUNT);
    const last = CTX + CTX_WLOG + <usize>((n - 1) << 3);
    if (n > 0 && load<u32>(last, 4) == start && end >= start) store<u32>(last, end, 4);
    else if (end != start + 1) log_write(start, end);
    else log_element_write(desc, start);
  }
}

/** Records that elements [start, end) of the output were read by this core: extends the run, or hands the run to the host and starts another. */
function log_read(start: u32, end: u32): void {
  if (start == end) return;
  if (FLAGS & FLAG_WATCH) { host_watch_access(ACCESS_READ, start, end); return; }
  if (start == read_end && read_end != read_start) { read_end = end; return; }
  if (read_end != read_start) host_log_read(read_start, read_end);
  read_start = start;
  read_end = end;
}

/** Hands the last read run to the host (when the kernel returns). */
export function flush_read_log(): void {
  if (read_end != read_start) host_log_read(read_start, read_end);
  read_start = read_end = 0;
}

/** Records a read of elements [start, end) of the tensor at desc, if it is the output and reads are logged (multicore). */
// @ts-ignore: decorator
@inline export function log_output_read(desc: usize, start: u32, end: u32): void {
  if ((FLAGS & FLAG_LOG_READS) && (load<i32>(desc, TD_FLAGS) & TDF_OUTPUT)) log_read(start, end);
}
