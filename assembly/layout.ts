// Byte layout of the memory the host and the kernel library share: the per-core
// context block and the tensor descriptors in it. host/device/layout.ts holds the same
// numbers; every library load compares them (see __gpsimd_layout in entry.ts).

/** Bumped whenever a number below changes. */
export const ABI_VERSION: i32 = 2;

// ---- core context block (one per emulated core) ----
export const CTX_CPU_ID: i32 = 0;          // i32
export const CTX_CPU_COUNT: i32 = 4;       // i32
export const CTX_FLAGS: i32 = 8;           // i32, FLAG_* below
export const CTX_NUM_TENSORS: i32 = 12;    // i32, descriptors in use
export const CTX_DST: i32 = 16;            // u32, address of the output descriptor, 0 if none
export const CTX_HEAP_BASE: i32 = 20;      // u32, kernel heap (scratch, reset every launch)
export const CTX_HEAP_END: i32 = 24;       // u32
export const CTX_TCM_BASE: i32 = 28;       // u32, TCM arena (TCM_ARENA_BYTES)
export const CTX_TCM_USED: i32 = 32;       // i32, bytes of the 16 KB budget in use
export const CTX_TCM_NBLOCKS: i32 = 36;    // i32, live blocks in the block table
export const CTX_PRINTF_BASE: i32 = 40;    // u32, ring buffer
export const CTX_PRINTF_SIZE: i32 = 44;    // u32, power of two; 0 disables printf
export const CTX_PRINTF_HEAD: i32 = 48;    // f64, bytes ever written (the ring keeps the last SIZE)
export const CTX_WLOG_COUNT: i32 = 56;     // i32, entries in the output write log
export const CTX_NSTREAMS: i32 = 60;       // i32, stream slots handed out this launch
export const CTX_HEAP_PEAK: i32 = 64;      // u32, highest heap address reached
export const CTX_TCM_PEAK: i32 = 68;       // i32, highest TCM budget use
export const CTX_FREED_NEXT: i32 = 72;     // i32, next slot in the recently-freed ring
// Counters for profiling and the cost model (f64, exact below 2^53).
export const CTX_STAT_TCM_IN_BYTES: i32 = 80;
export const CTX_STAT_TCM_OUT_BYTES: i32 = 88;
export const CTX_STAT_TCM_IN_CALLS: i32 = 96;
export const CTX_STAT_TCM_OUT_CALLS: i32 = 104;
export const CTX_STAT_ELEM_READS: i32 = 112;
export const CTX_STAT_ELEM_WRITES: i32 = 120;
export const CTX_STAT_STREAM_READS: i32 = 128;
export const CTX_STAT_STREAM_WRITES: i32 = 136;
export const CTX_STAT_PRINTF_CALLS: i32 = 144;
export const CTX_STAT_FILL_BYTES: i32 = 152;  // bytes stored by zeros/ones/full/eye/fill_
export const CTX_STATS_END: i32 = 160;

export const CTX_PRINTF_ARGS: i32 = 160;  // printf argument records, PF_MAX_ARGS x 16
export const CTX_TCM_CLEAN: i32 = 288;    // bitmap, one bit per TCM_GRANULE of the arena: set = holds no poison
export const CTX_STOP: i32 = 352;          // i32, the token of a run the host asks to stop (its timeout passed); polled by the kernel, see build/stop-polls.ts
export const CTX_LAUNCH: i32 = 356;        // i32, the seq of the launch this core is running (0 on the calling thread)
export const CTX_DESC: i32 = 384;          // tensor descriptors, MAX_TENSORS x DESC_BYTES
export const MAX_TENSORS: i32 = 16;
export const DESC_BYTES: i32 = 128;
export const CTX_TCM_TABLE: i32 = 2432;    // live TCM blocks, MAX_TCM_BLOCKS x TCMB_BYTES
export const MAX_TCM_BLOCKS: i32 = 64;
export const TCMB_BYTES: i32 = 16;
export const CTX_FREED: i32 = 3456;        // recently freed TCM pointers (u32 ring), to tell double frees from foreign ones
export const MAX_FREED: i32 = 64;
export const CTX_STREAMS: i32 = 3712;      // stream accessor slots, MAX_STREAMS x STREAM_BYTES
export const MAX_STREAMS: i32 = 16;
export const STREAM_BYTES: i32 = 32;
export const CTX_WLOG: i32 = 4352;         // output write intervals [start, end) in elements, u32 pairs
export const MAX_WLOG: i32 = 512;
export const CTX_ROWS: i32 = 8448;         // sub-accessor records for chained indexing acc[i][j], a ring
export const MAX_ROWS: i32 = 1024;
export const ROW_BYTES: i32 = 16;
export const CTX_ROW_SERIAL: i32 = 76;     // i32, sub-accessors made this launch
export const CTX_HEADER_BYTES: i32 = 24832;

// ---- flags ----
export const FLAG_CHECKS: i32 = 1;         // bounds, TCM, coherence and stream checks
export const FLAG_MULTICORE: i32 = 2;      // library built with multicore=true
export const FLAG_POISON: i32 = 4;         // fresh TCM is poisoned; copies out of TCM look for it (a build without the raw store checks: it keeps no written-map of its stores)
export const FLAG_LEAK_IS_ERROR: i32 = 8;  // TCM blocks left at exit fail the call
export const FLAG_LOG_WRITES: i32 = 16;    // record output intervals for cross-core checks
export const FLAG_PRINT_ALL_CORES: i32 = 32; // every core may printf (tagged by the host)
export const FLAG_TRACE: i32 = 64;         // report TCM copies, stream refills/flushes and TCM blocks to the host (gpsimd profile)
export const FLAG_LOG_READS: i32 = 128;    // record output intervals read, for the cross-core race check (multicore)
export const FLAG_WATCH: i32 = 256;        // report every logged output access to the host (the rerun that finds a cross-core error's lines)
export const FLAG_STORES_MARK_ANYWHERE: i32 = 512; // kernel stores mark the TCM written-map wherever they land in the arena, with no window (sanitize builds)

