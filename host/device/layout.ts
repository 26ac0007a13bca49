// Byte layout shared with the kernel library: the same names and numbers as
// assembly/layout.ts (a test compares the two files, and every library load
// compares a few numbers with the compiled kernel's __gpsimd_layout).

export const ABI_VERSION = 2;

// ---- core context block (one per emulated core) ----
export const CTX_CPU_ID = 0;          // i32
export const CTX_CPU_COUNT = 4;       // i32
export const CTX_FLAGS = 8;           // i32, FLAG_* below
export const CTX_NUM_TENSORS = 12;    // i32, descriptors in use
export const CTX_DST = 16;            // u32, address of the output descriptor, 0 if none
export const CTX_HEAP_BASE = 20;      // u32, kernel heap (scratch, reset every launch)
export const CTX_HEAP_END = 24;       // u32
export const CTX_TCM_BASE = 28;       // u32, TCM arena (TCM_ARENA_BYTES)
export const CTX_TCM_USED = 32;       // i32, bytes of the 16 KB budget in use
export const CTX_TCM_NBLOCKS = 36;    // i32, live blocks in the block table
export const CTX_PRINTF_BASE = 40;    // u32, ring buffer
export const CTX_PRINTF_SIZE = 44;    // u32, power of two; 0 disables printf
export const CTX_PRINTF_HEAD = 48;    // f64, bytes ever written (the ring keeps the last SIZE)
export const CTX_WLOG_COUNT = 56;     // i32, entries in the output write log
export const CTX_NSTREAMS = 60;       // i32, stream slots handed out this launch
export const CTX_HEAP_PEAK = 64;      // u32, highest heap address reached
export const CTX_TCM_PEAK = 68;       // i32, highest TCM budget use
export const CTX_FREED_NEXT = 72;     // i32, next slot in the recently-freed ring
export const CTX_STAT_TCM_IN_BYTES = 80;
export const CTX_STAT_TCM_OUT_BYTES = 88;
export const CTX_STAT_TCM_IN_CALLS = 96;
export const CTX_STAT_TCM_OUT_CALLS = 104;
export const CTX_STAT_ELEM_READS = 112;
export const CTX_STAT_ELEM_WRITES = 120;
export const CTX_STAT_STREAM_READS = 128;
export const CTX_STAT_STREAM_WRITES = 136;
export const CTX_STAT_PRINTF_CALLS = 144;
export const CTX_STAT_FILL_BYTES = 152;  // bytes stored by zeros/ones/full/eye/fill_
export const CTX_STATS_END = 160;
export const CTX_PRINTF_ARGS = 160;  // printf argument records, PF_MAX_ARGS x 16
export const CTX_TCM_CLEAN = 288;    // bitmap, one bit per TCM_GRANULE of the arena: set = holds no poison
export const CTX_STOP = 352;          // i32, the token of a run the host asks to stop (its timeout passed); polled by the kernel, see build/stop-polls.ts
export const CTX_LAUNCH = 356;        // i32, the seq of the launch this core is running (0 on the calling thread)
export const CTX_DESC = 384;          // tensor descriptors, MAX_TENSORS x DESC_BYTES
export const MAX_TENSORS = 16;
export const DESC_BYTES = 128;
export const CTX_TCM_TABLE = 2432;    // live TCM blocks, MAX_TCM_BLOCKS x TCMB_BYTES
export const MAX_TCM_BLOCKS = 64;
export const TCMB_BYTES = 16;
export const CTX_FREED = 3456;        // recently freed TCM pointers (u32 ring), to tell double frees from foreign ones
export const MAX_FREED = 64;
export const CTX_STREAMS = 3712;      // stream accessor slots, MAX_STREAMS x STREAM_BYTES
export const MAX_STREAMS = 16;
export const STREAM_BYTES = 32;
export const CTX_WLOG = 4352;         // output write intervals [start, end) in elements, u32 pairs
export const MAX_WLOG = 512;
export const CTX_ROWS = 8448;         // sub-accessor records for chained indexing acc[i][j], a ring
export const MAX_ROWS = 1024;
export const ROW_BYTES = 16;
export const CTX_ROW_SERIAL = 76;     // i32, sub-accessors made this launch
export const CTX_HEADER_BYTES = 24832;

// ---- flags ----
export const FLAG_CHECKS = 1;         // bounds, TCM, coherence and stream checks
export const FLAG_MULTICORE = 2;      // library built with multicore=true
export const FLAG_POISON = 4;         // fresh TCM is poisoned; copies out of TCM look for it (a build without the raw store checks: it keeps no written-map of its stores)
export const FLAG_LEAK_IS_ERROR = 8;  // TCM blocks left at exit fail the call
export const FLAG_LOG_WRITES = 16;    // record output intervals for cross-core checks
export const FLAG_PRINT_ALL_CORES = 32; // every core may printf (tagged by the host)
export const FLAG_TRACE = 64;         // report TCM copies, stream refills/flushes and TCM blocks to the host (gpsimd profile)
export const FLAG_LOG_READS = 128;    // record output intervals read, for the cross-core race check (multicore)
export const FLAG_WATCH = 256;        // report every logged output access to the host (the rerun that finds a cross-core error's lines)
export const FLAG_STORES_MARK_ANYWHERE = 512; // kernel stores mark the TCM written-map wherever they land in the arena, with no window (sanitize builds)

