// The sanitizer's per-access check as a tiny WebAssembly module, so that an
// instrumented kernel (build/sanitize-pass.ts) calls wasm, not JavaScript, on
// every memory access. It accepts an access [addr + offset, + bytes) when it
// lies in one of the blocks kept in globals, or in a live TCM block of the
// running core (read from the core's TCM block table, which only the kernel
// library writes), and calls the JavaScript `miss` for anything else. The
// module is assembled here byte by byte.
//
//   (func $load (param $addr i32) (param $offset i32) (param $bytes i32) (result i32)
//     a = u64(addr) + u64(offset); e = a + u64(bytes)
//     if (a >= tcmLo && e <= tcmHi)                           ;; the TCM arena: only live blocks
//       if (no tcm_free since they were cached) accept the two blocks the kernel touched last
//       for each entry of the block table: if (a >= ptr && e <= ptr + size) { cache it; return addr }
//       return miss(addr, offset, bytes, 0)
//     if (a >= privateLo && e <= privateHi) return addr     ;; and static, the two tensors read last, the header
//     return miss(addr, offset, bytes, 0)
//   )
// store is the same with the two tensors written last and no header;
// runtime_load and runtime_store (the kernel library's own accesses) also
// accept the header's runtime-writable windows (stores) and a live block's
// guard bytes. miss() moves the block it accepts into the caches.
//
// The core's kernel heap (with a C++ kernel's stack) has an initcheck: a bit
// per heap byte (the written-map, just past the heap: host/device/core-
// regions.ts), set by every store there of up to 16 bytes (longer ones set it
// in miss()), and checked by every kernel load of up to 16 bytes: a load of
// which no byte was written goes to miss(), which names it (a load with some
// written bytes passes: an aggregate copied with its padding). The kernel
// library's own loads, and bulk_load (a kernel memory.copy's source: the copy
// carries its bits over, host/checks/sanitizer.ts), are not checked. The
// highest heap address a store marked is kept in the word before the bits,
// so that the next run clears only the bits this one set.
import { CTX_TCM_TABLE, CTX_TCM_NBLOCKS, CTX_FREED_NEXT, TCMB_PTR, TCMB_SIZE, TCMB_BYTES, TCM_GUARD_BYTES, TCM_ALIGN } from "../device/layout.js";
import { HEAP_MARKED_END, HEAP_WRITTEN_BITS } from "../device/heap-written-map.js";

const I32 = 0x7f, I64 = 0x7e;
const FUNC = 0x60, MUT = 0x01, EMPTY_BLOCK = 0x40, KIND_FUNC = 0x00, KIND_MEMORY = 0x02, KIND_GLOBAL = 0x03;
const OP = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, globalSet: 0x24, i32Eq: 0x46, br: 0x0c, brIf: 0x0d, return: 0x0f, call: 0x10,
  localGet: 0x20, localSet: 0x21, localTee: 0x22, globalGet: 0x23, i32Load: 0x28, i32Const: 0x41, i64Const: 0x42,
  i32GeU: 0x4f, i64LeU: 0x58, i64GeU: 0x5a, i32Add: 0x6a, i32And: 0x71, i32Shl: 0x74, i64Add: 0x7c, i64And: 0x83, i64ExtendI32U: 0xad,
  i32Store: 0x36, i32GtU: 0x4b, i32LeU: 0x4d, i32Sub: 0x6b, i32Or: 0x72, i32ShrU: 0x76, i64Sub: 0x7d, i32WrapI64: 0xa7,
};
const SECTION = { type: 1, import: 2, function: 3, global: 6, export: 7, code: 10 };

