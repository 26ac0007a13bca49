// Each emulated core's private memory, carved out of device memory: its
// context block (state the kernel library keeps), its 16 KB TCM pool (in a
// larger arena, for guard bytes), its printf ring and its kernel heap.
import { hbm, PAGE_BYTES } from "./hbm.js";
import { OptionError } from "../checks/errors.js";
import { CTX_HEADER_BYTES, CTX_HEAP_BASE, CTX_HEAP_END, CTX_TCM_BASE, CTX_PRINTF_BASE, CTX_PRINTF_SIZE, TCM_ARENA_BYTES } from "./layout.js";

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

/** The region of core `id`, made (or remade larger) so its heap has at least heapBytes. */
export function coreRegion(id: number, heapBytes: number, printfBytes = printfQueueBytes()): CoreRegion {
  const have = regions.get(id);
  if (have && have.heapBytes >= heapBytes && have.printfBytes === printfBytes) return have;
  if (have) hbm().release(have.block);
  const bytes = TCM_OFFSET + TCM_ARENA_BYTES + printfBytes + heapBytes;
  const block = hbm().alloc(bytes, `core ${id} region`); // page-aligned: it is larger than PAGE_ALIGNED_FROM
  const ctx = block;
  const tcm = ctx + TCM_OFFSET;
  const ring = tcm + TCM_ARENA_BYTES;
  const heap = ring + printfBytes;
  new Uint8Array(hbm().memory.buffer, ctx, TCM_OFFSET + TCM_ARENA_BYTES).fill(0);
  const view = new DataView(hbm().memory.buffer);
  view.setUint32(ctx + CTX_TCM_BASE, tcm, true);
  view.setUint32(ctx + CTX_PRINTF_BASE, ring, true);
  view.setUint32(ctx + CTX_PRINTF_SIZE, printfBytes, true);
  view.setUint32(ctx + CTX_HEAP_BASE, heap, true);
  view.setUint32(ctx + CTX_HEAP_END, heap + heapBytes, true);
  const region = { ctx, tcm, heapBytes, printfBytes, block };
  regions.set(id, region);
  return region;
}
