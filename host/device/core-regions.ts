// Each emulated core's private memory, carved out of device memory: its
// context block (state the kernel library keeps), its 16 KB TCM pool (in a
// larger arena, for guard bytes), its printf ring and its kernel heap. The
// host keeps its own copy of where each part is: the copies in the context
// block are kernel-writable, so they are rewritten before every launch and
// never read back by the host.
import { hbm, PAGE_BYTES } from "./hbm.js";
import { OptionError } from "../checks/errors.js";
import { heapWrittenMapBytes } from "./heap-written-map.js";
import { zeroer } from "./memory-fill.js";
import { CTX_HEADER_BYTES, CTX_HEAP_BASE, CTX_HEAP_END, CTX_HEAP_PEAK, CTX_TCM_BASE, CTX_PRINTF_BASE, CTX_PRINTF_SIZE, CTX_STOP, CTX_LAUNCH, TCM_CHECK_MAPS_BYTES, TCM_SHADOW_DELTA } from "./layout.js";

/** Default kernel heap per core: scratch for tensors and arrays a kernel makes. */
export const DEFAULT_HEAP_BYTES = 4 << 20;
/** printf ring size when NEURON_RT_GPSIMD_STDOUT_QUEUE_SIZE_BYTES is not set (the documented recommendation). */
export const DEFAULT_PRINTF_BYTES = 131072;
const MAX_PRINTF_BYTES = 131072;
const ENV = "NEURON_RT_GPSIMD_STDOUT_QUEUE_SIZE_BYTES";

/** The printf ring size from the environment: a power of two up to 128 KB, or 0 to disable printf. */
export function printfQueueBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[ENV];
  if (raw === undefined || raw === "") return DEFAULT_PRINTF_BYTES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_PRINTF_BYTES || (n !== 0 && (n & (n - 1)) !== 0)) {
    throw new OptionError("E_OPTION", `${ENV}=${raw}: expected a power of two no larger than ${MAX_PRINTF_BYTES} (128 KB), or 0 to disable printf`);
  }
  return n;
}

/** Addresses of one core's private memory. */
export interface CoreRegion {
  /** Context block (CTX_* offsets). */
  ctx: number;
  /** TCM arena. */
  tcm: number;
  /** printf ring (printfBytes long). */
  ring: number;
  /** Kernel heap: [heap, heap + heapBytes). */
  heap: number;
  heapBytes: number;
  printfBytes: number;
}

/**
 * Where the TCM arena starts in a core's region: half a page past a page boundary. Tensors of 64 KB
 * or more start on pages (hbm.ts), so copies between them and TCM are 2 KB apart modulo 4 KB, away
 * from 4K-aliasing stalls.
 */
const TCM_OFFSET = Math.ceil(CTX_HEADER_BYTES / PAGE_BYTES) * PAGE_BYTES + PAGE_BYTES / 2;

/** Core id of the region the main thread uses to run single-core kernels itself. */
export const HOST_CORE = -1;

const regions = new Map<number, CoreRegion & { block: number }>();
/** The same regions by context-block address (what launches and core threads name a core by). */
const byContext = new Map<number, CoreRegion>();

/**
 * The region of core `id`, made (or remade larger) so its heap has at least heapBytes, with the
 * fields of its context block that the kernel library trusts rewritten from the host's copy. Call
 * it for every launch: a kernel can overwrite those fields (its TCM base, heap bounds, printf
 * ring, stop word) and would otherwise steer later launches of any library into other tensors.
 */
export function coreRegion(id: number, heapBytes: number, printfBytes: number): CoreRegion {
  const have = regions.get(id);
  if (have && have.heapBytes >= heapBytes && have.printfBytes === printfBytes) {
    writeTrustedFields(have);
    return have;
  }
  if (have) { hbm().release(have.block); byContext.delete(have.ctx); }
  // The TCM arena's written-map (one byte per TCM byte, assembly/ownership.ts) follows the arena, at TCM_SHADOW_DELTA,
  // then its summary (a byte per 64 TCM bytes) and the offset past which both are clear.
  const tcmAndShadow = TCM_SHADOW_DELTA + TCM_CHECK_MAPS_BYTES;
  // Sanitize mode's written-map of the heap follows the heap (heap-written-map.ts).
  const heapOffset = TCM_OFFSET + tcmAndShadow + printfBytes;
  const mapBytes = heapWrittenMapBytes(heapOffset + heapBytes, heapBytes);
  const bytes = heapOffset + heapBytes + mapBytes;
  const block = hbm().alloc(bytes, `core ${id} region`); // page-aligned: it is larger than PAGE_ALIGNED_FROM
  const ctx = block;
  const tcm = ctx + TCM_OFFSET;
  const ring = tcm + tcmAndShadow;
  const heap = ring + printfBytes;
  new Uint8Array(hbm().memory.buffer, ctx, TCM_OFFSET + tcmAndShadow).fill(0);
  const region = { ctx, tcm, ring, heap, heapBytes, printfBytes, block };
  regions.set(id, region);
  byContext.set(ctx, region);
  writeTrustedFields(region);
  // The heap's memory held other data before (released tensors): the first call clears all of it (host/cores/heap-hygiene.ts).
  hbm().words()[(ctx + CTX_HEAP_PEAK) >>> 2] = heap + heapBytes;
  zeroer(hbm().memory)(heap + heapBytes, mapBytes);
  return region;
}

/** The host's copy of the region whose context block is at ctx (undefined for an address that is none). */
export function regionAt(ctx: number): CoreRegion | undefined {
  return byContext.get(ctx);
}

/** Writes the region's addresses and sizes into its context block, and clears its stop word and launch number. */
function writeTrustedFields(r: CoreRegion): void {
  const words = hbm().words();
  const at = r.ctx >>> 2;
  words[at + (CTX_TCM_BASE >> 2)] = r.tcm;
  words[at + (CTX_PRINTF_BASE >> 2)] = r.ring;
  words[at + (CTX_PRINTF_SIZE >> 2)] = r.printfBytes;
  words[at + (CTX_HEAP_BASE >> 2)] = r.heap;
  words[at + (CTX_HEAP_END >> 2)] = r.heap + r.heapBytes;
  Atomics.store(words, at + (CTX_STOP >> 2), 0); // pairs with the kernel's atomic load of its stop word
  words[at + (CTX_LAUNCH >> 2)] = 0;
}
