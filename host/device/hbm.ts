// Device memory ("HBM"): one shared WebAssembly.Memory that holds every
// tensor, every library's static data and every core's private region.
// Kernels on any thread reach it without copies; only the main thread
// allocates. Freed blocks are reused (best fit) and coalesced.
import { DeviceMemoryError } from "../checks/errors.js";
import { INITIAL_PAGES } from "../library/build-constants.js";

const PAGE = 65536;
const MAX_PAGES = 65536; // 4 GiB, the wasm32 limit
/** The first page is never handed out, so a null pointer never aliases data. */
const NULL_PAGE = PAGE;
/** Alignment of every block: a cache line, and enough for v128. */
export const HBM_ALIGN = 64;
/**
 * Blocks of this size or more start on a 4 KB page. Where a tensor lies modulo 4 KB decides how fast
 * kernels copy it into TCM: with source and destination close modulo 4 KB, loads stall on earlier
 * stores to the "same" address (4K aliasing; W1's TCM GIOU measured 0.57 to 1.75 ms by placement
 * alone). Pages here, and TCM arenas at 2 KB past a page (core-regions.ts), keep them apart.
 */
export const PAGE_ALIGNED_FROM = 65536;
export const PAGE_BYTES = 4096;

interface FreeBlock { addr: number; size: number; }

/** The device memory and its allocator. */
export class DeviceMemory {
  /** The shared memory every kernel instance imports as env.memory. */
  readonly memory: WebAssembly.Memory;
  private top = NULL_PAGE;
  private readonly free: FreeBlock[] = []; // sorted by address, never adjacent
  private readonly live = new Map<number, number>(); // address -> size
  private used = 0;

  /** False on a worker thread that adopted the main thread's memory (adoptDeviceMemory): only the main thread allocates. */
  private readonly owner: boolean;

