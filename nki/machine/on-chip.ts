// SBUF and PSUM of one kernel run: two arenas in device memory, each with an init map (one byte per
// element, at the same element offsets as the data) that is zeroed for every new tile, so a tile's
// elements start unwritten and the engine can report a read of one before any instruction wrote it.
//
// Arenas are allocated on the main thread (allocateArenas) and handed to a run as plain numbers, so a
// worker thread can run a kernel over arenas the main thread made. Tiles are bump-allocated and the
// arena is emptied at the end of the run; the per-partition bytes are counted for a capacity model.
import { isMainThread } from "node:worker_threads";
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

/**
 * The bump allocator over one run's arenas. When an arena is full on the main thread, more device
 * memory is taken in chunks the size of the arena (given back at reset): tiles are not freed within a
 * run, so a long loop that allocates a tile per iteration needs room beyond the SBUF's own 24 MiB.
 * A worker thread cannot allocate device memory; there a full arena is DeviceMemoryError.
 */
export class OnChipMemory {
  private readonly regions: Record<OnChipBuffer, ArenaRegion[]>;
  private readonly current = { sbuf: 0, psum: 0 };
  private readonly top = { sbuf: 0, psum: 0 };
  private readonly initTop = { sbuf: 0, psum: 0 };
  /** Bytes per partition the run's tiles take, by buffer (what a capacity check compares with the device's). */
  readonly partitionBytes = { sbuf: 0, psum: 0 };

  constructor(readonly arenas: Arenas) {
    this.regions = { sbuf: [arenas.sbuf], psum: [arenas.psum] };
  }

  /** Room for `elements` elements of `elementBytes` each over `partitions` partitions; its init map zeroed. */
  alloc(buffer: OnChipBuffer, elements: number, elementBytes: number, partitions: number): OnChipPlace {
    const dataBytes = up(Math.max(1, elements * elementBytes), ALIGN);
    const initBytes = up(Math.max(1, elements), ALIGN);
    let arena = this.regions[buffer][this.current[buffer]];
    while (this.top[buffer] + dataBytes > arena.bytes || this.initTop[buffer] + initBytes > arena.initBytes) {
      arena = this.nextRegion(buffer, dataBytes, initBytes, elements * elementBytes);
    }
    const addr = arena.addr + this.top[buffer];
    const initAddr = arena.initAddr + this.initTop[buffer];
    this.top[buffer] += dataBytes;
    this.initTop[buffer] += initBytes;
    hbm().bytes().fill(0, initAddr, initAddr + elements);
    if (partitions > 0) this.partitionBytes[buffer] += (elements * elementBytes) / partitions;
    return { addr, initAddr };
  }

  private nextRegion(buffer: OnChipBuffer, dataBytes: number, initBytes: number, asked: number): ArenaRegion {
    const list = this.regions[buffer];
    this.current[buffer]++;
    this.top[buffer] = this.initTop[buffer] = 0;
    const existing = list[this.current[buffer]];
    if (existing && existing.bytes >= dataBytes && existing.initBytes >= initBytes) return existing;
    const used = list.slice(0, this.current[buffer]).reduce((n, r) => n + r.bytes, 0);
    if (!isMainThread) {
      throw new DeviceMemoryError(
        "E_NKI_ARENA_FULL",
        `the ${buffer.toUpperCase()} arena of this kernel run is full: a tile of ${asked} bytes does not fit (${used} bytes of tiles so far; gpsimd does not reuse tiles within a run, so a kernel that allocates a tile in every iteration of a long loop fills it)`,
        { details: { buffer, bytes: asked, used } },
      );
    }
    const size = Math.max(list[0].bytes, dataBytes, initBytes * 2);
    const chunk = region(size, buffer === "sbuf" ? "SBUF" : "PSUM");
    list.splice(this.current[buffer], existing ? 1 : 0, chunk);
    if (existing) { hbm().release(existing.addr); hbm().release(existing.initAddr); }
    return chunk;
  }

  /** Empties both arenas (the run ended) and gives back the chunks taken beyond them. */
  reset(): void {
    for (const buffer of ["sbuf", "psum"] as const) {
      for (const r of this.regions[buffer].splice(1)) { hbm().release(r.addr); hbm().release(r.initAddr); }
      this.current[buffer] = this.top[buffer] = this.initTop[buffer] = 0;
      this.partitionBytes[buffer] = 0;
    }
  }
}
