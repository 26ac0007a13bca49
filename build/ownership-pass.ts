// The default mode's checks of a kernel's raw loads and stores (what they
// check and why: assembly/ownership.ts). A Binaryen pass over the kernel's own
// functions, before the module is optimised (so the code it adds keeps the
// statement's source place, as build/sanitize-pass.ts does); the runtime's
// functions are left alone: its accesses are never the kernel's.
// Per access, inline:
//   load of n bytes at a:   if ((a - tcm_lo) u< tcm_span) && written-map[a, a+n) is not all 1: miss(a, n, load)
//   store of n bytes at a:  if ((a - own_lo) u< own_span) { if ((a - tcm_lo) u< tcm_span) written-map[a, a+n) = 1 }
//                           else if not in the statics' nor the last tensor's range: miss(a, n, store)
// memory.copy and memory.fill / memory.init call the runtime (gpsimd_own_copy, gpsimd_own_store) with their operands,
// evaluated once, in order. Atomic read-modify-writes count as stores; atomic wait and notify touch nothing the kernel
// reads as data. The written-map of TCM byte a is the byte a + TCM_SHADOW_DELTA, so its test is a load at the access's
// own address with a larger static offset: no lookup.
// It is deterministic and adds no address constants, so builds A and B stay identical but for those (build/relocate.ts).
import binaryen from "binaryen";
import { walkExpressions } from "./binaryen-walk.js";
import { OWN_GLOBALS, OWN_FUNCTIONS, CHECK_SOURCE } from "./ownership-names.js";
import { TCM_SHADOW_DELTA } from "../host/device/layout.js";

/** Where the runtime's globals and functions are: in this module (exported by the virtual entry), or imported from `importFrom`. */
export interface OwnershipOptions {
  isRuntime(functionName: string): boolean;
  /** Check stores against what the call owns; off where the sanitizer checks every store first (the written-map is kept either way). */
  checkStores: boolean;
  importFrom?: string;
  /**
   * Give each slow-path call the source place of its access (read from the module's debug locations). Needed where
   * the optimiser may move the call away from its access's place (a C++ kernel's merge with the runtime); an
   * AssemblyScript build's calls already sit where their access's place is in force.
   */
  placeCalls?: boolean;
  /** Map the added code to CHECK_SOURCE, so profiling does not count it as the kernel's (needs the module's debug info). */
  tagChecks?: boolean;
  /**
   * Source files of the kernel library: an access whose place is in one is the library's code the compiler inlined
   * into a kernel function (AssemblyScript's @inline accessors), not the kernel's, and is left unchecked as the
   * library's own accesses are.
   */
  isRuntimeFile?(file: string): boolean;
}

type Kind = "Load" | "Store" | "AtomicRMW" | "AtomicCmpxchg" | "SIMDLoad" | "SIMDLoadStoreLane" | "MemoryCopy" | "MemoryFill" | "MemoryInit";
const B = binaryen as unknown as Record<Kind, Record<string, (expr: number, value?: number) => number>> & {
  _BinaryenFunctionAddVar(f: number, t: number): number;
  _BinaryenFunctionSetBody(f: number, body: number): void;
};
const ids = binaryen as unknown as Record<string, number>;

/** Bytes read by each SIMD load form other than v128.load (binaryen's op numbers). */
const SIMD_LOAD_BYTES = new Map<number, number>([
  ["Load8SplatVec128", 1], ["Load16SplatVec128", 2], ["Load32SplatVec128", 4], ["Load64SplatVec128", 8],
  ["Load8x8SVec128", 8], ["Load8x8UVec128", 8], ["Load16x4SVec128", 8], ["Load16x4UVec128", 8], ["Load32x2SVec128", 8], ["Load32x2UVec128", 8],
  ["Load32ZeroVec128", 4], ["Load64ZeroVec128", 8],
].map(([op, n]) => [ids[op as string], n as number]));
const SIMD_LANE_BYTES = new Map<number, number>([
  ["Load8LaneVec128", 1], ["Load16LaneVec128", 2], ["Load32LaneVec128", 4], ["Load64LaneVec128", 8],
  ["Store8LaneVec128", 1], ["Store16LaneVec128", 2], ["Store32LaneVec128", 4], ["Store64LaneVec128", 8],
].map(([op, n]) => [ids[op as string], n as number]));