/** The i64 globals, in index order: [lo, hi) of each block the fast path accepts. Global `ctx` (i32) comes after them. */
const GLOBALS = [
  "privateLo", "privateHi", "staticLo", "staticHi", "readLo", "readHi", "read2Lo", "read2Hi", "writeLo", "writeHi", "write2Lo", "write2Hi",
  "headerLo", "headerHi", "windowLo", "windowHi", "descWindowLo", "descWindowHi", "tcmLo", "tcmHi",
  "liveLo", "liveHi", "live2Lo", "live2Hi", "heapLo", "heapHi",
] as const;
type GlobalName = (typeof GLOBALS)[number];
const g = (name: GlobalName) => GLOBALS.indexOf(name);
const CTX_GLOBAL = GLOBALS.length;
/** i32 global: the core's count of TCM frees when the live blocks were cached (a free makes them stale). */
const LIVE_GEN_GLOBAL = GLOBALS.length + 1;
/** i32 global: the address of the heap's written-map (its marked-end word, then a bit per heap byte from heapLo); 0 when no heap is set. */
const HEAP_MAP_GLOBAL = GLOBALS.length + 2;

/** Version of the instrumentation's imports: part of a sanitize-mode library's hash, so a change rebuilds old libraries. */
export const SANITIZE_ABI = 4;

/** The import module of the checks in an instrumented kernel (build/sanitize-pass.ts). */
export const SANITIZE_MODULE = "sanitize";

/**
 * The checks, in export order; kind is what miss() receives: bit 0 store, bit 1 the kernel library's runtime, bit 2
 * a kernel bulk load (memory.copy's source: not initchecked).
 */
export const CHECKS = ["load", "store", "runtime_load", "runtime_store", "bulk_load"] as const;
/** miss()'s kind bits. */
export const KIND_STORE = 1, KIND_RUNTIME = 2, KIND_BULK = 4;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(byte & 0x40)) || (n === -1 && byte & 0x40)) { out.push(byte); return out; }
    out.push(byte | 0x80);
  }
}
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, items: number[][]) => { const body = vec(items); return [id, ...uleb(body.length), ...body]; };
const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const body = (locals: number[][], code: number[]) => { const b = [...vec(locals), ...code, OP.end]; return [...uleb(b.length), ...b]; };

// Params: 0 addr, 1 offset, 2 bytes; locals: 3 a (i64), 4 e (i64), 5 start (i64), 6 entry (i32), 7 entries end (i32),
// 8 the written-map's address of a's bit (i32), 9 the mask of the access's bits there (i32).
const [ADDR, OFFSET, BYTES, A, E, START, ENTRY, ENTRIES_END, MAP_AT, MASK] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** if (a >= lo && e <= hi) return addr */
const accept = (lo: GlobalName, hi: GlobalName) => [
  OP.localGet, A, OP.globalGet, g(lo), OP.i64GeU, OP.localGet, E, OP.globalGet, g(hi), OP.i64LeU, OP.i32And,
  OP.if, EMPTY_BLOCK, OP.localGet, ADDR, OP.return, OP.end,
];

/** return miss(addr, offset, bytes, kind) */
const miss = (kind: number) => [OP.localGet, ADDR, OP.localGet, OFFSET, OP.localGet, BYTES, OP.i32Const, kind, OP.call, 0, OP.return];

/**
 * Inside the TCM arena (checked first: TCM kernels make most of their accesses there, and nothing else lies in it),
 * accepts accesses inside a live block of the TCM table (runtime code: with its guard bytes, rounded as tcm_alloc
 * does); anything else in the arena is a miss. The two blocks kernel code touched last are cached until the next
 * tcm_free (every free advances CTX_FREED_NEXT), so a kernel alternating between two buffers rarely scans the table.
 */
