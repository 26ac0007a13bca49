// Sanitize mode: a library built with build/sanitize-pass.ts checks the
// address of every memory instruction (loads, stores, atomics, SIMD lane and
// splat forms, memory.copy/fill/init with their run-time lengths) before it
// runs. The checks keep the kernel inside what it owns: its core's private
// memory, the library's static data and the tensors of the call (inputs
// read-only). Inside its core's private memory:
// - the context block is read-only to kernel code; the kernel library's own
//   code (its runtime functions) may write its bookkeeping, but not the fields
//   the host trusts (cpu id and count, flags, output, heap and TCM bases,
//   printf ring, stop and launch words, the call's tensor descriptors), except
//   while the core enters, before the kernel starts;
// - in the TCM arena only blocks tcm_malloc handed out and not yet freed are
//   reachable (the kernel library also reaches their guard bytes);
// - the printf ring and the kernel heap are free to use, but a kernel load of
//   heap bytes (the C++ stack is on the heap) none of which anything wrote
//   since the call started is E_SANITIZE_UNINIT (a load with some written
//   bytes passes: clang copies a struct with its padding in wide loads): a bit per heap byte says which were
//   written (host/device/heap-written-map.ts), set by every store, the kernel
//   library's too, and cleared for each block the heap's allocator hands out
//   (a block freed and handed out again is unwritten); a memory.copy carries its source's bits to its
//   destination instead of checking them (a struct's padding, a partly
//   filled buffer copied whole), so the read that uses them is named.
//
// The regions are computed once per run, at its first access, from the host's
// descriptors (for a core of the pool, from the launch template, which the
// kernel cannot write). Each access is then checked in wasm
// (sanitizer-fast-path.ts); only the rest comes here.
import { SanitizerError } from "./errors.js";
import { dtypeInfo, dtypeFromScalarType } from "../device/dtype.js";
import {
  CTX_HEADER_BYTES, CTX_HEAP_END, CTX_DST, CTX_DESC, DESC_BYTES, MAX_TENSORS, CTX_NUM_TENSORS, CTX_TCM_BASE, CTX_PRINTF_HEAD, CTX_STOP,
  CTX_TCM_TABLE, CTX_TCM_NBLOCKS, CTX_FREED, CTX_FREED_NEXT, MAX_FREED, MAX_TCM_BLOCKS, TCMB_BYTES, TCMB_PTR, TCMB_SIZE,
  TCM_ARENA_BYTES, TCM_GUARD_BYTES, TCM_ALIGN, TD_DATA, TD_DTYPE, TD_NUMEL, TD_FLAGS, TD_SLOT, TD_POLICY, TD_SIZES, TDF_READ_ONLY,
} from "../device/layout.js";
import { FastPath, CHECKS, SANITIZE_MODULE, KIND_STORE, KIND_RUNTIME, KIND_BULK } from "./sanitizer-fast-path.js";
import { HEAP_MARKED_END, HEAP_WRITTEN_BITS, heapWrittenMapAt } from "../device/heap-written-map.js";
import { zeroer } from "../device/memory-fill.js";
import { CTX_HEAP_BASE } from "../device/layout.js";
import { currentStack, describePlace, functionName, type SourceLocator, type SourcePlace } from "./source-locator.js";
import type { KernelInstance, CoreSite } from "../cores/kernel-instance.js";

/** Addresses below this are the null page: device memory never hands them out. */
const NULL_PAGE_END = 65536;
/** Bytes of a launch template (what the pool allocates for it): header fields and the descriptors. */
const TEMPLATE_BYTES = CTX_DESC + MAX_TENSORS * DESC_BYTES;