const MEMORY_KINDS = new Set(["Load", "Store", "AtomicRMW", "AtomicCmpxchg", "SIMDLoad", "SIMDLoadStoreLane", "MemoryCopy", "MemoryFill", "MemoryInit"].map((k) => ids[`${k}Id`]));

/** The runtime's names as this module calls them. */
function runtimeNames(module: binaryen.Module, options: OwnershipOptions): { global: (n: string) => string; func: (n: string) => string } {
  const { i32, none } = binaryen;
  if (options.importFrom) {
    for (const name of Object.values(OWN_GLOBALS)) module.addGlobalImport(name, options.importFrom, name, i32, true);
    const two = binaryen.createType([i32, i32]), three = binaryen.createType([i32, i32, i32]);
    module.addFunctionImport(OWN_FUNCTIONS.miss, options.importFrom, OWN_FUNCTIONS.miss, three, none);
    module.addFunctionImport(OWN_FUNCTIONS.store, options.importFrom, OWN_FUNCTIONS.store, two, none);
    module.addFunctionImport(OWN_FUNCTIONS.copy, options.importFrom, OWN_FUNCTIONS.copy, three, none);
    return { global: (n) => n, func: (n) => n };
  }
  const internal = (n: string) => {
    const e = module.getExport(n);
    if (!e) throw new Error(`ownership checks: the module exports no ${n} (build/asc.ts's entry exports it)`);
    return binaryen.getExportInfo(e).value;
  };
  return { global: internal, func: internal };
}