function acceptLiveTcm(kind: number): number[] {
  const runtime = (kind & 2) !== 0;
  const freeCount = [OP.globalGet, CTX_GLOBAL, OP.i32Load, 2, ...uleb(CTX_FREED_NEXT)];
  const size = [OP.localGet, ENTRY, OP.i32Load, 2, ...uleb(TCMB_SIZE), OP.i64ExtendI32U];
  const footprint = runtime ? [...size, OP.i64Const, ...sleb(TCM_GUARD_BYTES + TCM_ALIGN - 1), OP.i64Add, OP.i64Const, ...sleb(-TCM_ALIGN), OP.i64And] : size;
  const set = (name: GlobalName, value: number[]) => [...value, OP.globalSet, g(name)];
  // Kernel hits become the cached block (the one before moves to the second place, unless a free made it stale).
  const remember = runtime ? [] : [
    ...freeCount, OP.globalGet, LIVE_GEN_GLOBAL, OP.i32Eq,
    OP.if, EMPTY_BLOCK, ...set("live2Lo", [OP.globalGet, g("liveLo")]), ...set("live2Hi", [OP.globalGet, g("liveHi")]),
    OP.else, ...set("live2Lo", [OP.i64Const, 0]), ...set("live2Hi", [OP.i64Const, 0]), ...freeCount, OP.globalSet, LIVE_GEN_GLOBAL, OP.end,
    ...set("liveLo", [OP.localGet, START]), ...set("liveHi", [OP.localGet, START, ...size, OP.i64Add]),
  ];
  return [
    OP.localGet, A, OP.globalGet, g("tcmLo"), OP.i64GeU, OP.localGet, E, OP.globalGet, g("tcmHi"), OP.i64LeU, OP.i32And,
    OP.if, EMPTY_BLOCK,
    ...freeCount, OP.globalGet, LIVE_GEN_GLOBAL, OP.i32Eq,
    OP.if, EMPTY_BLOCK, ...accept("liveLo", "liveHi"), ...accept("live2Lo", "live2Hi"), OP.end,
    OP.globalGet, CTX_GLOBAL, OP.i32Const, ...sleb(CTX_TCM_TABLE), OP.i32Add, OP.localTee, ENTRY,
    OP.globalGet, CTX_GLOBAL, OP.i32Load, 2, ...uleb(CTX_TCM_NBLOCKS), OP.i32Const, ...sleb(Math.log2(TCMB_BYTES)), OP.i32Shl, OP.i32Add, OP.localSet, ENTRIES_END,
    OP.block, EMPTY_BLOCK, OP.loop, EMPTY_BLOCK,
    OP.localGet, ENTRY, OP.localGet, ENTRIES_END, OP.i32GeU, OP.brIf, 1,
    OP.localGet, ENTRY, OP.i32Load, 2, ...uleb(TCMB_PTR), OP.i64ExtendI32U, OP.localTee, START, OP.localGet, A, OP.i64LeU,
    OP.localGet, E, OP.localGet, START, ...footprint, OP.i64Add, OP.i64LeU, OP.i32And,
    OP.if, EMPTY_BLOCK, ...remember, OP.localGet, ADDR, OP.return, OP.end,
    OP.localGet, ENTRY, OP.i32Const, ...sleb(TCMB_BYTES), OP.i32Add, OP.localSet, ENTRY,
    OP.br, 0,
    OP.end, OP.end,
    ...miss(kind),
    OP.end,
  ];
}

/**
 * Inside the heap: a store of up to 16 bytes sets its bits in the written-map (and raises the marked end), a kernel
 * load of up to 16 bytes is accepted when any of its bits is set (a struct copied by wide loads reads its padding
 * too); anything longer, and a load of bytes none of which was written, goes to miss(). The kernel library's loads
 * and bulk loads are accepted as they are.
 *   off = i32(a - heapLo); mapAt = map + 16 + (off >> 3); mask = ((1 << bytes) - 1) << (off & 7)
 */