  constructor(adopted?: WebAssembly.Memory) {
    this.memory = adopted ?? new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: MAX_PAGES, shared: true });
    this.owner = adopted === undefined;
  }

  /** Allocates size bytes (rounded up to 64) and returns the address. */
  alloc(size: number, what = "tensor"): number {
    if (!this.owner) throw new DeviceMemoryError("E_HBM_WORKER", `a worker thread cannot allocate device memory (a ${what} of ${size} bytes): only the main thread allocates`);
    if (!Number.isInteger(size) || size < 0) throw new DeviceMemoryError("E_HBM_SIZE", `cannot allocate ${size} bytes for a ${what}`);
    const bytes = Math.max(HBM_ALIGN, Math.ceil(size / HBM_ALIGN) * HBM_ALIGN);
    const align = bytes >= PAGE_ALIGNED_FROM ? PAGE_BYTES : HBM_ALIGN;
    let addr = this.takeFree(bytes, align);
    if (addr < 0) addr = this.bump(bytes, align, what);
    this.live.set(addr, bytes);
    this.used += bytes;
    return addr;
  }

  /** Returns a block to the allocator. */
  release(addr: number): void {
    const size = this.live.get(addr);
    if (size === undefined) throw new DeviceMemoryError("E_HBM_FREE", `device memory at 0x${addr.toString(16)} is not an allocated block`);
    this.live.delete(addr);
    this.used -= size;
    this.insertFree(addr, size);
  }

  /** Bytes in allocated blocks. */
  get bytesInUse(): number { return this.used; }
  /** Number of allocated blocks. */
  get blocksInUse(): number { return this.live.size; }
  /** Size of the memory in bytes. */
  get byteLength(): number { return this.memory.buffer.byteLength; }

  /** A byte view of the whole memory as it is now (re-derive after any allocation). */
  bytes(): Uint8Array { return new Uint8Array(this.memory.buffer); }

  /** The memory's length when last read (bump): device memory only grows, so it is a lower bound. */
  private knownBytes = 0;

  private wordView: Uint32Array<ArrayBufferLike> | null = null;
  /**
   * A u32 view of the whole memory, made again when the allocator hands out a block past it (every
   * block it hands out lies inside the view): per-launch paths use it without paying for the
   * memory.buffer getter each time.
   */
  words(): Uint32Array {
    return (this.wordView ??= new Uint32Array(this.memory.buffer));
  }

  private dataView: DataView<ArrayBufferLike> | null = null;
  /** A DataView of the whole memory, kept like words() (made again for a block past it). */
  view(): DataView {
    return (this.dataView ??= new DataView(this.memory.buffer));
  }

  /** Best fit among the free blocks that can hold `bytes` at an `align`-aligned address; -1 if none. */
  private takeFree(bytes: number, align: number): number {
    let best = -1;
    let bestSize = Infinity;
    for (let i = 0; i < this.free.length; i++) {
      const b = this.free[i];
      const start = alignUp(b.addr, align);
      if (start + bytes <= b.addr + b.size && b.size < bestSize) {
        best = i;
        bestSize = b.size;
        if (b.size === bytes) break;
      }
    }
    if (best < 0) return -1;
    const block = this.free[best];
    const addr = alignUp(block.addr, align);
    const before = addr - block.addr;
    const after = block.addr + block.size - (addr + bytes);
    // Whatever the block had before and after the allocation stays free: the block itself keeps one part, in place
    // (every call's output comes through here: a temporary array and a splice showed in a tiny call).
    if (before > 0) {
      block.size = before;
      if (after > 0) this.free.splice(best + 1, 0, { addr: addr + bytes, size: after });
    } else if (after > 0) {
      block.addr = addr + bytes;
      block.size = after;
    } else {
      this.free.splice(best, 1);
    }
    return addr;
  }

  private bump(bytes: number, align: number, what: string): number {
    const addr = alignUp(this.top, align);
    if (addr > this.top) this.insertFree(this.top, addr - this.top); // the gap stays usable
    const end = addr + bytes;
    if (end > MAX_PAGES * PAGE) {
      throw new DeviceMemoryError("E_HBM_FULL", `device memory is full: a ${what} of ${bytes} bytes does not fit (${this.used} bytes in ${this.live.size} blocks in use, 4 GiB at most); dispose() tensors you no longer need`);
    }
    // Memory only grows, so a length read before is a lower bound: the buffer getter of a shared memory (a new
    // SharedArrayBuffer object each time) is paid only when a block may reach past it.
    if (end > this.knownBytes) {
      const have = this.knownBytes = this.memory.buffer.byteLength; // a kernel's memory.grow may have grown it
      if (end > have) {
        // Grow by at least a quarter of the current size so growth stays rare.
        const need = Math.ceil((end - have) / PAGE);
        const pages = Math.min(MAX_PAGES - have / PAGE, Math.max(need, Math.ceil(have / PAGE / 4)));
        this.memory.grow(pages);
        this.knownBytes = this.memory.buffer.byteLength;
      }
    }
    this.top = end;
    // The views reach every block handed out before; they are made again only for one that lies past them (in
    // memory grown here or by a kernel's memory.grow). Remaking them at every bump cost each call whose output
    // was the top block (a tiny call, its output disposed) two views and two buffer getters.
    if (this.wordView && end > this.wordView.byteLength) this.wordView = null;
    if (this.dataView && end > this.dataView.byteLength) this.dataView = null;
    return addr;
  }

  private insertFree(addr: number, size: number): void {
    let i = 0;
    while (i < this.free.length && this.free[i].addr < addr) i++;
    const prev = this.free[i - 1];
    const next = this.free[i];
    if (prev && prev.addr + prev.size === addr) {
      prev.size += size;
      if (next && prev.addr + prev.size === next.addr) { prev.size += next.size; this.free.splice(i, 1); }
    } else if (next && addr + size === next.addr) {
      next.addr = addr; next.size += size;
    } else {
      this.free.splice(i, 0, { addr, size });
    }
    // A free block that reaches the top gives its space back to the bump region.
    const last = this.free[this.free.length - 1];
    if (last && last.addr + last.size === this.top) { this.top = last.addr; this.free.pop(); }
  }
}

function alignUp(n: number, align: number): number {
  return Math.ceil(n / align) * align;
}

let device: DeviceMemory | null = null;

/**
 * On a worker thread: makes hbm() the main thread's device memory (posted to the worker), so tensors
 * the main thread placed can be read and written here. Such a thread never allocates or frees.
 */
export function adoptDeviceMemory(memory: WebAssembly.Memory): void {
  if (device && device.memory !== memory) throw new DeviceMemoryError("E_HBM_ADOPT", "this thread already has its own device memory; adopt the main thread's before anything uses hbm()");
  device ??= new DeviceMemory(memory);
}

/** The process's device memory, created on first use. */
export function hbm(): DeviceMemory {
  device ??= new DeviceMemory();
  return device;
}