/** Instruments every memory access of the kernel's functions (see the top of this file). */
export function instrumentOwnership(module: binaryen.Module, options: OwnershipOptions): void {
  const { i32, none } = binaryen;
  const names = runtimeNames(module, options);
  const global = (key: keyof typeof OWN_GLOBALS) => module.global.get(names.global(OWN_GLOBALS[key]), i32);
  const fn = (key: keyof typeof OWN_FUNCTIONS) => names.func(OWN_FUNCTIONS[key]);
  const c = (n: number) => module.i32.const(n);
  // binaryen.js's i64.const takes one bigint (its typings say two numbers).
  const i64Pattern = () => (module.i64.const as unknown as (v: bigint) => number)(0x0101010101010101n);
  /** (a - lo) u< span */
  const inRange = (a: number, lo: number, span: number) => module.i32.lt_u(module.i32.sub(a, lo), span);

  const work: { func: number; found: number[] }[] = [];
  for (let f = 0; f < module.getNumFunctions(); f++) {
    const func = module.getFunctionByIndex(f);
    const info = binaryen.getFunctionInfo(func);
    if (info.module || !info.body || options.isRuntime(info.name)) continue;
    const found: number[] = [];
    walkExpressions(info.body, (expr, id) => { if (MEMORY_KINDS.has(id)) found.push(expr); },
      (id, expr) => new Error(`ownership checks: cannot instrument a module with expression kind ${id} (${binaryen.emitText(expr).split("\n")[0]})`));
    if (found.length) work.push({ func, found });
  }
  const places = options.placeCalls || options.isRuntimeFile || options.tagChecks ? accessPlaces(module, work.flatMap((w) => w.found)) : new Map<number, Place>();
  if (options.isRuntimeFile) {
    const runtimeFiles = new Set<number>();
    for (let i = 0; ; i++) {
      const name = module.getDebugInfoFileName(i);
      if (!name) break;
      if (options.isRuntimeFile(name)) runtimeFiles.add(i);
    }
    for (const w of work) w.found = w.found.filter((e) => !runtimeFiles.has(places.get(e)?.file ?? -1));
  }
  const checkFile = options.tagChecks ? debugFileIndex(module, CHECK_SOURCE) : null;
  const unknownKind = (id: number) => new Error(`ownership checks: expression kind ${id} in the code they add`);

  for (const { func, found } of work) {
    // The TCM and private-region bounds change only when a launch begins: read once per call into locals (kept in
    // registers), not per access. The statics' and last tensor's ranges stay globals (the slow path moves the latter).
    const cached = new Map((["tcmLo", "tcmSpan", "ownLo", "ownSpan"] as const).map((key) => [key as string, B._BinaryenFunctionAddVar(func, i32)]));
    const g = (key: keyof typeof OWN_GLOBALS) => {
      const l = cached.get(key);
      return l === undefined ? global(key) : module.local.get(l, i32);
    };
    const calls = new Set<number>();
    /** The slow-path call, at its access's source place. */
    const placed = (access: number, call: number): number => {
      const place = places.get(access);
      if (place) module.setDebugLocation(func, call, place.file, place.line, place.column);
      calls.add(call);
      return call;
    };
    /**
     * Gives the code a check added (root, less the access's own operands and the slow-path calls) the source place
     * CHECK_SOURCE, so that profiling's instruction counts leave it out (build/count-pass.ts): it is the emulator's.
     */
    const tag = (root: number, operands: number[]): number => {
      if (checkFile === null) return root;
      const kept = new Set<number>(calls);
      for (const o of operands) walkExpressions(o, (e) => { kept.add(e); }, unknownKind);
      walkExpressions(root, (e) => { if (!kept.has(e)) module.setDebugLocation(func, e, checkFile, 1, 1); }, unknownKind);
      return root;
    };
    const local = () => B._BinaryenFunctionAddVar(func, i32);
    const get = (l: number) => module.local.get(l, i32);

    /** The written-map test of an n-byte load at p + offset: true when some byte is unwritten. */
    const unwritten = (p: number, offset: number, bytes: number): number => {
      const at = offset + TCM_SHADOW_DELTA;
      switch (bytes) {
        case 1: return module.i32.ne(module.i32.load8_u(at, 1, get(p)), c(1));
        case 2: return module.i32.ne(module.i32.load16_u(at, 1, get(p)), c(0x0101));
        case 4: return module.i32.ne(module.i32.load(at, 1, get(p)), c(0x01010101));
        case 8: return module.i64.ne(module.i64.load(at, 1, get(p)), i64Pattern());
        default: return module.i32.eqz(module.i8x16.all_true(module.v128.load(at, 1, get(p))));
      }
    };
    /** The written-map marking of an n-byte store at p + offset. */
    const markWritten = (p: number, offset: number, bytes: number): number => {
      const at = offset + TCM_SHADOW_DELTA;
      switch (bytes) {
        case 1: return module.i32.store8(at, 1, get(p), c(1));
        case 2: return module.i32.store16(at, 1, get(p), c(0x0101));
        case 4: return module.i32.store(at, 1, get(p), c(0x01010101));
        case 8: return module.i64.store(at, 1, get(p), i64Pattern());
        default: return module.v128.store(at, 1, get(p), module.v128.const(new Array(16).fill(1)));
      }
    };
    /** The pointer operand, checked as a load: block { p = ptr; if (in TCM && unwritten) miss(p + offset, n, load); p }. */
    const checkedLoad = (access: number, ptr: number, offset: number, bytes: number): number => {
      const p = local();
      const a = () => module.i32.add(get(p), c(offset));
      return tag(module.block(null, [
        module.local.set(p, ptr),
        // Nested, not and-ed: the written-map load must not run for an address outside TCM (near the end of memory it would trap).
        module.if(inRange(a(), g("tcmLo"), g("tcmSpan")),
          module.if(unwritten(p, offset, bytes), placed(access, module.call(fn("miss"), [a(), c(bytes), c(0)], none)))),
        get(p),
      ], i32), [ptr]);
    };
    /** The pointer operand, checked as a store (see the top of the file). */
    const checkedStore = (access: number, ptr: number, offset: number, bytes: number): number => {
      const p = local();
      const a = () => module.i32.add(get(p), c(offset));
      const outside = options.checkStores
        ? module.if(module.i32.and(module.i32.eqz(inRange(a(), g("staticLo"), g("staticSpan"))), module.i32.eqz(inRange(a(), g("hitLo"), g("hitSpan")))),
          placed(access, module.call(fn("miss"), [a(), c(bytes), c(1)], none)))
        : module.nop();
      // TCM first: the stores of a kernel's inner loops go there.
      return tag(module.block(null, [
        module.local.set(p, ptr),
        module.if(inRange(a(), g("tcmLo"), g("tcmSpan")), markWritten(p, offset, bytes),
          module.if(module.i32.eqz(inRange(a(), g("ownLo"), g("ownSpan"))), outside)),
        get(p),
      ], i32), [ptr]);
    };
    /** A bulk instruction's first operand: evaluates all three into locals, calls the runtime's check, yields the first. */
    const bulk = (first: number, second: number, size: number, check: (a: number, b: number, n: number) => number) => {
      const [a, b, n] = [local(), local(), local()];
      const block = tag(module.block(null, [module.local.set(a, first), module.local.set(b, second), module.local.set(n, size), check(a, b, n), get(a)], i32), [first, second, size]);
      return { block, second: get(b), size: get(n) };
    };
    const storeCall = (access: number, d: number, n: number) => options.checkStores
      ? placed(access, module.call(fn("store"), [get(d), get(n)], none))
      : module.nop();

    for (const expr of found) {
      // The access itself keeps its place explicitly: emitted after the check's code (mapped to CHECK_SOURCE), it must
      // map back to the kernel's line, or profiling would count it as the check's.
      const place = places.get(expr);
      if (checkFile !== null && place) module.setDebugLocation(func, expr, place.file, place.line, place.column);
      const id = binaryen.getExpressionId(expr);
      if (id === binaryen.LoadId) {
        B.Load.setPtr(expr, checkedLoad(expr, B.Load.getPtr(expr), B.Load.getOffset(expr), B.Load.getBytes(expr)));
      } else if (id === binaryen.StoreId) {
        B.Store.setPtr(expr, checkedStore(expr, B.Store.getPtr(expr), B.Store.getOffset(expr), B.Store.getBytes(expr)));
      } else if (id === binaryen.AtomicRMWId) {
        B.AtomicRMW.setPtr(expr, checkedStore(expr, B.AtomicRMW.getPtr(expr), B.AtomicRMW.getOffset(expr), B.AtomicRMW.getBytes(expr)));
      } else if (id === binaryen.AtomicCmpxchgId) {
        B.AtomicCmpxchg.setPtr(expr, checkedStore(expr, B.AtomicCmpxchg.getPtr(expr), B.AtomicCmpxchg.getOffset(expr), B.AtomicCmpxchg.getBytes(expr)));
      } else if (id === binaryen.SIMDLoadId) {
        B.SIMDLoad.setPtr(expr, checkedLoad(expr, B.SIMDLoad.getPtr(expr), B.SIMDLoad.getOffset(expr), SIMD_LOAD_BYTES.get(B.SIMDLoad.getOp(expr))!));
      } else if (id === binaryen.SIMDLoadStoreLaneId) {
        const bytes = SIMD_LANE_BYTES.get(B.SIMDLoadStoreLane.getOp(expr))!;
        const ptr = B.SIMDLoadStoreLane.getPtr(expr), offset = B.SIMDLoadStoreLane.getOffset(expr);
        B.SIMDLoadStoreLane.setPtr(expr, B.SIMDLoadStoreLane.isStore(expr) ? checkedStore(expr, ptr, offset, bytes) : checkedLoad(expr, ptr, offset, bytes));
      } else if (id === binaryen.MemoryCopyId) {
        const { block, second, size } = bulk(B.MemoryCopy.getDest(expr), B.MemoryCopy.getSource(expr), B.MemoryCopy.getSize(expr),
          (d, s, n) => placed(expr, module.call(fn("copy"), [get(d), get(s), get(n)], none)));
        B.MemoryCopy.setDest(expr, block); B.MemoryCopy.setSource(expr, second); B.MemoryCopy.setSize(expr, size);
      } else if (id === binaryen.MemoryFillId) {
        const { block, second, size } = bulk(B.MemoryFill.getDest(expr), B.MemoryFill.getValue(expr), B.MemoryFill.getSize(expr), (d, _v, n) => storeCall(expr, d, n));
        B.MemoryFill.setDest(expr, block); B.MemoryFill.setValue(expr, second); B.MemoryFill.setSize(expr, size);
      } else if (id === binaryen.MemoryInitId) {
        const { block, second, size } = bulk(B.MemoryInit.getDest(expr), B.MemoryInit.getOffset(expr), B.MemoryInit.getSize(expr), (d, _o, n) => storeCall(expr, d, n));
        B.MemoryInit.setDest(expr, block); B.MemoryInit.setOffset(expr, second); B.MemoryInit.setSize(expr, size);
      }
    }
    const info = binaryen.getFunctionInfo(func);
    const loads = [...cached].map(([key, l]) => tag(module.local.set(l, global(key as keyof typeof OWN_GLOBALS)), []));
    B._BinaryenFunctionSetBody(func, module.block(null, [...loads, info.body], info.results));
  }
}

