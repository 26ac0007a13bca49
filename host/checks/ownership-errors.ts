// The errors of the default mode's raw load and store checks
// (assembly/ownership.ts): a TCM read of bytes nothing wrote since their block
// was handed out, or past a block's end; a store into TCM outside every live
// block; a store elsewhere outside what the call owns.
// The kernel library reports only the address, the size and the first bad
// byte; what is there (the block, its written part, the tensor or library a
// store hit) is read here from the core's context block, its TCM written-map
// and the host's own records.
import * as K from "./error-codes.js";
import { GpsimdError, UninitializedTcmError, TcmRangeError, KernelTamperError } from "./errors.js";
import { describePlace, functionName, type SourcePlace } from "./source-locator.js";
import {
  CTX_TCM_NBLOCKS, CTX_TCM_TABLE, TCMB_BYTES, TCMB_PTR, TCMB_SIZE, TCMB_KIND, TCMB_SITE, TCM_ARENA_BYTES, TCM_SHADOW_DELTA,
  CTX_TCM_BASE, CTX_HEADER_BYTES, TCM_SUMMARY_DELTA, TCM_SUMMARY_GRANULE, TCM_GUARD_BYTES, TCM_ALIGN, TCM_CHECK_MAPS_BYTES, CTX_DESC, DESC_BYTES, TD_DATA, TD_DTYPE, TD_NUMEL, TD_FLAGS, TDF_READ_ONLY, CTX_DST,
} from "../device/layout.js";
import { dtypeFromScalarType, dtypeInfo } from "../device/dtype.js";
import { staticDataAt } from "../library/static-data.js";
import type { KernelSignature } from "../../build/signatures.js";

/** What the host knows of the launch that failed. */
export interface OwnershipSite {
  op: string;
  core: number;
  ctx: number;
  kernel: KernelSignature;
  tensorName(slot: number): string;
}

/** How the error finds places and the library's own static data. */
export interface OwnershipContext {
  memory: WebAssembly.Memory;
  /** The kernel statement that made the access. */
  place: SourcePlace | null;
  /** The statement whose tcm_malloc the build numbered `site` (build/allocation-sites.ts). */
  allocationPlace(site: number): SourcePlace | null;
  /** This library's static data. */
  statics: { base: number; bytes: number };
  /** What the kernel library reported: the access's address and bytes, and its first bad byte. */
  report: { address: number; bytes: number; bad: number };
}

/** True for the codes this file words. */
export function isOwnershipCode(code: number): boolean {
  return code === K.E_TCM_UNWRITTEN_READ || code === K.E_FOREIGN_STORE;
}

const hex = (n: number) => `0x${n.toString(16)}`;
const placeText = (p: SourcePlace | null) => (p?.file ? `${p.file}:${p.line}` : null);

/** The error for a report of code E_TCM_UNWRITTEN_READ or E_FOREIGN_STORE (context.report says what was reported). */
export function ownershipError(code: number, site: OwnershipSite, context: OwnershipContext): GpsimdError {
  const { address, bytes, bad } = context.report;
  const error = code === K.E_FOREIGN_STORE ? foreignStore(address, bytes, site, context) : unwrittenRead(address, bytes, bad, site, context);
  const place = context.place;
  if (!place) return error;
  const Class = error.constructor as new (code: string, message: string, ctx: { op?: string; core?: number; details?: Record<string, unknown> }) => GpsimdError;
  const at = place.file ? { file: place.file, line: place.line, column: place.column } : {};
  return new Class(error.code, `${error.message}${describePlace(place)}`, { op: error.op, core: error.core, details: { ...error.details, function: functionName(place), ...at } });
}

interface Block { ptr: number; size: number; kind: number; site: number }

function liveBlocks(view: DataView, ctx: number): Block[] {
  const n = Math.min(Math.max(view.getInt32(ctx + CTX_TCM_NBLOCKS, true), 0), 64);
  return Array.from({ length: n }, (_, i) => {
    const e = ctx + CTX_TCM_TABLE + i * TCMB_BYTES;
    return { ptr: view.getUint32(e + TCMB_PTR, true), size: view.getUint32(e + TCMB_SIZE, true), kind: view.getInt32(e + TCMB_KIND, true), site: view.getInt32(e + TCMB_SITE, true) };
  });
}

