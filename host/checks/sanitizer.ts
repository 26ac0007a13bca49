// Sanitize mode: a library built with Binaryen's instrument-memory pass calls
// env.load_ptr / env.store_ptr with the address of every raw load and store
// (the kernel's and the kernel library's own; memory.copy and memory.fill are
// not instrumented), and env.load_val_* / env.store_val_* with every value.
// The address hooks check that the kernel stays inside what it owns: its
// core's private block, the library's static data and the tensors of the call
// (inputs read-only). The value hooks pass values through unchanged.
//
// The regions are computed once per run, at its first access, from the host's
// descriptors (for a core of the pool, from the launch template, which the
// kernel cannot write). Each access is then checked in wasm against four
// blocks (sanitizer-fast-path.ts); only the rest comes here.
import { SanitizerError } from "./errors.js";
import { dtypeInfo, type ScalarType } from "../device/dtype.js";
import {
  CTX_HEADER_BYTES, CTX_HEAP_END, CTX_DST, CTX_DESC, DESC_BYTES, MAX_TENSORS,
  TD_DATA, TD_DTYPE, TD_NUMEL, TD_FLAGS, TD_SLOT, TDF_READ_ONLY,
} from "../device/layout.js";
import { FastPath } from "./sanitizer-fast-path.js";
import type { KernelInstance, CoreSite } from "../cores/kernel-instance.js";

/** Addresses below this are the null page: device memory never hands them out. */
const NULL_PAGE_END = 65536;
/** Bytes of a launch template (what the pool allocates for it): header fields and the descriptors. */
const TEMPLATE_BYTES = CTX_DESC + MAX_TENSORS * DESC_BYTES;

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
}

/** One block the kernel may touch. */
interface Region { start: number; end: number; writable: boolean; input: boolean; what: () => string; }

/** True when a module was built in sanitize mode (it imports the instrumentation's hooks). */
export function isSanitized(module: WebAssembly.Module): boolean {
  return WebAssembly.Module.imports(module).some((i) => i.module === "env" && i.name === "load_ptr");
}

const hex = (n: number) => `0x${n.toString(16)}`;
const span = (r: { start: number; end: number }) => `[${hex(r.start)}, ${hex(r.end)})`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Checks one kernel instance's loads and stores against the regions of the run in progress. */
class Sanitizer {
  /** The per-access check, in wasm; it calls miss() for what its blocks do not accept. */
  readonly fast: FastPath;
  /** The site the regions were computed for (null: no kernel running, as in module start code). */
  private site: CoreSite | null = null;
  /** A run started since the regions were computed. */
  private stale = true;
  private regions: Region[] = [];

  constructor(private readonly instance: KernelInstance, private readonly scope: SanitizerScope) {
    this.fast = new FastPath((addr, offset, bytes, store) => this.miss(addr, offset, bytes, store !== 0));
    instance.onRunStart(() => {
      this.stale = true;
      this.fast.clear();
    });
  }

  /** An access the fast path did not accept: (re)computes the regions if a run started, then checks them all. Returns addr. */
  private miss(addr: number, offset: number, bytes: number, store: boolean): number {
    const site = this.runningSite();
    if (this.stale || site !== this.site) this.compute(site);
    const a = (addr >>> 0) + (offset >>> 0);
    const e = a + bytes;
    for (const r of this.regions) {
      if (a >= r.start && e <= r.end) {
        if (store && !r.writable) throw this.error(a, bytes, store, `is inside ${r.what()}${r.input ? ", an input: inputs are read-only" : ", which is read-only"}`, "E_SANITIZE_READ_ONLY");
        this.fast.accept(store ? "write" : "read", r.start, r.end); // the next access is likely nearby
        return addr;
      }
    }
    throw this.error(a, bytes, store, this.whatIsAt(a, e), "E_SANITIZE");
  }

  private runningSite(): CoreSite | null {
    try { return this.instance.currentSite(); } catch { return null; }
  }

  /** The regions of the run at `site`: read once, at its first access, and handed to the fast path. */
  private compute(site: CoreSite | null): void {
    this.site = site;
    this.stale = false;
    this.fast.clear();
    const { staticBase, staticBytes } = this.scope;
    this.fast.accept("static", staticBase, staticBase + staticBytes);
    this.regions = [{ start: staticBase, end: staticBase + staticBytes, writable: true, input: false, what: () => "the library's static data" }];
    if (!site) return; // module start code runs before any kernel: it may touch only static data
    const view = new DataView(this.scope.memory.buffer);
    const heapEnd = view.getUint32(site.ctx + CTX_HEAP_END, true);
    const privateEnd = heapEnd > site.ctx ? heapEnd : site.ctx + CTX_HEADER_BYTES;
    this.fast.accept("private", site.ctx, privateEnd);
    this.regions.unshift({ start: site.ctx, end: privateEnd, writable: true, input: false, what: () => `core ${site.core}'s private memory (context block, TCM, printf ring, kernel heap)` });
    const template = this.scope.template?.(site) ?? 0;
    if (template) this.regions.push({ start: template, end: template + TEMPLATE_BYTES, writable: false, input: false, what: () => "the launch's template context" });
    // The argument slots that hold tensors, then the output (CTX_DST); other descriptors may be left from earlier calls.
    const list = template || site.ctx;
    const slots = site.kernel.params.flatMap((p, i) => (p.kind === "tensor" ? [list + CTX_DESC + i * DESC_BYTES] : []));
    const dst = view.getUint32(list + CTX_DST, true);
    for (const d of dst ? [...slots, dst] : slots) {
      let elementBytes: number;
      try { elementBytes = dtypeInfo(view.getInt32(d + TD_DTYPE, true) as ScalarType).bytes; } catch { continue; }
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
    const op = site?.op ?? "(module start)";
    const where = site ? `${op} (core ${site.core})` : "the kernel module's start code";
    const allowed = this.regions.filter((r) => r.start < r.end).map((r) => `${r.what()} ${span(r)}${r.writable ? "" : " read-only"}`).join(", ");
    const kind = store ? "store" : "load";
    return new SanitizerError(code, `${where}: sanitizer: ${kind} of ${plural(bytes, "byte")} at ${hex(a)} ${what}; this kernel may reach only ${allowed}`, {
      op: site?.op, core: site?.core, details: { access: kind, address: a, bytes, allowed: this.regions.map((r) => ({ start: r.start, end: r.end, writable: r.writable, what: r.what() })) },
    });
  }
}

/** The imports a sanitize-mode module needs (for KernelInstance's extraImports). */
export function sanitizerImports(scope: SanitizerScope): (instance: KernelInstance) => Record<string, Record<string, WebAssembly.ImportValue>> {
  return (instance) => {
    const { hooks } = new Sanitizer(instance, scope).fast;
    return {
      env: {
        load_ptr: hooks.load_ptr, store_ptr: hooks.store_ptr,
        load_val_i32: hooks.val_i32, load_val_i64: hooks.val_i64, load_val_f32: hooks.val_f32, load_val_f64: hooks.val_f64,
        store_val_i32: hooks.val_i32, store_val_i64: hooks.val_i64, store_val_f32: hooks.val_f32, store_val_f64: hooks.val_f64,
        // (id, delta) -> delta and (id, result) -> result: growing memory is not a load or store.
        memory_grow_pre: hooks.val_i32, memory_grow_post: hooks.val_i32,
      },
    };
  };
}