function heapCheck(kind: number): number[] {
  const store = (kind & KIND_STORE) !== 0, unchecked = !store && (kind & (KIND_RUNTIME | KIND_BULK)) !== 0;
  const inHeap = [OP.localGet, A, OP.globalGet, g("heapLo"), OP.i64GeU, OP.localGet, E, OP.globalGet, g("heapHi"), OP.i64LeU, OP.i32And];
  if (unchecked) return [...inHeap, OP.if, EMPTY_BLOCK, OP.localGet, ADDR, OP.return, OP.end];
  const off = [OP.localGet, A, OP.globalGet, g("heapLo"), OP.i64Sub, OP.i32WrapI64];
  const word = [OP.localGet, MAP_AT, OP.i32Load, 0, 0]; // unaligned: align hint 2^0
  const short = [OP.localGet, BYTES, OP.i32Const, 16, OP.i32LeU];
  const marked = [OP.globalGet, HEAP_MAP_GLOBAL, OP.i32Load, 2, ...uleb(HEAP_MARKED_END)];
  const eWord = [OP.localGet, E, OP.i32WrapI64];
  const onShort = store
    ? [
      OP.localGet, MAP_AT, ...word, OP.localGet, MASK, OP.i32Or, OP.i32Store, 0, 0,
      ...eWord, ...marked, OP.i32GtU, OP.if, EMPTY_BLOCK, OP.globalGet, HEAP_MAP_GLOBAL, ...eWord, OP.i32Store, 2, ...uleb(HEAP_MARKED_END), OP.end,
      OP.localGet, ADDR, OP.return,
    ]
    : [...word, OP.localGet, MASK, OP.i32And, OP.if, EMPTY_BLOCK, OP.localGet, ADDR, OP.return, OP.end];
  return [
    ...inHeap, OP.if, EMPTY_BLOCK,
    ...short, OP.if, EMPTY_BLOCK,
    OP.globalGet, HEAP_MAP_GLOBAL, OP.i32Const, ...sleb(HEAP_WRITTEN_BITS), OP.i32Add, ...off, OP.i32Const, 3, OP.i32ShrU, OP.i32Add, OP.localSet, MAP_AT,
    OP.i32Const, 1, OP.localGet, BYTES, OP.i32Shl, OP.i32Const, 1, OP.i32Sub, ...off, OP.i32Const, 7, OP.i32And, OP.i32Shl, OP.localSet, MASK,
    ...onShort,
    OP.end,
    ...miss(kind),
    OP.end,
  ];
}

/** One check; kind as in CHECKS. */
function checkBody(kind: number): number[] {
  const store = (kind & 1) !== 0, runtime = (kind & 2) !== 0;
  return body([[3, I64], [4, I32]], [
    OP.localGet, ADDR, OP.i64ExtendI32U, OP.localGet, OFFSET, OP.i64ExtendI32U, OP.i64Add, OP.localSet, A,
    OP.localGet, A, OP.localGet, BYTES, OP.i64ExtendI32U, OP.i64Add, OP.localSet, E,
    ...acceptLiveTcm(kind), ...heapCheck(kind), ...accept("privateLo", "privateHi"), ...accept("staticLo", "staticHi"),
    ...(store ? [...accept("writeLo", "writeHi"), ...accept("write2Lo", "write2Hi")] : [...accept("readLo", "readHi"), ...accept("read2Lo", "read2Hi")]),
    ...(!store ? accept("headerLo", "headerHi") : runtime ? [...accept("windowLo", "windowHi"), ...accept("descWindowLo", "descWindowHi")] : []),
    ...miss(kind),
  ]);
}

