// On-chip capacity: SBUF and PSUM bytes per partition held by live tiles over a run, against the
// device's (trn1: SBUF 192 KiB, PSUM 16 KiB per partition). The model of the compiler's allocation
// (docs/nki.md, "Capacity model"): a tile takes its free bytes (all axes but the partition axis, blocks
// of nl.par_dim tiles included) in every partition; it is live from its allocation to the last
// instruction that uses it, and its room is reused after that; a tile allocated in a loop body is one
// buffer per iteration, live while that iteration uses it. The check runs when the run ends (last uses
// are known then) and names the allocation that overflowed, the bytes live then and the largest tiles.
import { TileShapeError } from "../../host/checks/errors.js";
import type { Storage } from "../machine/tile.js";
import type { KernelRun } from "../machine/kernel-run.js";
import { atSite, errorDetails } from "../machine/site.js";
import type { InstructionEvent, RunConsumer } from "./recorder.js";
import type { Region } from "./regions.js";
import { lineOf } from "./describe.js";

interface TileLife {
  readonly storage: Storage;
  /** The block (index over the axes before nl.par_dim's), or -1 for a tile without blocks. */
  readonly block: number;
  readonly buffer: "sbuf" | "psum";
  readonly bytes: number;
  /** Instructions finished when it was allocated. */
  readonly alloc: number;
  /** The last instruction that used it (alloc when none did). */
  last: number;
}

/** A tile with block axes: each block is a physical tile of its own, live from its first use to its last. */
interface Blocked {
  readonly storage: Storage;
  readonly axis: number;
  readonly blocks: Map<number, TileLife>;
  readonly bytes: number;
}

/** Bytes per partition of a tile whose partition axis is `axis` (all of its blocks). */
export function partitionBytes(storage: Storage, axis: number): number {
  const p = storage.shape[axis] ?? 1;
  return (storage.numel / Math.max(1, p)) * storage.dtype.bytes;
}

export class CapacityCheck implements RunConsumer {
  private tiles: TileLife[] = [];
  private whole = new Map<Storage, TileLife>();
  private blocked = new Map<Storage, Blocked>();
  private run: KernelRun | null = null;

  private follow(run: KernelRun): void {
    if (run !== this.run) { this.tiles = []; this.whole.clear(); this.blocked.clear(); this.run = run; }
  }

  tileAllocated(storage: Storage, partitionAxis: number, seq: number, run: KernelRun): void {
    this.follow(run);
    if (storage.kind !== "sbuf" && storage.kind !== "psum") return;
    const bytes = partitionBytes(storage, partitionAxis);
    if (partitionAxis > 0) {
      // Block axes (migration/index.rst, "What are block dimensions?"): the compiler gives each block its
      // own place and lifetime from the data flow, so blocks are counted as they are used.
      const blocks = storage.shape.slice(0, partitionAxis).reduce((a, b) => a * b, 1);
      this.blocked.set(storage, { storage, axis: partitionAxis, blocks: new Map(), bytes: bytes / blocks });
      return;
    }
    const t: TileLife = { storage, block: -1, buffer: storage.kind, bytes, alloc: seq, last: seq };
    this.whole.set(storage, t);
    this.tiles.push(t);
  }

  instruction(e: InstructionEvent): void {
    this.follow(e.run);
    for (const a of e.accesses) {
      const t = this.whole.get(a.storage);
      if (t) { t.last = e.seq; continue; }
      const b = this.blocked.get(a.storage);
      if (b) for (const k of blocksOf(b, a.region)) this.useBlock(b, k, e.seq);
    }
  }

  private useBlock(b: Blocked, k: number, seq: number): void {
    let t = b.blocks.get(k);
    if (!t) {
      t = { storage: b.storage, block: k, buffer: b.storage.kind as "sbuf" | "psum", bytes: b.bytes, alloc: seq - 1, last: seq };
      b.blocks.set(k, t);
      this.tiles.push(t);
    }
    t.last = seq;
  }