/** A TCM read of [addr, addr + bytes) whose byte `bad` was never written. */
function unwrittenRead(addr: number, bytes: number, bad: number, site: OwnershipSite, context: OwnershipContext): GpsimdError {
  const view = new DataView(context.memory.buffer);
  const blocks = liveBlocks(view, site.ctx);
  const tcm = view.getUint32(site.ctx + CTX_TCM_BASE, true); // the host rewrites it before every launch
  // A byte is written when the written-map says so, or the summary does for its whole 64-byte granule (assembly/ownership.ts).
  const written = (p: number) => p - tcm >= 0 && p - tcm < TCM_ARENA_BYTES
    && (view.getUint8(p + TCM_SHADOW_DELTA) !== 0 || view.getUint8(tcm + TCM_SUMMARY_DELTA + Math.floor((p - tcm) / TCM_SUMMARY_GRANULE)) !== 0);
  const where = `${site.op} (core ${site.core})`;
  // The block the bad byte is in, else the nearest one that starts before it (a read past its end).
  const inside = blocks.find((blk) => bad >= blk.ptr && bad < blk.ptr + blk.size);
  const before = inside ?? blocks.filter((blk) => blk.ptr <= bad).at(-1);
  if (!before) {
    return new TcmRangeError("E_TCM_READ_OUTSIDE_BLOCK", `${where}: read of ${bytes} bytes at TCM+${hex(addr - tcm)} is in no live tcm_malloc block: TCM outside the blocks holds nothing the kernel wrote`, {
      op: site.op, core: site.core, details: { address: addr, bytes, tcmOffset: addr - tcm, firstUnwritten: bad },
    });
  }
  const allocated = before.kind === 0 ? context.allocationPlace(before.site) : null;
  // Where the written part ends: the end of the written bytes just before the first unwritten byte read.
  let writtenEnd = Math.min(bad, before.ptr + before.size);
  while (writtenEnd > before.ptr && !written(writtenEnd - 1)) writtenEnd--;
  const rel = (p: number) => p - before.ptr;
  const blockText = `the ${before.size}-byte TCM block at TCM+${hex(before.ptr - tcm)}${allocated?.file ? ` (tcm_malloc at ${placeText(allocated)})` : before.kind === 1 ? " (a stream accessor's cache)" : ""}`;
  const details = {
    address: addr, bytes, range: [rel(addr), rel(addr) + bytes], firstUnwritten: rel(bad), writtenEnd: rel(writtenEnd),
    block: { address: before.ptr, tcmOffset: before.ptr - tcm, bytes: before.size, ...(allocated?.file ? { allocatedAt: { file: allocated.file, line: allocated.line, column: allocated.column } } : {}) },
  };
  const writtenText = writtenEnd === before.ptr ? "nothing of it before that byte was written" : `its written part ends at byte ${rel(writtenEnd)}`;
  if (inside) {
    return new UninitializedTcmError("E_TCM_UNWRITTEN_READ", `${where}: read of bytes [${rel(addr)}, ${rel(addr) + bytes}) of ${blockText}, but byte ${rel(bad)} was never written since tcm_malloc (${writtenText}; copies into TCM and stores write it)`, {
      op: site.op, core: site.core, details,
    });
  }
  return new TcmRangeError("E_TCM_READ_OUTSIDE_BLOCK", `${where}: read of bytes [${rel(addr)}, ${rel(addr) + bytes}) of ${blockText}: byte ${rel(bad)} is past its end (byte ${before.size}); ${writtenText}`, {
    op: site.op, core: site.core, details: { ...details, pastEnd: true },
  });
}

/**
 * A kernel store into the TCM arena outside every live block's footprint (its bytes, guard bytes and rounding): free
 * TCM, or the room between two blocks. Names the nearest block (the one that ends last before the store, else the
 * first after it), how far past its end or before its start the store lands, and its tcm_malloc line.
 */
