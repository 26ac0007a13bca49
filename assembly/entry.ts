// Exports every kernel module carries (the build adds this file as an entry):
// the host calls __gpsimd_enter before a kernel runs on a core and
// __gpsimd_exit after it returns.
import {
  ABI_VERSION, CTX_HEAP_BASE, CTX_HEAP_END, CTX_TCM_USED, CTX_TCM_NBLOCKS, CTX_TCM_PEAK, CTX_FREED_NEXT, CTX_NSTREAMS,
  CTX_WLOG_COUNT, CTX_ROW_SERIAL, CTX_STAT_TCM_IN_BYTES, CTX_STATS_END, CTX_TCM_TABLE, TCMB_BYTES, TCMB_PTR, TCMB_SIZE,
  CTX_STREAMS, STREAM_BYTES, ST_STATE, ST_DESC, STREAM_OPEN_WRITE, CTX_HEAP_PEAK, FLAG_LEAK_IS_ERROR, FLAG_POISON, CTX_HEADER_BYTES,
  CTX_DESC, DESC_BYTES, TD_SIZES, TD_NUMEL, CTX_TCM_BASE, CTX_PRINTF_HEAD, CTX_TCM_CLEAN, TCM_ARENA_BYTES, TCM_GRANULE, CTX_LAUNCH, CTX_NUM_TENSORS, CTX_CPU_ID, CTX_DST,
} from "./layout";
import { E_TCM_LEAK, E_STREAM_NOT_CLOSED } from "./errors";
import { CTX, FLAGS, set_core, checks_on, fail, warn, slot_of } from "./core";
import { check_guard, reset_copy_counters, flush_copy_counters, forget_cached_block } from "./tcm";
import { pending_writes } from "./stream";
import { own_enter } from "./ownership";
import { reset_access_counters, flush_access_counters } from "./accessor";
import { reset_write_log, flush_write_bitmap, flush_read_log } from "./writelog";

/** Prepares the core whose context block is at ctx for a launch: empty TCM, heap, streams, logs and printf ring. */
export function __gpsimd_enter(ctx: usize): void {
  set_core(ctx);
  own_enter(ctx);
  store<f64>(ctx, 0, CTX_PRINTF_HEAD);
  store<i32>(ctx, 0, CTX_TCM_USED);
  store<i32>(ctx, 0, CTX_TCM_NBLOCKS);
  store<i32>(ctx, 0, CTX_TCM_PEAK);
  store<i32>(ctx, 0, CTX_FREED_NEXT);
  store<i32>(ctx, 0, CTX_NSTREAMS);
  store<i32>(ctx, 0, CTX_WLOG_COUNT);
  store<i32>(ctx, 0, CTX_ROW_SERIAL);
  memory.fill(ctx + CTX_STAT_TCM_IN_BYTES, 0, CTX_STATS_END - CTX_STAT_TCM_IN_BYTES);
  if (FLAGS & FLAG_POISON) memory.fill(ctx + CTX_TCM_CLEAN, 0, TCM_ARENA_BYTES / TCM_GRANULE / 8); // the poison's clean bitmap
  reset_copy_counters();
  reset_access_counters();
  forget_cached_block();
  reset_write_log();
  __gpsimd_heap_reset(<usize>load<u32>(ctx, CTX_HEAP_BASE), <usize>load<u32>(ctx, CTX_HEAP_END));
}

/** Prepares core `core` of a multicore launch: copies the launch's template context (flags, tensors) into its own block first. */
export function __gpsimd_enter_from(ctx: usize, template: usize, core: i32): void {
  memory.copy(ctx, template, <usize>CTX_HEAP_BASE); // cpu id, count, flags, tensor count, output
  memory.copy(ctx + CTX_DESC, template + CTX_DESC, <usize>(load<i32>(template, CTX_NUM_TENSORS) * DESC_BYTES));
  store<i32>(ctx, core, CTX_CPU_ID);
  store<i32>(ctx, load<i32>(template, CTX_LAUNCH), CTX_LAUNCH);
  const dst = load<u32>(template, CTX_DST);
  if (dst != 0) store<u32>(ctx, dst - <u32>template + <u32>ctx, CTX_DST);
  __gpsimd_enter(ctx);
}

/** Checks what the kernel left behind: unclosed write streams, overwritten TCM guards, TCM leaks. Returns 0. */
export function __gpsimd_exit(): i32 {
  flush_write_bitmap();
  flush_read_log();
  store<u32>(CTX, <u32>__gpsimd_heap_peak(), CTX_HEAP_PEAK);
  flush_copy_counters();
  flush_access_counters();
  if (!checks_on()) return 0;
  const nstreams = load<i32>(CTX, CTX_NSTREAMS);
  for (let i = 0; i < nstreams; i++) {
    const s = CTX + CTX_STREAMS + <usize>(i * STREAM_BYTES);
    if (load<i32>(s, ST_STATE) == STREAM_OPEN_WRITE) fail(E_STREAM_NOT_CLOSED, slot_of(<usize>load<u32>(s, ST_DESC)), pending_writes(s), 0, 0);
  }
  const n = load<i32>(CTX, CTX_TCM_NBLOCKS);
  let bytes: usize = 0;
  for (let i = 0; i < n; i++) {
    const e = CTX + CTX_TCM_TABLE + <usize>(i * TCMB_BYTES);
    check_guard(<usize>load<u32>(e, TCMB_PTR), <usize>load<u32>(e, TCMB_SIZE));
    bytes += <usize>load<u32>(e, TCMB_SIZE);
  }
  if (n > 0) {
    const first = <f64>load<u32>(CTX + CTX_TCM_TABLE, TCMB_PTR);
    if (FLAGS & FLAG_LEAK_IS_ERROR) fail(E_TCM_LEAK, -3, n, <f64>bytes, first);
    else warn(E_TCM_LEAK, -3, n, <f64>bytes, first);
  }
  return 0;
}

/** ABI version and layout numbers, compared with host/device/layout.ts at load time. */
export function __gpsimd_layout(i: i32): i32 {
  switch (i) {
    case 0: return ABI_VERSION;
    case 1: return CTX_HEADER_BYTES;
    case 2: return CTX_DESC;
    case 3: return DESC_BYTES;
    case 4: return TD_SIZES;
    case 5: return TD_NUMEL;
    case 6: return CTX_TCM_BASE;
    case 7: return CTX_STREAMS;
    default: return -1;
  }
}