interface Place { file: number; line: number; column: number }

/** The index of a file in the module's debug info, added if it has none. */
function debugFileIndex(module: binaryen.Module, file: string): number {
  for (let i = 0; ; i++) {
    const name = module.getDebugInfoFileName(i);
    if (!name) break;
    if (name === file) return i;
  }
  return module.addDebugInfoFileName(file);
}

/** The operand of an access that holds its address (a bulk instruction's destination), and its setter. */
function pointerOperand(expr: number): { get: () => number; set: (v: number) => void } {
  const id = binaryen.getExpressionId(expr);
  const kind = (["Load", "Store", "AtomicRMW", "AtomicCmpxchg", "SIMDLoad", "SIMDLoadStoreLane"] as Kind[]).find((k) => ids[`${k}Id`] === id);
  if (kind) return { get: () => B[kind].getPtr(expr), set: (v) => void B[kind].setPtr(expr, v) };
  const bulk = (["MemoryCopy", "MemoryFill", "MemoryInit"] as Kind[]).find((k) => ids[`${k}Id`] === id)!;
  return { get: () => B[bulk].getDest(expr), set: (v) => void B[bulk].setDest(expr, v) };
}

/**
 * The debug location in force at each access (binaryen.js can set an expression's location but not read it): each
 * access's address operand becomes a marker constant for one printing of the module, and the last `;;@ file:line:column`
 * annotation before the marker is its place (as build/cpp/stack-checks.ts finds a subtraction's).
 */