// ---- TCM ----
export const TCM_POOL_BYTES: i32 = 16384;  // the budget of one core, as on the device
export const TCM_ARENA_BYTES: i32 = 32768; // room for the budget plus guard bytes and alignment
export const TCM_SHADOW_DELTA: i32 = 32768; // the written-map of TCM byte p is the byte p + TCM_SHADOW_DELTA (just past the arena): 1 = written since tcm_malloc
export const TCM_SUMMARY_DELTA: i32 = 65536; // after the written-map: one byte per TCM_SUMMARY_GRANULE TCM bytes, 1 = all of them written (copies into TCM set it)
export const TCM_SUMMARY_GRANULE: i32 = 64;  // TCM bytes per summary byte (blocks start on such granules, so none is shared)
export const TCM_DIRTY_END: i32 = 66048;     // u32 after the summary (TCM_SUMMARY_DELTA + 512): the written-map and summary are all 0 past this TCM offset
export const TCM_CHECK_MAPS_BYTES: i32 = 33792; // the written-map, summary and dirty end that follow the arena (32768 + 1024)
export const TCM_ALIGN: i32 = 16;
export const TCM_GUARD_BYTES: i32 = 16;
export const TCM_GUARD_BYTE: u8 = 0xFD;
export const TCM_POISON_BYTE: u8 = 0xFF;   // 0xFFFF.. is a NaN in float32, bfloat16 and float16
export const TCM_GRANULE: i32 = 64;        // bytes per bit of the clean bitmap (TCM_ARENA_BYTES / 64 = 512 bits)
export const STREAM_CACHE_BYTES: i32 = 4096;
// TCM block table entry
export const TCMB_PTR: i32 = 0;            // u32
export const TCMB_SIZE: i32 = 4;           // u32, bytes asked for
export const TCMB_KIND: i32 = 8;           // i32, 0 = tcm_malloc, 1 = stream cache
export const TCMB_SITE: i32 = 12;          // i32, the kernel statement that allocated it (build/allocation-sites.ts), 0 unknown

// ---- tensor descriptor ----
export const TD_DATA: i32 = 0;             // u32, address in device memory
export const TD_DTYPE: i32 = 4;            // i32, ScalarType
export const TD_NDIM: i32 = 8;             // i32
export const TD_FLAGS: i32 = 12;           // i32, TDF_* below
export const TD_NUMEL: i32 = 16;           // i64
export const TD_SLOT: i32 = 24;            // i32, argument position; -1 output; -2 made by the kernel
export const TD_POLICY: i32 = 28;          // i32, coherence policy
export const TD_READERS: i32 = 32;         // i32, open read streams
export const TD_WRITERS: i32 = 36;         // i32, open write streams
export const TD_ELEMWISE: i32 = 40;        // i32, element-wise accessors made
export const TD_SIZES: i32 = 48;           // 8 x i32
export const TD_STRIDES: i32 = 80;         // 8 x u32, in elements
export const TDF_READ_ONLY: i32 = 1;
export const TDF_OUTPUT: i32 = 2;
export const TDF_KERNEL_OWNED: i32 = 4;

// ---- sub-accessor record (acc[i] of an N-d accessor) ----
export const ROW_DESC: i32 = 0;            // u32, tensor descriptor
export const ROW_OFFSET: i32 = 4;          // u32, flat offset of the indices so far
export const ROW_DIM: i32 = 8;             // i32, next dimension to index
export const ROW_SERIAL: i32 = 12;         // i32, to detect a stale handle

// ---- stream slot ----
export const ST_DESC: i32 = 0;             // u32, tensor descriptor
export const ST_POS: i32 = 4;              // u32, next element index
export const ST_CACHE: i32 = 8;            // u32, TCM cache (0 = uncached)
export const ST_FILL: i32 = 12;            // u32, elements in the cache
export const ST_INDEX: i32 = 16;           // u32, next element in the cache
export const ST_STATE: i32 = 20;           // i32, STREAM_* below
export const ST_BASE: i32 = 24;            // u32, tensor element index of cache[0]
export const STREAM_OPEN_READ: i32 = 1;
export const STREAM_OPEN_WRITE: i32 = 2;
export const STREAM_CLOSED: i32 = 3;

// ---- trace events (host_trace kind; FLAG_TRACE) ----
export const TRACE_TCM_IN: i32 = 1;          // tensor_to_tcm: slot, bytes, tensor offset (elements)
export const TRACE_TCM_OUT: i32 = 2;         // tcm_to_tensor: slot, bytes, tensor offset (elements)
export const TRACE_STREAM_REFILL: i32 = 3;   // read stream cache filled from HBM: slot, bytes, first element
export const TRACE_STREAM_FLUSH: i32 = 4;    // write stream cache written to HBM: slot, bytes, first element
export const TRACE_TCM_MALLOC: i32 = 5;      // TCM block allocated: kind (0 tcm_malloc, 1 stream cache), bytes, address
export const TRACE_TCM_FREE: i32 = 6;        // TCM block released: kind, bytes, address

// ---- printf argument records (16 bytes each) ----
export const PF_TAG_INT: i32 = 1;
export const PF_TAG_UINT: i32 = 2;
export const PF_TAG_FLOAT: i32 = 3;
export const PF_TAG_STRING: i32 = 4;
export const PF_TAG_BOOL: i32 = 5;
export const PF_MAX_ARGS: i32 = 8;