function storeOutsideBlocks(addr: number, bytes: number, tcm: number, site: OwnershipSite, context: OwnershipContext, view: DataView): GpsimdError {
  const blocks = liveBlocks(view, site.ctx);
  const where = `${site.op} (core ${site.core})`;
  const footprint = (blk: Block) => (blk.size + TCM_GUARD_BYTES + TCM_ALIGN - 1) & ~(TCM_ALIGN - 1);
  const before = blocks.filter((blk) => blk.ptr <= addr).at(-1);
  const after = blocks.find((blk) => blk.ptr > addr);
  const near = before ?? after;
  const details: Record<string, unknown> = { address: addr, bytes, tcmOffset: addr - tcm };
  if (!near) {
    return new TcmRangeError("E_TCM_WRITE_OUTSIDE_BLOCK", `${where}: store of ${bytes} bytes at TCM+${hex(addr - tcm)} is in no live tcm_malloc block (no block is live): a kernel may store only into the blocks tcm_malloc handed out`, {
      op: site.op, core: site.core, details,
    });
  }
  const allocated = near.kind === 0 ? context.allocationPlace(near.site) : null;
  const blockText = `the ${near.size}-byte TCM block at TCM+${hex(near.ptr - tcm)}${allocated?.file ? ` (tcm_malloc at ${placeText(allocated)})` : near.kind === 1 ? " (a stream accessor's cache)" : ""}`;
  const off = addr - near.ptr;
  const relation = near !== before ? `${near.ptr - addr} bytes before its start`
    : off < footprint(near) ? `byte ${off} of it and runs past its ${footprint(near) - near.size} guard bytes (bytes ${near.size} to ${footprint(near) - 1})`
      : `byte ${off} of it, ${off - near.size} bytes past its end (byte ${near.size}) and past its ${footprint(near) - near.size} guard bytes`;
  details.block = { address: near.ptr, tcmOffset: near.ptr - tcm, bytes: near.size, ...(allocated?.file ? { allocatedAt: { file: allocated.file, line: allocated.line, column: allocated.column } } : {}) };
  details.offset = addr - near.ptr;
  return new TcmRangeError("E_TCM_WRITE_OUTSIDE_BLOCK", `${where}: store of ${bytes} bytes at TCM+${hex(addr - tcm)} is in no live tcm_malloc block: the nearest is ${blockText}, and the store is at ${relation}; a kernel may store only into the blocks tcm_malloc handed out`, {
    op: site.op, core: site.core, details,
  });
}

/** What the address range [a, e) of a refused store is, as the message names it. */
function whatIsHit(a: number, e: number, site: OwnershipSite, view: DataView): { text: string; kind: string } {
  if (a < 0x10000) return { text: "the null page (below 0x10000), as through a null or uninitialised pointer", kind: "null" };
  if (a < site.ctx + CTX_HEADER_BYTES && e > site.ctx) return { text: `core ${site.core}'s context block, which only the kernel library and the host write`, kind: "context" };
  const maps = view.getUint32(site.ctx + CTX_TCM_BASE, true) + TCM_SHADOW_DELTA;
  if (a < maps + TCM_CHECK_MAPS_BYTES && e > maps) return { text: `core ${site.core}'s TCM written-map, which only the kernel library writes`, kind: "context" };
  const slots = site.kernel.params.flatMap((p, i) => (p.kind === "tensor" ? [i] : []));
  const dst = view.getUint32(site.ctx + CTX_DST, true);
  const descs = [...slots.map((s) => ({ slot: s, at: site.ctx + CTX_DESC + s * DESC_BYTES })), ...(dst ? [{ slot: -1, at: dst }] : [])];
  for (const { slot, at } of descs) {
    let bytes: number;
    try { bytes = dtypeInfo(dtypeFromScalarType(view.getInt32(at + TD_DTYPE, true))).bytes; } catch { continue; }
    const start = view.getUint32(at + TD_DATA, true);
    const end = start + Number(view.getBigInt64(at + TD_NUMEL, true)) * bytes;
    if (a < end && e > start) {
      const readOnly = (view.getInt32(at + TD_FLAGS, true) & TDF_READ_ONLY) !== 0;
      return readOnly
        ? { text: `tensor ${site.tensorName(slot)} (read-only input)`, kind: "input" }
        : { text: `${site.tensorName(slot)}, past its end`, kind: "tensor" };
    }
  }
  const lib = staticDataAt(a);
  if (lib) return { text: `library ${lib.name}'s static data [${hex(lib.base)}, ${hex(lib.base + lib.bytes)})`, kind: "statics" };
  return { text: "memory this call does not own (another call's tensor, another core's memory or free device memory)", kind: "unknown" };
}

/** A kernel store of [addr, addr + bytes) outside what the call owns. */
function foreignStore(addr: number, bytes: number, site: OwnershipSite, context: OwnershipContext): GpsimdError {
  const view = new DataView(context.memory.buffer);
  const tcm = view.getUint32(site.ctx + CTX_TCM_BASE, true);
  if (addr < tcm + TCM_ARENA_BYTES && addr + bytes > tcm) return storeOutsideBlocks(addr, bytes, tcm, site, context, view);
  const hit = whatIsHit(addr, addr + bytes, site, view);
  const own = `its output and writable tensors, its TCM blocks, its core's kernel heap and stack, and its library's static data [${hex(context.statics.base)}, ${hex(context.statics.base + context.statics.bytes)})`;
  return new KernelTamperError("E_FOREIGN_STORE", `${site.op} (core ${site.core}): store of ${bytes} bytes at ${hex(addr)} into ${hit.text}; a kernel may write only ${own}`, {
    op: site.op, core: site.core, details: { address: addr, bytes, hit: hit.kind, what: hit.text },
  });
}