/** Fields of the context block header the host trusts: [offset, end, name]. Between them, the kernel library's bookkeeping. */
const TRUSTED_FIELDS: [number, number, string][] = [
  [0, 4, "cpu id"], [4, 8, "cpu count"], [8, 12, "flags"], [16, 20, "output descriptor address"], [20, 24, "heap base"],
  [24, 28, "heap end"], [28, 32, "TCM base"], [40, 44, "printf ring address"], [44, 48, "printf ring size"],
  [CTX_STOP, CTX_STOP + 4, "stop word"], [CTX_STOP + 4, CTX_STOP + 8, "launch word"],
];
/** In a descriptor of the call, the kernel library may write only its coherence bookkeeping (policy, stream and accessor counts). */
const DESC_BOOKKEEPING: [number, number] = [TD_POLICY, TD_SIZES];

/** One core's private block [start, end), to name addresses in another core's memory. */
export interface CoreBlock { core: number; start: number; end: number; }

/** What the sanitizer needs to know beyond the running core. */
export interface SanitizerScope {
  /** The device memory the kernel imports. */
  memory: WebAssembly.Memory;
  /** The library's static data block. */
  staticBase: number;
  staticBytes: number;
  /**
   * The launch template a core of the pool copies (its descriptors list the call's tensors, and the kernel may only
   * read it), or 0 when the core's own context block was prepared by the host (the main thread's core).
   */
  template?(site: CoreSite): number;
  /** Every core's private block in the current launch, to say whose memory an address is in. */
  coreBlocks?(): CoreBlock[];
  /** The library's source locator (null: no source map), to name the kernel line of a refused access. */
  locator?: SourceLocator | null;
}

/** One block the kernel may touch. */
interface Region { start: number; end: number; writable: boolean; input: boolean; what: () => string; }

/** True when a module was built in sanitize mode (it imports the instrumentation's checks). */
export function isSanitized(module: WebAssembly.Module): boolean {
  return WebAssembly.Module.imports(module).some((i) => i.module === SANITIZE_MODULE);
}

const hex = (n: number) => `0x${n.toString(16)}`;
const span = (r: { start: number; end: number }) => `[${hex(r.start)}, ${hex(r.end)})`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const roundUp = (n: number) => (n + TCM_ALIGN - 1) & ~(TCM_ALIGN - 1);