  runEnd(run: KernelRun): void {
    if (run !== this.run) return;
    const tiles = [...this.tiles].sort((a, b) => a.alloc - b.alloc);
    this.tiles = [];
    this.whole.clear();
    this.blocked.clear();
    this.run = null;
    checkPeak(tiles, run);
  }
}

/** The blocks (row-major index over the block axes) a region touches. */
function blocksOf(b: Blocked, r: Region): number[] {
  const shape = b.storage.shape;
  const perBlock = shape.slice(b.axis).reduce((x, y) => x * y, 1);
  if (r.flat) {
    const out: number[] = [];
    for (let k = Math.floor(r.lo[0] / perBlock); k <= Math.floor((r.hi[0] - 1) / perBlock); k++) out.push(k);
    return out;
  }
  let out = [0];
  for (let d = 0; d < b.axis; d++) {
    const next: number[] = [];
    for (const base of out) for (let i = r.lo[d]; i < r.hi[d]; i += r.step[d]) next.push(base * shape[d] + i);
    out = next;
  }
  return out;
}

/** Walks allocations in order with the tiles live at each; `at` sees each buffer's total after an allocation. */
function sweep(tiles: readonly TileLife[], at: (buffer: "sbuf" | "psum", total: number, tile: TileLife, live: TileLife[]) => void): void {
  const live: Record<"sbuf" | "psum", TileLife[]> = { sbuf: [], psum: [] };
  const total = { sbuf: 0, psum: 0 };
  for (const t of tiles) {
    // Tiles whose last use came at or before this allocation have given their room back.
    for (const b of ["sbuf", "psum"] as const) {
      if (live[b].some((x) => x.last <= t.alloc)) {
        live[b] = live[b].filter((x) => x.last > t.alloc);
        total[b] = live[b].reduce((n, x) => n + x.bytes, 0);
      }
    }
    live[t.buffer].push(t);
    total[t.buffer] += t.bytes;
    at(t.buffer, total[t.buffer], t, live[t.buffer]);
  }
}

function checkPeak(tiles: readonly TileLife[], run: KernelRun): void {
  const dev = run.device;
  const limit = { sbuf: dev.sbufPartitionBytes, psum: dev.psumPartitionBytes };
  sweep(tiles, (buffer, total, tile, live) => {
    if (total <= limit[buffer]) return;
    throw capacityError(buffer, total, limit[buffer], tile, live, dev.name);
  });
}

function capacityError(buffer: "sbuf" | "psum", total: number, limit: number, tile: TileLife, live: readonly TileLife[], device: string): TileShapeError {
  const largest = [...live].sort((a, b) => b.bytes - a.bytes).slice(0, 5);
  const name = (t: TileLife) => `'${t.storage.name ?? "(unnamed)"}'${t.block >= 0 ? ` block ${t.block}` : ""} ${t.bytes} B (${t.storage.dtype.name}[${t.storage.shape.join(", ")}], ${lineOf(t.storage.site)})`;
  const B = buffer.toUpperCase();
  return new TileShapeError(
    buffer === "sbuf" ? "E_NKI_SBUF_FULL" : "E_NKI_PSUM_FULL",
    `${tile.block >= 0 ? `block ${tile.block} of ` : ""}${tile.storage.describe()} does not fit in ${B}: with it, the live ${buffer} tiles take ${total} bytes per partition, over the ${limit} of ${device}'s ${B} ` +
      `(${live.length} live tiles; the largest: ${largest.map(name).join(", ")}); a tile is live from its allocation to its last use${atSite(tile.storage.site)}`,
    {
      details: errorDetails(tile.storage.site, {
        buffer, tile: tile.storage.name, bytesPerPartition: total, limit, device,
        largest: largest.map((t) => ({ tile: t.storage.name, bytes: t.bytes, line: t.storage.site?.line, shape: [...t.storage.shape] })),
      }),
    },
  );
}
