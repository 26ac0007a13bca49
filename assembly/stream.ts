// Stream accessors: sequential reads or writes through a 4 KB cache taken
// from the core's TCM pool. When the pool is full they still work, uncached
// (on the device: as slow as element-wise). Reading or writing past the end,
// or after close(), is undefined on the device and an error here.
import {
  CTX_STREAMS, CTX_NSTREAMS, MAX_STREAMS, STREAM_BYTES, STREAM_CACHE_BYTES,
  ST_DESC, ST_POS, ST_CACHE, ST_FILL, ST_INDEX, ST_STATE, ST_BASE, STREAM_OPEN_READ, STREAM_OPEN_WRITE, STREAM_CLOSED,
  TD_DATA, TD_NUMEL, TD_DTYPE, TD_FLAGS, TD_READERS, TD_WRITERS, TDF_READ_ONLY,
  CTX_STAT_STREAM_READS, CTX_STAT_STREAM_WRITES, CTX_TCM_NBLOCKS, CTX_TCM_TABLE, TCMB_BYTES, TCMB_PTR,
  TRACE_STREAM_REFILL, TRACE_STREAM_FLUSH,
} from "./layout";
import { E_STREAM_END, E_STREAM_CLOSED, E_MULTICORE_ACCESSOR, E_READ_ONLY, E_TOO_MANY, KIND_READ_STREAM, KIND_WRITE_STREAM } from "./errors";
import { CTX, checks_on, is_multicore, fail, slot_of } from "./core";
import { check_element_type } from "./dtype";
import { check_coherence } from "./coherence";
import { tcm_alloc, release } from "./tcm";
import { log_output_write } from "./writelog";
import { trace } from "./trace";

function open_stream<T>(desc: usize, kind: i32): usize {
  if (is_multicore()) fail(E_MULTICORE_ACCESSOR, slot_of(desc), kind, 0, 0);
  check_element_type<T>(load<i32>(desc, TD_DTYPE), slot_of(desc));
  if (kind == KIND_WRITE_STREAM && (load<i32>(desc, TD_FLAGS) & TDF_READ_ONLY)) fail(E_READ_ONLY, slot_of(desc), KIND_WRITE_STREAM, 0, 0);
  check_coherence(desc, kind);
  const n = load<i32>(CTX, CTX_NSTREAMS);
  if (n >= MAX_STREAMS) fail(E_TOO_MANY, slot_of(desc), 0, MAX_STREAMS, 0);
  store<i32>(CTX, n + 1, CTX_NSTREAMS);
  const field = kind == KIND_WRITE_STREAM ? TD_WRITERS : TD_READERS;
  store<i32>(desc + <usize>field, load<i32>(desc + <usize>field) + 1);
  const s = CTX + CTX_STREAMS + <usize>(n * STREAM_BYTES);
  store<u32>(s, <u32>desc, ST_DESC);
  store<u32>(s, 0, ST_POS);
  store<u32>(s, <u32>tcm_alloc(STREAM_CACHE_BYTES, 1), ST_CACHE);
  store<u32>(s, 0, ST_FILL);
  store<u32>(s, 0, ST_INDEX);
  store<u32>(s, 0, ST_BASE);
  store<i32>(s, kind == KIND_WRITE_STREAM ? STREAM_OPEN_WRITE : STREAM_OPEN_READ, ST_STATE);
  return s;
}

/** Opens a read stream on the tensor at desc. */
export function open_read_stream<T>(desc: usize): ReadStreamAccessor<T> {
  return changetype<ReadStreamAccessor<T>>(open_stream<T>(desc, KIND_READ_STREAM));
}

/** Opens a write stream on the tensor at desc. */
export function open_write_stream<T>(desc: usize): WriteStreamAccessor<T> {
  return changetype<WriteStreamAccessor<T>>(open_stream<T>(desc, KIND_WRITE_STREAM));
}

function check_open(s: usize, state: i32, write: bool): void {
  if (load<i32>(s, ST_STATE) != state) fail(E_STREAM_CLOSED, slot_of(<usize>load<u32>(s, ST_DESC)), write ? 1 : 0, 0, 0);
}

/** Frees the stream's TCM cache, if it has one. */
function drop_cache(s: usize): void {
  const cache = load<u32>(s, ST_CACHE);
  if (cache == 0) return;
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  for (let i = 0; i < n; i++) {
    if (load<u32>(CTX + CTX_TCM_TABLE + <usize>(i * TCMB_BYTES), TCMB_PTR) == cache) { release(i); break; }
  }
  store<u32>(s, 0, ST_CACHE);
}