/** The first named wasm frame of a stack (the fast path's own frames are unnamed). */
const NAMED_WASM_FRAME = /^\s*at (\S+) \(wasm:\/\//m;

/**
 * The kernel function that made the access: the first named wasm frame of the stack, shown by its own name (asc
 * names functions by module path, "work/k/relu/relu_forward").
 */
function accessingFunction(stack: string): string | undefined {
  const frame = NAMED_WASM_FRAME.exec(stack);
  return frame?.[1].replace(/^[^<]*\//, "");
}

/**
 * The kernel statement that made the access: the kernel module's frames start at the first named wasm frame (the
 * fast path's frames, of another module, come before it), the innermost at the call of the check, which stands just
 * before the load or store it checks and carries its line; a check in the kernel library's code is named by the
 * kernel statement that called into it (SourceLocator.locateKernel).
 */
function accessingPlace(locator: SourceLocator, stack: string): SourcePlace | null {
  const frame = NAMED_WASM_FRAME.exec(stack);
  return frame ? locator.locateKernel(stack.slice(frame.index)) : null;
}

/** The running core's private memory, as the sanitizer divides it. */
interface CoreLayout { ctx: number; tcm: number; privateStart: number; privateEnd: number; hostDescriptors: number; }

/** The running core's kernel heap [base, end) and its written-map. */
interface HeapLayout { base: number; end: number; map: number; }

/** The heap of the core whose context block is at ctx, as the host wrote it for this launch. */
function heapLayout(view: DataView, ctx: number): HeapLayout {
  const base = view.getUint32(ctx + CTX_HEAP_BASE, true), end = view.getUint32(ctx + CTX_HEAP_END, true);
  return { base, end: Math.max(base, end), map: heapWrittenMapAt(end) };
}

/** AssemblyScript's heap blocks (assembly/rt/stub.ts): a u32 payload size, then the payload, 16-byte aligned. */
const BLOCK_OVERHEAD = 4, AL_MASK = 15;

/** Checks one kernel instance's memory accesses against the regions of the run in progress. */
class Sanitizer {
  /** The per-access check, in wasm; it calls miss() for what its blocks do not accept. */
  readonly fast: FastPath;
  /** The site the regions were computed for (null: no kernel running, as in module start code). */
  private site: CoreSite | null = null;
  /** A run started since the regions were computed. */
  private stale = true;
  /** The core is entering (the kernel library copies the launch into its context block): the kernel has not started. */
  private entering = false;
  private regions: Region[] = [];
  private core: CoreLayout | null = null;
  private heap: HeapLayout | null = null;
  /** The source of the kernel memory.copy being checked (its bulk_load came just before its bulk_store). */
  private copySource: { start: number; bytes: number } | null = null;

  constructor(private readonly instance: KernelInstance, private readonly scope: SanitizerScope) {
    this.fast = new FastPath(scope.memory, (addr, offset, bytes, kind) => this.miss(addr, offset, bytes, kind));
    instance.onRunStart(() => {
      this.stale = true;
      this.entering = true;
      this.fast.clear();
      this.copySource = null;
      this.forgetWrittenHeap();
    });
    instance.onKernelStart(() => { this.entering = false; });
  }

  /** Every heap byte unwritten for the run that starts: clears the bits the last run on this core set (the marked end says how far). */
  private forgetWrittenHeap(): void {
    const site = this.runningSite();
    if (!site) return;
    const view = new DataView(this.scope.memory.buffer);
    const { base, map } = heapLayout(view, site.ctx);
    const marked = view.getUint32(map + HEAP_MARKED_END, true);
    if (marked > base) zeroer(this.scope.memory)(map + HEAP_WRITTEN_BITS, Math.ceil((marked - base) / 8) + 1);
    view.setUint32(map + HEAP_MARKED_END, base, true);
  }

  /** Sets (written) or clears the bits of heap bytes [a, e). */
  private setBits(heap: HeapLayout, a: number, e: number, written: boolean): void {
    const bits = new Uint8Array(this.scope.memory.buffer, heap.map + HEAP_WRITTEN_BITS);
    let p = a - heap.base;
    const end = e - heap.base;
    for (; p < end && (p & 7) !== 0; p++) bits[p >> 3] = written ? bits[p >> 3] | (1 << (p & 7)) : bits[p >> 3] & ~(1 << (p & 7));
    const whole = (end - p) >> 3;
    if (whole > 0) { bits.fill(written ? 0xff : 0, p >> 3, (p >> 3) + whole); p += whole << 3; }
    for (; p < end; p++) bits[p >> 3] = written ? bits[p >> 3] | (1 << (p & 7)) : bits[p >> 3] & ~(1 << (p & 7));
  }

  /** Marks heap bytes [a, e) written (a store the fast path left to this side: longer than 16 bytes, or before the regions were set). */
  private markWritten(heap: HeapLayout, a: number, e: number): void {
    this.setBits(heap, a, e, true);
    const view = new DataView(this.scope.memory.buffer);
    if (e > view.getUint32(heap.map + HEAP_MARKED_END, true)) view.setUint32(heap.map + HEAP_MARKED_END, e, true);
  }

  /**
   * The heap's allocator handed out the block at ptr (its payload size is the word before it): its bytes are
   * unwritten, whatever a block freed there before held. Returns ptr.
   */
  allocated(ptr: number): number {
    const heap = this.heap, p = ptr >>> 0;
    if (!heap || p < heap.base + BLOCK_OVERHEAD || p >= heap.end) return ptr;
    const size = new DataView(this.scope.memory.buffer).getUint32(p - BLOCK_OVERHEAD, true);
    this.setBits(heap, p, Math.min(p + size, heap.end), false);
    return ptr;
  }

  /** The first byte of heap bytes [a, e) that no store wrote in this run, or -1. */
  private firstUnwritten(heap: HeapLayout, a: number, e: number): number {
    const bits = new Uint8Array(this.scope.memory.buffer, heap.map + HEAP_WRITTEN_BITS);
    for (let p = a - heap.base; p < e - heap.base; p++) if (!(bits[p >> 3] & (1 << (p & 7)))) return p + heap.base;
    return -1;
  }

  /** Whether no byte of heap bytes [a, e) was written in this run. */
  private noneWritten(heap: HeapLayout, a: number, e: number): boolean {
    const bits = new Uint8Array(this.scope.memory.buffer, heap.map + HEAP_WRITTEN_BITS);
    for (let p = a - heap.base; p < e - heap.base; p++) if (bits[p >> 3] & (1 << (p & 7))) return false;
    return true;
  }

  /** A kernel memory.copy's source [a, a + bytes) was checked; its destination comes next (afterBulkStore). */
  afterBulkLoad(addr: number, offset: number, bytes: number): void {
    this.copySource = { start: (addr >>> 0) + (offset >>> 0), bytes: bytes >>> 0 };
  }

  /**
   * A kernel memory.copy, memory.fill or memory.init wrote [a, a + bytes) (the store check marked it written): a
   * copy from the heap carries its source's bits over, so bytes copied from where nothing wrote stay unwritten.
   */
  afterBulkStore(addr: number, offset: number, bytes: number): void {
    const source = this.copySource;
    this.copySource = null;
    const heap = this.heap, n = bytes >>> 0, a = (addr >>> 0) + (offset >>> 0);
    if (!source || !heap || source.bytes !== n || n === 0) return;
    const inHeap = (p: number) => p >= heap.base && p + n <= heap.end;
    if (!inHeap(source.start) || !inHeap(a)) return;
    if (this.firstUnwritten(heap, source.start, source.start + n) < 0) return; // all written: the store marked the destination so
    const bits = new Uint8Array(this.scope.memory.buffer, heap.map + HEAP_WRITTEN_BITS);
    const written = Uint8Array.from({ length: n }, (_, i) => { const p = source.start - heap.base + i; return (bits[p >> 3] >> (p & 7)) & 1; });
    for (let i = 0; i < n; i++) {
      const p = a - heap.base + i;
      if (written[i]) bits[p >> 3] |= 1 << (p & 7);
      else bits[p >> 3] &= ~(1 << (p & 7));
    }
  }

  /** An access the fast path did not accept: (re)computes the regions if a run started, then checks them all. Returns addr. */
  private miss(addr: number, offset: number, bytes: number, kind: number): number {
    const store = (kind & KIND_STORE) !== 0, runtime = (kind & KIND_RUNTIME) !== 0;
    const site = this.runningSite();
    if (this.stale || site !== this.site) this.compute(site);
    const a = (addr >>> 0) + (offset >>> 0);
    const size = bytes >>> 0;
    const e = a + size;
    if (size === 0) return addr; // touches nothing (a bulk instruction of length 0)
    const heap = this.heap;
    if (heap && a >= heap.base && e <= heap.end) {
      if (store) this.markWritten(heap, a, e);
      else if (!runtime && !(kind & KIND_BULK) && this.noneWritten(heap, a, e)) throw this.uninitError(heap, a, size, a);
      return addr;
    }
    const core = this.core;
    if (core && a < core.ctx + CTX_HEADER_BYTES && e > core.ctx) {
      if (a < core.ctx || e > core.ctx + CTX_HEADER_BYTES) throw this.error(a, size, store, `reaches outside core ${this.site!.core}'s context block ${span({ start: core.ctx, end: core.ctx + CTX_HEADER_BYTES })}`, "E_SANITIZE");
      if (!store) return addr;
      const field = this.trustedField(core, a - core.ctx, e - core.ctx);
      if (!runtime) throw this.error(a, size, store, `is inside core ${this.site!.core}'s context block (${field ?? "the kernel library's bookkeeping"}), which the kernel may not write`, "E_SANITIZE_READ_ONLY");
      if (field && !this.entering) throw this.error(a, size, store, `is the context block's ${field}, which only the host writes`, "E_SANITIZE_READ_ONLY");
      return addr;
    }
    if (core && a < core.tcm + TCM_ARENA_BYTES && e > core.tcm) throw this.error(a, size, store, this.whatInTcm(core, a, e, store, runtime), "E_SANITIZE");
    for (const r of this.regions) {
      if (a >= r.start && e <= r.end) {
        if (store && !r.writable) throw this.error(a, size, store, `is inside ${r.what()}${r.input ? ", an input: inputs are read-only" : ", which is read-only"}`, "E_SANITIZE_READ_ONLY");
        this.fast.accept(store ? "write" : "read", r.start, r.end); // the next access is likely nearby
        return addr;
      }
    }
    throw this.error(a, size, store, this.whatIsAt(a, e), "E_SANITIZE");
  }

  private runningSite(): CoreSite | null {
    try { return this.instance.currentSite(); } catch { return null; }
  }

  /** The name of a trusted field that bytes [from, to) of the context block overlap, or null. */
  private trustedField(core: CoreLayout, from: number, to: number): string | null {
    for (const [start, end, name] of TRUSTED_FIELDS) if (from < end && to > start) return name;
    const descEnd = CTX_DESC + core.hostDescriptors * DESC_BYTES;
    if (from < descEnd && to > CTX_DESC) {
      const slot = Math.floor((Math.max(from, CTX_DESC) - CTX_DESC) / DESC_BYTES);
      const field = from - CTX_DESC - slot * DESC_BYTES;
      const inBookkeeping = field >= DESC_BOOKKEEPING[0] && to - CTX_DESC - slot * DESC_BYTES <= DESC_BOOKKEEPING[1];
      if (!inBookkeeping) return `descriptor of ${this.site!.tensorName(this.descriptorSlot(core, slot))}`;
    }
    return null;
  }

  /** The TD_SLOT of host descriptor number `i` (argument position, or -1 for the output). */
  private descriptorSlot(core: CoreLayout, i: number): number {
    return new DataView(this.scope.memory.buffer).getInt32(core.ctx + CTX_DESC + i * DESC_BYTES + TD_SLOT, true);
  }

  /**
   * Why an access [a, e) inside the TCM arena is refused: freed, guard bytes, past a block, or never handed out.
   * Past a block it names the bytes relative to the block and the first one past its end: the exact first byte
   * a store would have overwritten (the guard check at tcm_free only sees bytes whose value changed).
   */
  private whatInTcm(core: CoreLayout, a: number, e: number, store: boolean, runtime: boolean): string {
    const view = new DataView(this.scope.memory.buffer);
    const n = Math.min(view.getInt32(core.ctx + CTX_TCM_NBLOCKS, true), MAX_TCM_BLOCKS);
    const where = `core ${this.site!.core}'s TCM`;
    for (let i = 0; i < n; i++) {
      const entry = core.ctx + CTX_TCM_TABLE + i * TCMB_BYTES;
      const start = view.getUint32(entry + TCMB_PTR, true), blockSize = view.getUint32(entry + TCMB_SIZE, true);
      const end = start + (runtime ? roundUp(blockSize + TCM_GUARD_BYTES) : blockSize);
      const past = () => `: it ${store ? "writes" : "reads"} bytes ${a - start} to ${e - start - 1} of the block, which has ${plural(blockSize, "byte")} (allowed: bytes 0 to ${blockSize - 1}); the first past its end is byte ${Math.max(a - start, blockSize)}`;
      if (a >= start && a < end) return `reaches past the end of ${where} block ${span({ start, end: start + blockSize })}${past()}`;
      if (a >= start + blockSize && a < start + roundUp(blockSize + TCM_GUARD_BYTES)) return `is in the guard bytes after ${where} block ${span({ start, end: start + blockSize })}${past()}`;
    }
    const freed = Math.min(view.getInt32(core.ctx + CTX_FREED_NEXT, true), MAX_FREED);
    let block = 0;
    for (let i = 0; i < freed; i++) {
      const p = view.getUint32(core.ctx + CTX_FREED + 4 * i, true);
      if (p <= a && p > block) block = p;
    }
    return block
      ? `is inside freed TCM (${where}: the block at ${hex(block)} was released by tcm_free; TCM is unreachable until tcm_malloc hands it out again)`
      : `is inside ${where} arena ${span({ start: core.tcm, end: core.tcm + TCM_ARENA_BYTES })} but in no block tcm_malloc handed out`;
  }

  /** The regions of the run at `site`: read once, at its first access (before the kernel starts), and handed to the fast path. */
  private compute(site: CoreSite | null): void {
    this.site = site;
    this.stale = false;
    this.fast.clear();
    const { staticBase, staticBytes } = this.scope;
    this.fast.accept("static", staticBase, staticBase + staticBytes);
    this.regions = [{ start: staticBase, end: staticBase + staticBytes, writable: true, input: false, what: () => "the library's static data" }];
    this.core = null;
    this.heap = null;
    if (!site) return; // module start code runs before any kernel: it may touch only static data
    const view = new DataView(this.scope.memory.buffer);
    const template = this.scope.template?.(site) ?? 0;
    const list = template || site.ctx;
    // The host wrote these (the kernel has not run yet); the checks keep the kernel from changing them.
    const tcm = view.getUint32(site.ctx + CTX_TCM_BASE, true);
    const heapEnd = view.getUint32(site.ctx + CTX_HEAP_END, true);
    const core: CoreLayout = {
      ctx: site.ctx, tcm, privateStart: tcm + TCM_ARENA_BYTES, privateEnd: Math.max(heapEnd, tcm + TCM_ARENA_BYTES),
      hostDescriptors: Math.min(Math.max(view.getInt32(list + CTX_NUM_TENSORS, true), 0), MAX_TENSORS),
    };
    this.core = core;
    this.heap = heapLayout(view, site.ctx);
    this.fast.heap(this.heap.base, this.heap.end, this.heap.map);
    this.fast.core(site.ctx);
    this.fast.accept("private", core.privateStart, core.privateEnd);
    this.fast.accept("header", site.ctx, site.ctx + CTX_HEADER_BYTES);
    this.fast.accept("window", site.ctx + CTX_PRINTF_HEAD, site.ctx + CTX_STOP);
    this.fast.accept("descWindow", site.ctx + CTX_DESC + core.hostDescriptors * DESC_BYTES, site.ctx + CTX_HEADER_BYTES);
    this.fast.accept("tcm", tcm, tcm + TCM_ARENA_BYTES);
    this.regions.unshift({ start: core.privateStart, end: core.privateEnd, writable: true, input: false, what: () => `core ${site.core}'s private memory (printf ring, kernel heap)` });
    if (template) this.regions.push({ start: template, end: template + TEMPLATE_BYTES, writable: false, input: false, what: () => "the launch's template context" });
    // The argument slots that hold tensors, then the output (CTX_DST); other descriptors may be left from earlier calls.
    const slots = site.kernel.params.flatMap((p, i) => (p.kind === "tensor" ? [list + CTX_DESC + i * DESC_BYTES] : []));
    const dst = view.getUint32(list + CTX_DST, true);
    for (const d of dst ? [...slots, dst] : slots) {
      let elementBytes: number;
      try { elementBytes = dtypeInfo(dtypeFromScalarType(view.getInt32(d + TD_DTYPE, true))).bytes; } catch { continue; }
      const start = view.getUint32(d + TD_DATA, true);
      const end = start + Number(view.getBigInt64(d + TD_NUMEL, true)) * elementBytes;
      const slot = view.getInt32(d + TD_SLOT, true);
      const readOnly = (view.getInt32(d + TD_FLAGS, true) & TDF_READ_ONLY) !== 0;
      this.regions.push({ start, end, writable: !readOnly, input: readOnly, what: () => site.tensorName(slot) });
    }
  }
  /** What an address the kernel may not reach is. */
  private whatIsAt(a: number, e: number): string {
    if (a < NULL_PAGE_END) return "is in the null page (below 0x10000), as through a null or uninitialised pointer";
    const partly = this.regions.find((r) => a < r.end && e > r.start);
    if (partly) return `reaches outside ${partly.what()} ${span(partly)}`;
    if (e > this.scope.memory.buffer.byteLength) return `is past the end of device memory (${hex(this.scope.memory.buffer.byteLength)})`;
    const other = this.scope.coreBlocks?.().find((b) => a >= b.start && a < b.end && b.start !== this.site?.ctx);
    if (other) return `is inside core ${other.core}'s private memory ${span(other)}`;
    return "is inside no tensor of this call (another tensor, another library's data or free device memory)";
  }

  private error(a: number, bytes: number, store: boolean, what: string, code: string): SanitizerError {
    const site = this.site;
    const kind = store ? "store" : "load";
    const core = this.core;
    const allowed = [
      ...this.regions.filter((r) => r.start < r.end).map((r) => `${r.what()} ${span(r)}${r.writable ? "" : " read-only"}`),
      ...(core && site ? [`core ${site.core}'s context block ${span({ start: core.ctx, end: core.ctx + CTX_HEADER_BYTES })} read-only`, `core ${site.core}'s live TCM blocks`] : []),
    ].join(", ");
    const { fn, at, place } = this.accessAt();
    return new SanitizerError(code, `${this.where()}: sanitizer: ${kind} of ${plural(bytes, "byte")} at ${hex(a)} ${what}${at}; this kernel may reach only ${allowed}${!at && fn ? `; the access is in ${fn}` : ""}`, {
      op: site?.op, core: site?.core, details: { access: kind, address: a, bytes, what, function: fn, ...place, allowed: this.regions.map((r) => ({ start: r.start, end: r.end, writable: r.writable, what: r.what() })) },
    });
  }

  /**
   * A kernel load of heap bytes no store wrote in this call: names the core, what the bytes are (the C++ stack, a
   * heap block and the bytes of it read, or the heap past its blocks) and the load's statement.
   */
  private uninitError(heap: HeapLayout, a: number, bytes: number, first: number): SanitizerError {
    const site = this.site;
    const e = a + bytes;
    let last = first;
    while (last + 1 < e && this.firstUnwritten(heap, last + 1, last + 2) >= 0) last++;
    const never = first === last ? `byte ${hex(first)}` : `bytes ${hex(first)} to ${hex(last)}`;
    const region = this.heapRegionOf(heap, a);
    const { fn, at, place } = this.accessAt();
    const where = `${region.what}${region.start !== undefined ? ` ${span({ start: region.start, end: region.end! })}` : ""}`;
    // A stack frame is found from the top, where the stack starts; a block's bytes from its start.
    const within = region.start === undefined ? ""
      : region.kind === "stack" ? ` (${first === last ? "the byte" : "bytes"} ${region.end! - first}${first === last ? "" : ` to ${region.end! - last}`} below its top)`
      : ` (bytes ${first - region.start} to ${last - region.start} of its ${plural(region.end! - region.start, "byte")})`;
    return new SanitizerError("E_SANITIZE_UNINIT", `${this.where()}: sanitizer: load of ${plural(bytes, "byte")} at ${hex(a)} reads ${never}${within} of ${where}, which nothing wrote in this call: ${region.why}${at}`, {
      op: site?.op, core: site?.core,
      details: { access: "load", address: a, bytes, region: region.kind, ...(region.start !== undefined ? { block: { start: region.start, end: region.end } } : {}), unwritten: { start: first, end: last + 1 }, function: fn, ...place },
    });
  }

  /** What heap address a is in: the C++ stack, a heap block (its payload), or the heap past the blocks. */
  private heapRegionOf(heap: HeapLayout, a: number): { kind: string; what: string; why: string; start?: number; end?: number } {
    const core = `core ${this.site?.core ?? 0}'s`;
    const limit = this.instance.globalValue("gpsimd_stack_limit"), top = this.instance.globalValue("gpsimd_stack_top");
    if (limit !== undefined && top !== undefined && limit < top && a >= limit && a < top) {
      return { kind: "stack", what: `${core} C++ stack`, start: limit, end: top, why: "a local variable or array read before it was written (its value is whatever the stack held: undefined on the device)" };
    }
    const view = new DataView(this.scope.memory.buffer);
    for (let p = (((heap.base + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) >>> 0) - BLOCK_OVERHEAD; p + BLOCK_OVERHEAD <= heap.end;) {
      const size = view.getUint32(p, true), start = p + BLOCK_OVERHEAD;
      if (size === 0 || start + size > heap.end) break;
      if (a >= start && a < start + size) {
        return { kind: "heap block", what: `a heap block of ${core} kernel heap`, start, end: start + size, why: "memory from malloc, new or heap.alloc holds nothing until it is written (undefined on the device)" };
      }
      p = start + size;
    }
    return { kind: "heap", what: `${core} kernel heap`, why: "read before anything wrote it (undefined on the device)" };
  }

  /**
   * Where the refused access is (error paths only: a stack walk): its function, and with a source map the kernel
   * statement, as " at fn (file:line:column)" and as details (file, line, column).
   */
  private accessAt(): { fn: string | undefined; at: string; place: { file?: string; line?: number; column?: number } } {
    const stack = currentStack();
    const found = this.scope.locator ? accessingPlace(this.scope.locator, stack) : null;
    if (!found) return { fn: accessingFunction(stack), at: "", place: {} };
    return { fn: functionName(found), at: describePlace(found), place: found.file ? { file: found.file, line: found.line, column: found.column } : {} };
  }

  /** The kernel and core, for messages. */
  where(): string {
    const site = this.runningSite();
    return site ? `${site.op} (core ${site.core})` : "the kernel module's start code";
  }

  /** memory.grow in a kernel: device memory is shared by every core and the host, and only the host grows it. */
  grow(delta: number): number {
    const site = this.runningSite();
    const { fn, at, place } = this.accessAt();
    throw new SanitizerError("E_SANITIZE", `${this.where()}: sanitizer: memory.grow by ${plural(delta >>> 0, "page")}${at}: a kernel may not grow device memory (the host's allocator owns it); allocate from the kernel heap or TCM`, {
      op: site?.op, core: site?.core, details: { access: "memory.grow", pages: delta >>> 0, function: fn, ...place },
    });
  }
}

/** The imports a sanitize-mode module needs (for KernelInstance's extraImports): the checks build/sanitize-pass.ts calls. */
export function sanitizerImports(scope: SanitizerScope): (instance: KernelInstance) => Record<string, Record<string, WebAssembly.ImportValue>> {
  return (instance) => {
    const sanitizer = new Sanitizer(instance, scope);
    const hooks = sanitizer.fast.hooks;
    const checks = Object.fromEntries(CHECKS.map((name) => [name, hooks[name]]));
    // A kernel's bulk instructions: checked as a load and a store, then the written-map follows the copy (afterBulkStore).
    const bulk_load = (addr: number, offset: number, bytes: number) => { const r = hooks.bulk_load(addr, offset, bytes); sanitizer.afterBulkLoad(addr, offset, bytes); return r; };
    const bulk_store = (addr: number, offset: number, bytes: number) => { const r = hooks.store(addr, offset, bytes); sanitizer.afterBulkStore(addr, offset, bytes); return r; };
    return { [SANITIZE_MODULE]: { ...checks, bulk_load, bulk_store, memory_grow: (delta: number) => sanitizer.grow(delta), heap_alloc: (ptr: number) => sanitizer.allocated(ptr) } };
  };
}