function accessPlaces(module: binaryen.Module, accesses: number[]): Map<number, Place> {
  const places = new Map<number, Place>();
  if (!accesses.length) return places;
  const MARK = -1_876_543_210; // an i32 constant no compiler gives an address; marker k is MARK + k
  const operands = accesses.map(pointerOperand);
  const saved = operands.map((o) => o.get());
  operands.forEach((o, k) => o.set(module.i32.const(MARK + k)));
  let text: string;
  try {
    text = module.emitText();
  } finally {
    operands.forEach((o, k) => o.set(saved[k]));
  }
  const files = new Map<string, number>();
  for (let i = 0; ; i++) {
    const name = module.getDebugInfoFileName(i);
    if (!name) break;
    files.set(name, i);
  }
  accesses.forEach((access, k) => {
    const at = text.indexOf(`(i32.const ${MARK + k})`);
    if (at < 0) return;
    const funcAt = text.lastIndexOf("(func ", at);
    // The marker itself is printed with a bare `;;@` (a new constant has no place): the last place named is the access's.
    const annotation = [...text.slice(Math.max(funcAt, 0), at).matchAll(/;;@ (.*):(\d+):(\d+)$/gm)].at(-1);
    const file = annotation?.[1] !== undefined ? files.get(annotation[1]) : undefined;
    if (annotation && file !== undefined) places.set(access, { file, line: Number(annotation[2]), column: Number(annotation[3]) });
  });
  return places;
}
