// Sanitize mode: a library built with Binaryen's instrument-memory pass calls
// env.load_ptr / env.store_ptr with the address of every raw load and store
// (the kernel's and the kernel library's own), and env.load_val_* /
// env.store_val_* with every value. Here the address calls check that the
// kernel stays inside what it owns: its core's private block, the library's
// static data and the tensors of the call (inputs read-only). The value calls
// pass values through unchanged.
import { SanitizerError } from "./errors.js";
import { dtypeInfo, type ScalarType } from "./dtype.js";
import {
  CTX_HEADER_BYTES, CTX_HEAP_END, CTX_DST, CTX_DESC, DESC_BYTES, MAX_TENSORS,
  TD_DATA, TD_DTYPE, TD_NUMEL, TD_FLAGS, TD_SLOT, TDF_READ_ONLY,
} from "./layout.js";
import type { KernelInstance, CoreSite } from "./kernel-instance.js";

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
   * The context block whose descriptors list the call's tensors: the launch template a multicore core copies
   * (it is read-only to the kernel, so what it lists cannot be changed by the kernel), or 0 for the core's own block.
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
  /** The site the regions were computed for (null: none yet, or no kernel running). */
  private site: CoreSite | null = null;
  private computed = false;
  private regions: Region[] = [];
  // The private block and the static block, unpacked for the common case.
  private privLo = 0; private privHi = 0;
  private statLo: number; private statHi: number;
  // The region that last matched, checked next.
  private hitLo = 0; private hitHi = 0; private hitWritable = false;

  constructor(private readonly instance: KernelInstance, private readonly scope: SanitizerScope) {
    this.statLo = scope.staticBase;
    this.statHi = scope.staticBase + scope.staticBytes;
  }

  /** Checks an access of `bytes` bytes at addr + offset; returns addr (the instrumented code accesses what this returns). */
  check(addr: number, offset: number, bytes: number, store: boolean): number {
    const site = this.runningSite();
    if (site !== this.site || !this.computed) this.compute(site);
    const a = (addr >>> 0) + (offset >>> 0);
    const e = a + bytes;
    if (a >= this.privLo && e <= this.privHi) return addr;
    if (a >= this.statLo && e <= this.statHi) return addr;
    if (a >= this.hitLo && e <= this.hitHi && (this.hitWritable || !store)) return addr;
    return this.checkRegions(addr, a, bytes, store);
  }

  private runningSite(): CoreSite | null {
    try { return this.instance.currentSite(); } catch { return null; }
  }

  /** The regions of the run at `site`: read once, at its first access. */
  private compute(site: CoreSite | null): void {
    this.site = site;
    this.computed = true;
    this.hitLo = this.hitHi = 0;
    const staticRegion: Region = { start: this.statLo, end: this.statHi, writable: true, input: false, what: () => "the library's static data" };
    if (!site) {
      // Module start code runs before any kernel: it may touch only static data.
      this.privLo = this.privHi = 0;
      this.regions = [staticRegion];
      return;
    }
    const view = new DataView(this.scope.memory.buffer);
    const heapEnd = view.getUint32(site.ctx + CTX_HEAP_END, true);
    this.privLo = site.ctx;
    this.privHi = heapEnd > site.ctx ? heapEnd : site.ctx + CTX_HEADER_BYTES;
    const priv: Region = { start: this.privLo, end: this.privHi, writable: true, input: false, what: () => `core ${site.core}'s private memory (context block, TCM, printf ring, kernel heap)` };
    this.regions = [priv, staticRegion];
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

  /** The slow path: the call's tensors (and the template), then the error. */
  private checkRegions(addr: number, a: number, bytes: number, store: boolean): number {
    const e = a + bytes;
    for (const r of this.regions) {
      if (a >= r.start && e <= r.end && r.start < r.end) {
        if (store && !r.writable) throw this.error(a, bytes, store, `is inside ${r.what()}${r.input ? ", an input: inputs are read-only" : ", which is read-only"}`, "E_SANITIZE_READ_ONLY");
        this.hitLo = r.start; this.hitHi = r.end; this.hitWritable = r.writable;
        return addr;
      }
    }
    throw this.error(a, bytes, store, this.whatIsAt(a, e), "E_SANITIZE");
  }

  /** What an address the kernel may not reach is. */
  private whatIsAt(a: number, e: number): string {
    if (a < NULL_PAGE_END) return "is in the null page (below 0x10000), as through a null or uninitialised pointer";
    const partly = this.regions.find((r) => a < r.end && e > r.start);
    if (partly) return `reaches outside ${partly.what()} ${span(partly)}`;
    if (e > this.scope.memory.buffer.byteLength) return `is past the end of device memory (${hex(this.scope.memory.buffer.byteLength)})`;
    const other = this.scope.coreBlocks?.().find((b) => a >= b.start && a < b.end && b.start !== this.privLo);
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

/** The value hooks of the instrumentation: the value passes through unchanged. */
const passValue = (_id: number, value: number | bigint) => value;

/** The imports a sanitize-mode module needs (for KernelInstance's extraImports). */
export function sanitizerImports(scope: SanitizerScope): (instance: KernelInstance) => Record<string, Record<string, WebAssembly.ImportValue>> {
  return (instance) => {
    const s = new Sanitizer(instance, scope);
    return {
      env: {
        load_ptr: (_id: number, bytes: number, offset: number, addr: number) => s.check(addr, offset, bytes, false),
        store_ptr: (_id: number, bytes: number, offset: number, addr: number) => s.check(addr, offset, bytes, true),
        load_val_i32: passValue, load_val_i64: passValue, load_val_f32: passValue, load_val_f64: passValue,
        store_val_i32: passValue, store_val_i64: passValue, store_val_f32: passValue, store_val_f64: passValue,
        memory_grow_pre: passValue, memory_grow_post: passValue,
      },
    };
  };
}
