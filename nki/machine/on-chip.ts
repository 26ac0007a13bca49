// SBUF and PSUM of one kernel run: two arenas in device memory, each with an init map (one byte per
// element, at the same element offsets as the data) that is zeroed for every new tile, so a tile's
// elements start unwritten and the engine can report a read of one before any instruction wrote it.
//
// Arenas are allocated on the main thread (allocateArenas) and handed to a run as plain numbers, so a
// worker thread can run a kernel over arenas the main thread made. Tiles are bump-allocated and the
// arena is emptied at the end of the run; the per-partition bytes are counted for a capacity model.
import { hbm } from "../../host/device/hbm.js";
import { DeviceMemoryError } from "../../host/checks/errors.js";

/** One arena: data bytes and the init-map bytes beside them (plain numbers: they cross threads). */
export interface ArenaRegion {
  readonly addr: number;
  readonly bytes: number;
  readonly initAddr: number;
  readonly initBytes: number;
}

export interface Arenas {
  readonly sbuf: ArenaRegion;
  readonly psum: ArenaRegion;
}

export interface ArenaSizes {
  sbufBytes?: number;
  psumBytes?: number;
}

/** 48 MiB of SBUF (twice the trn1's, since tiles are not freed within a run) and 8 MiB of PSUM. */
export const DEFAULT_SBUF_ARENA = 48 << 20;
export const DEFAULT_PSUM_ARENA = 8 << 20;

function region(bytes: number, what: string): ArenaRegion {
  const initBytes = bytes >> 1; // an init byte per element: elements of 2+ bytes, or half the arena in bytes
  const addr = hbm().alloc(bytes, `${what} arena`);
  const initAddr = hbm().alloc(initBytes, `${what} init map`);
  return { addr, bytes, initAddr, initBytes };
}

/** Allocates a run's arenas in device memory (main thread only). */
export function allocateArenas(sizes: ArenaSizes = {}): Arenas {
  return { sbuf: region(sizes.sbufBytes ?? DEFAULT_SBUF_ARENA, "SBUF"), psum: region(sizes.psumBytes ?? DEFAULT_PSUM_ARENA, "PSUM") };
}

/** Returns arenas to device memory (main thread only). */
export function releaseArenas(a: Arenas): void {
  for (const r of [a.sbuf, a.psum]) { hbm().release(r.addr); hbm().release(r.initAddr); }
}

export type OnChipBuffer = "sbuf" | "psum";

/** A tile's place in an arena. */
export interface OnChipPlace { readonly addr: number; readonly initAddr: number; }

const ALIGN = 64;
const up = (n: number, a: number) => Math.ceil(n / a) * a;

/** The bump allocator over one run's arenas. */
export class OnChipMemory {
  private readonly top = { sbuf: 0, psum: 0 };
  private readonly initTop = { sbuf: 0, psum: 0 };
  /** Bytes per partition the run's tiles take, by buffer (what a capacity check compares with the device's). */
  readonly partitionBytes = { sbuf: 0, psum: 0 };

  constructor(readonly arenas: Arenas) {}

  /** Room for `elements` elements of `bytes` each, `partitions` rows of `freeBytes`; its init map zeroed. */
  alloc(buffer: OnChipBuffer, elements: number, elementBytes: number, partitions: number): OnChipPlace {
    const arena = this.arenas[buffer];
    const dataBytes = up(Math.max(1, elements * elementBytes), ALIGN);
    const initBytes = up(Math.max(1, elements), ALIGN);
    if (this.top[buffer] + dataBytes > arena.bytes || this.initTop[buffer] + initBytes > arena.initBytes) {
      throw new DeviceMemoryError(
        "E_NKI_ARENA_FULL",
        `the ${buffer.toUpperCase()} arena of this kernel run is full: a tile of ${elements} elements (${elements * elementBytes} bytes) does not fit ` +
          `(${this.top[buffer]} of ${arena.bytes} bytes used; gpsimd does not reuse tiles within a run, so a kernel that allocates tiles in a long loop can fill it)`,
        { details: { buffer, bytes: elements * elementBytes, used: this.top[buffer], arena: arena.bytes } },
      );
    }
    const addr = arena.addr + this.top[buffer];
    const initAddr = arena.initAddr + this.initTop[buffer];
    this.top[buffer] += dataBytes;
    this.initTop[buffer] += initBytes;
    hbm().bytes().fill(0, initAddr, initAddr + elements);
    if (partitions > 0) this.partitionBytes[buffer] += (elements * elementBytes) / partitions;
    return { addr, initAddr };
  }

  /** Empties both arenas (the run ended). */
  reset(): void {
    this.top.sbuf = this.top.psum = this.initTop.sbuf = this.initTop.psum = 0;
    this.partitionBytes.sbuf = this.partitionBytes.psum = 0;
  }
}