function assemble(): Uint8Array<ArrayBuffer> {
  // Type 0: (i32 x4) -> i32, miss; type 1: (i32 x3) -> i32, the checks.
  const types = [[FUNC, ...vec([[I32], [I32], [I32], [I32]]), 1, I32], [FUNC, ...vec([[I32], [I32], [I32]]), 1, I32]];
  const i32Global = [I32, MUT, OP.i32Const, 0, OP.end];
  const globals = [...GLOBALS.map(() => [I64, MUT, OP.i64Const, 0, OP.end]), i32Global, i32Global, i32Global];
  const exports = [
    ...GLOBALS.map((n, i) => [...name(n), KIND_GLOBAL, i]), [...name("ctx"), KIND_GLOBAL, CTX_GLOBAL], [...name("liveGen"), KIND_GLOBAL, LIVE_GEN_GLOBAL],
    [...name("heapMap"), KIND_GLOBAL, HEAP_MAP_GLOBAL],
    ...CHECKS.map((n, i) => [...name(n), KIND_FUNC, i + 1]),
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(SECTION.type, types),
    // The device memory (shared, up to 4 GiB), to read the TCM block table.
    ...section(SECTION.import, [[...name("js"), ...name("miss"), KIND_FUNC, 0], [...name("env"), ...name("memory"), KIND_MEMORY, 0x03, 1, ...uleb(65536)]]),
    ...section(SECTION.function, CHECKS.map(() => [1])),
    ...section(SECTION.global, globals),
    ...section(SECTION.export, exports),
    ...section(SECTION.code, CHECKS.map((_, kind) => checkBody(kind))), // kind = export index: bulk_load is 4 (KIND_BULK)
  ]);
}

let compiled: WebAssembly.Module | null = null;

/** The slow path: called with (addr, offset, bytes, kind) for an access no block accepts; returns addr or throws. */
export type Miss = (addr: number, offset: number, bytes: number, kind: number) => number;

/** A block the fast path accepts. */
export type Block = "private" | "static" | "read" | "write" | "header" | "window" | "descWindow" | "tcm" | "heap";

/** One instance of the fast path: the checks a sanitized kernel imports, and the blocks they accept. */
export class FastPath {
  /** The checks, to import into the kernel. */
  readonly hooks: Record<(typeof CHECKS)[number], Function>;
  private readonly globals: Record<GlobalName, WebAssembly.Global>;
  private readonly ctx: WebAssembly.Global;
  private readonly liveGen: WebAssembly.Global;
  private readonly heapMap: WebAssembly.Global;

  constructor(memory: WebAssembly.Memory, miss: Miss) {
    compiled ??= new WebAssembly.Module(assemble());
    const exports = new WebAssembly.Instance(compiled, { js: { miss }, env: { memory } }).exports;
    this.hooks = Object.fromEntries(CHECKS.map((n) => [n, exports[n] as Function])) as FastPath["hooks"];
    this.globals = Object.fromEntries(GLOBALS.map((n) => [n, exports[n] as WebAssembly.Global])) as Record<GlobalName, WebAssembly.Global>;
    this.ctx = exports.ctx as WebAssembly.Global;
    this.liveGen = exports.liveGen as WebAssembly.Global;
    this.heapMap = exports.heapMap as WebAssembly.Global;
  }

  /**
   * Accepts [lo, hi): private and static for every access, read (and the read block before) for loads, write (and
   * the write block before) for stores, header for loads,
   * window and descWindow for the runtime's stores; tcm is the arena whose live blocks (in the table of the context
   * block at `core(ctx)`) are accepted. An empty block accepts nothing.
   */
  accept(block: Block, lo: number, hi: number): void {
    if (block === "read" || block === "write") { // the block before stays as the second: kernels alternate between two tensors
      this.globals[`${block}2Lo`].value = this.globals[`${block}Lo`].value;
      this.globals[`${block}2Hi`].value = this.globals[`${block}Hi`].value;
    }
    this.globals[`${block}Lo`].value = BigInt(lo);
    this.globals[`${block}Hi`].value = BigInt(hi);
  }

  /** The running core's context block (its TCM block table). */
  core(ctx: number): void {
    this.ctx.value = ctx;
  }

  /** The running core's kernel heap [lo, hi), initchecked against the written-map at `map` (host/device/heap-written-map.ts). */
  heap(lo: number, hi: number, map: number): void {
    this.accept("heap", lo, hi);
    this.heapMap.value = map;
  }

  /** Accepts nothing: every access goes to miss. */
  clear(): void {
    for (const n of GLOBALS) this.globals[n].value = 0n;
    this.ctx.value = 0;
    this.liveGen.value = 0;
    this.heapMap.value = 0;
  }
}