// ---- TCM ----
export const TCM_POOL_BYTES = 16384;  // the budget of one core, as on the device
export const TCM_ARENA_BYTES = 32768; // room for the budget plus guard bytes and alignment
export const TCM_SHADOW_DELTA = 32768; // the written-map of TCM byte p is the byte p + TCM_SHADOW_DELTA (just past the arena): 1 = written since tcm_malloc
export const TCM_SUMMARY_DELTA = 65536; // after the written-map: one byte per TCM_SUMMARY_GRANULE TCM bytes, 1 = all of them written (copies into TCM set it)
export const TCM_SUMMARY_GRANULE = 64;  // TCM bytes per summary byte (blocks start on such granules, so none is shared)
export const TCM_DIRTY_END = 66048;     // u32 after the summary (TCM_SUMMARY_DELTA + 512): the written-map and summary are all 0 past this TCM offset
export const TCM_CHECK_MAPS_BYTES = 33792; // the written-map, summary and dirty end that follow the arena (32768 + 1024)
export const TCM_ALIGN = 16;
export const TCM_GUARD_BYTES = 16;
export const TCM_GUARD_BYTE = 0xFD;
export const TCM_POISON_BYTE = 0xFF;   // 0xFFFF.. is a NaN in float32, bfloat16 and float16
export const TCM_GRANULE = 64;        // bytes per bit of the clean bitmap (TCM_ARENA_BYTES / 64 = 512 bits)
export const STREAM_CACHE_BYTES = 4096;
export const TCMB_PTR = 0;            // u32
export const TCMB_SIZE = 4;           // u32, bytes asked for
export const TCMB_KIND = 8;           // i32, 0 = tcm_malloc, 1 = stream cache
export const TCMB_SITE = 12;          // i32, the kernel statement that allocated it (build/allocation-sites.ts), 0 unknown

// ---- tensor descriptor ----
export const TD_DATA = 0;             // u32, address in device memory
export const TD_DTYPE = 4;            // i32, ScalarType
export const TD_NDIM = 8;             // i32
export const TD_FLAGS = 12;           // i32, TDF_* below
export const TD_NUMEL = 16;           // i64
export const TD_SLOT = 24;            // i32, argument position; -1 output; -2 made by the kernel
export const TD_POLICY = 28;          // i32, coherence policy
export const TD_READERS = 32;         // i32, open read streams
export const TD_WRITERS = 36;         // i32, open write streams
export const TD_ELEMWISE = 40;        // i32, element-wise accessors made
export const TD_SIZES = 48;           // 8 x i32
export const TD_STRIDES = 80;         // 8 x u32, in elements
export const TDF_READ_ONLY = 1;
export const TDF_OUTPUT = 2;
export const TDF_KERNEL_OWNED = 4;

// ---- sub-accessor record (acc[i] of an N-d accessor) ----
export const ROW_DESC = 0;            // u32, tensor descriptor
export const ROW_OFFSET = 4;          // u32, flat offset of the indices so far
export const ROW_DIM = 8;             // i32, next dimension to index
export const ROW_SERIAL = 12;         // i32, to detect a stale handle

// ---- stream slot ----
export const ST_DESC = 0;             // u32, tensor descriptor
export const ST_POS = 4;              // u32, next element index
export const ST_CACHE = 8;            // u32, TCM cache (0 = uncached)
export const ST_FILL = 12;            // u32, elements in the cache
export const ST_INDEX = 16;           // u32, next element in the cache
export const ST_STATE = 20;           // i32, STREAM_* below
export const ST_BASE = 24;            // u32, tensor element index of cache[0]
export const STREAM_OPEN_READ = 1;
export const STREAM_OPEN_WRITE = 2;
export const STREAM_CLOSED = 3;

// ---- trace events (host_trace kind; FLAG_TRACE) ----
export const TRACE_TCM_IN = 1;          // tensor_to_tcm: slot, bytes, tensor offset (elements)
export const TRACE_TCM_OUT = 2;         // tcm_to_tensor: slot, bytes, tensor offset (elements)
export const TRACE_STREAM_REFILL = 3;   // read stream cache filled from HBM: slot, bytes, first element
export const TRACE_STREAM_FLUSH = 4;    // write stream cache written to HBM: slot, bytes, first element
export const TRACE_TCM_MALLOC = 5;      // TCM block allocated: kind (0 tcm_malloc, 1 stream cache), bytes, address
export const TRACE_TCM_FREE = 6;        // TCM block released: kind, bytes, address

// ---- printf argument records (16 bytes each) ----
export const PF_TAG_INT = 1;
export const PF_TAG_UINT = 2;
export const PF_TAG_FLOAT = 3;
export const PF_TAG_STRING = 4;
export const PF_TAG_BOOL = 5;
export const PF_MAX_ARGS = 8;