/** Closes the stream: writes flush, the cache returns to the pool. */
function close_stream<T>(s: usize, write: bool): i32 {
  check_open(s, write ? STREAM_OPEN_WRITE : STREAM_OPEN_READ, write);
  if (write) flush<T>(s);
  drop_cache(s);
  store<i32>(s, STREAM_CLOSED, ST_STATE);
  const desc = <usize>load<u32>(s, ST_DESC);
  const field = write ? TD_WRITERS : TD_READERS;
  store<i32>(desc + <usize>field, load<i32>(desc + <usize>field) - 1);
  return 0;
}

/** Writes the cached elements back to the tensor. */
function flush<T>(s: usize): void {
  const fill = load<u32>(s, ST_FILL);
  if (fill == 0) return;
  const desc = <usize>load<u32>(s, ST_DESC);
  const base = load<u32>(s, ST_BASE);
  log_output_write(desc, base, base + fill);
  trace(TRACE_STREAM_FLUSH, slot_of(desc), <f64>(<usize>fill << alignof<T>()), <f64>base);
  memory.copy(<usize>load<u32>(desc, TD_DATA) + (<usize>base << alignof<T>()), <usize>load<u32>(s, ST_CACHE), <usize>fill << alignof<T>());
  store<u32>(s, load<u32>(s, ST_BASE) + fill, ST_BASE);
  store<u32>(s, 0, ST_FILL);
}

/** Elements left unflushed in an open write stream (for the exit check). */
export function pending_writes(s: usize): u32 { return load<u32>(s, ST_FILL); }

/** Sequential reader: read() returns the next element. */
@unmanaged
export class ReadStreamAccessor<T> {
  /** Reads the next element of the stream. */
  read(): T {
    const s = changetype<usize>(this);
    const desc = <usize>load<u32>(s, ST_DESC);
    const pos = load<u32>(s, ST_POS);
    if (checks_on()) {
      check_open(s, STREAM_OPEN_READ, false);
      if (<i64>pos >= load<i64>(desc, TD_NUMEL)) fail(E_STREAM_END, slot_of(desc), pos, <f64>load<i64>(desc, TD_NUMEL), 0);
      store<f64>(CTX, load<f64>(CTX, CTX_STAT_STREAM_READS) + 1, CTX_STAT_STREAM_READS);
    }
    store<u32>(s, pos + 1, ST_POS);
    const cache = <usize>load<u32>(s, ST_CACHE);
    if (cache == 0) return load<T>(<usize>load<u32>(desc, TD_DATA) + (<usize>pos << alignof<T>()));
    let index = load<u32>(s, ST_INDEX);
    if (index == load<u32>(s, ST_FILL)) { // refill the cache from HBM
      const fill = <u32>min<i64>(<i64>(STREAM_CACHE_BYTES >>> alignof<T>()), load<i64>(desc, TD_NUMEL) - <i64>pos);
      trace(TRACE_STREAM_REFILL, slot_of(desc), <f64>(<usize>fill << alignof<T>()), <f64>pos);
      memory.copy(cache, <usize>load<u32>(desc, TD_DATA) + (<usize>pos << alignof<T>()), <usize>fill << alignof<T>());
      store<u32>(s, fill, ST_FILL);
      index = 0;
    }
    store<u32>(s, index + 1, ST_INDEX);
    return load<T>(cache + (<usize>index << alignof<T>()));
  }
  /** Closes the stream; returns 0. Reading after close is an error. */
  close(): i32 { return close_stream<T>(changetype<usize>(this), false); }
}

/** Sequential writer: write(v) appends; close() flushes to the tensor. */
@unmanaged
export class WriteStreamAccessor<T> {
  /** Writes the next element of the stream. */
  write(value: T): void {
    const s = changetype<usize>(this);
    const desc = <usize>load<u32>(s, ST_DESC);
    const pos = load<u32>(s, ST_POS);
    if (checks_on()) {
      check_open(s, STREAM_OPEN_WRITE, true);
      if (<i64>pos >= load<i64>(desc, TD_NUMEL)) fail(E_STREAM_END, slot_of(desc), pos, <f64>load<i64>(desc, TD_NUMEL), 1);
      store<f64>(CTX, load<f64>(CTX, CTX_STAT_STREAM_WRITES) + 1, CTX_STAT_STREAM_WRITES);
    }
    store<u32>(s, pos + 1, ST_POS);
    const cache = <usize>load<u32>(s, ST_CACHE);
    if (cache == 0) {
      log_output_write(desc, pos, pos + 1);
      store<T>(<usize>load<u32>(desc, TD_DATA) + (<usize>pos << alignof<T>()), value);
      return;
    }
    const fill = load<u32>(s, ST_FILL);
    store<T>(cache + (<usize>fill << alignof<T>()), value);
    store<u32>(s, fill + 1, ST_FILL);
    if (fill + 1 == <u32>(STREAM_CACHE_BYTES >>> alignof<T>())) flush<T>(s);
  }
  /** Flushes the cached elements to the tensor and closes the stream; returns 0. */
  close(): i32 { return close_stream<T>(changetype<usize>(this), true); }
}
