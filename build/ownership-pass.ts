// The default mode's checks of a kernel's raw loads and stores (what they
// check and why: assembly/ownership.ts). A Binaryen pass over the kernel's own
// functions, before the module is optimised (so the code it adds keeps the
// statement's source place, as build/sanitize-pass.ts does); the runtime's
// functions are left alone: its accesses are never the kernel's.
// Check windows: each access (or each group of accesses of one kind and size through the same pointer local:
// v128.load(p), v128.load(p, 16), ...) has two locals, a window [lo, lo + window bytes) of addresses known fine for
// it, kept as lo and cap = window bytes - n + 1. Per access, inline:
//   n bytes at a:  if ((a - lo) u>= cap) { window(a, n, store); lo = win_lo; cap = win_len - n + 1 }
//   and a store:   if (mark) written-map[a, a+n) = 1   (later reads need it; mark: the window is TCM)
// that is one subtraction, one compare and a branch that is almost never taken, with no memory traffic. Loads through
// one window in consecutive straight-line statements (a run: nothing between them calls, stores or sets the pointer)
// share one test before the run, of the lowest address against a third local, cap less the run's reach. The slow path
// (assembly/ownership.ts's gpsimd_own_window, a call too large to inline, so a report keeps the access's place)
// checks the access exactly, fails naming it, or returns the window around it: for a TCM load the run of written
// bytes around it, for a load elsewhere all memory outside the arena, for a TCM store its live block (guard bytes
// included), for another store the owned range that took it (the private region, the statics, the output).
// Why a window stays true until the function's next call: only a call can make a byte of it unwritten or free its
// block (tcm_free, tcm_malloc, which clear the maps over the block they free or hand out) or begin a new launch (which
// clears the maps, and runs the function anew: its locals start at 0, cap 0 is an empty window). The kernel's own
// stores only ever set written-map bytes, so a run of written bytes stays written across them; its bulk stores go
// through the runtime but only mark. So every window in the TCM arena is dropped (cap = 0) after each call or
// call_indirect the function makes (build/ownership-calls.ts), and nowhere else; a window outside the arena (memory
// where loads are not checked; a range the call owns until it ends) stays true across calls.
// A counted loop (`for (...; i < n; i += C)`) whose checked accesses all go through base + (i << k) + a constant, with
// no call in it, is tested once per group of accesses over the whole range it will touch, before it runs; it then
// runs without tests (a store still marks the written-map), or, when a range is not all fine, a copy of it runs with
// every access tested as above, so an access fails exactly where it did (build/ownership-loops.ts).
// memory.copy and memory.fill / memory.init call the runtime (gpsimd_own_copy, gpsimd_own_store) with their operands,
// evaluated once, in order. Atomic read-modify-writes count as stores; atomic wait and notify touch nothing the kernel
// reads as data. The written-map of TCM byte a is the byte a + TCM_SHADOW_DELTA, so a store marks it at the store's
// own address with a larger static offset: no lookup.
// It is deterministic and adds no address constants, so builds A and B stay identical but for those (build/relocate.ts).
import binaryen from "binaryen";
import { walkExpressions } from "./binaryen-walk.js";
import { afterEachCall } from "./ownership-calls.js";
import { versionLoops } from "./ownership-loops.js";
import { OWN_GLOBALS, OWN_FUNCTIONS, CHECK_SOURCE } from "./ownership-names.js";
import { TCM_SHADOW_DELTA } from "../host/device/layout.js";
import { SANITIZE_MODULE } from "../host/checks/sanitizer-fast-path.js";

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
    module.addFunctionImport(OWN_FUNCTIONS.window, options.importFrom, OWN_FUNCTIONS.window, three, none);
    module.addFunctionImport(OWN_FUNCTIONS.store, options.importFrom, OWN_FUNCTIONS.store, two, none);
    module.addFunctionImport(OWN_FUNCTIONS.copy, options.importFrom, OWN_FUNCTIONS.copy, three, none);
    module.addFunctionImport(OWN_FUNCTIONS.mark, options.importFrom, OWN_FUNCTIONS.mark, two, none);
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

  for (const w of work) {
    const { func } = w;
    let { found } = w;
    const local = () => B._BinaryenFunctionAddVar(func, i32);
    const get = (l: number) => module.local.get(l, i32);
    // The TCM bounds change only when a launch begins: read once per call into locals (kept in registers), not per
    // store, for the written-map marking of stores without a window.
    let tcmBounds: [number, number] | null = null;
    const tcmLo = () => (tcmBounds ??= [local(), local()])[0];
    const tcmSpan = () => (tcmBounds ??= [local(), local()])[1];
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

    /** The written-map marking of an n-byte store at ptr + offset. */
    const markWritten = (ptr: () => number, offset: number, bytes: number): number => {
      const at = offset + TCM_SHADOW_DELTA;
      switch (bytes) {
        case 1: return module.i32.store8(at, 1, ptr(), c(1));
        case 2: return module.i32.store16(at, 1, ptr(), c(0x0101));
        case 4: return module.i32.store(at, 1, ptr(), c(0x01010101));
        case 8: return module.i64.store(at, 1, ptr(), i64Pattern());
        default: return module.v128.store(at, 1, ptr(), module.v128.const(new Array(16).fill(1)));
      }
    };
    // Counted loops over base + (counter << k) test their accesses' ranges once, before the loop
    // (build/ownership-loops.ts); the checks below go to the loop's checked copy, whose accesses stand in for its own.
    const queryCalls = new Set<number>();
    if (options.checkStores) {
      const twins = versionLoops({
        module, local: (type) => B._BinaryenFunctionAddVar(func, type), accessOf,
        query: (addr, len, store) => { const call = module.call(fn("window"), [addr, len, c(store ? 3 : 2)], none); queryCalls.add(call); return call; },
        winLen: () => global("winLen"), winMark: () => global("winMark"), markWritten, tag,
        markRange: (addr, len) => { const call = module.call(fn("store"), [addr, len], none); queryCalls.add(call); return call; },
      }, binaryen.getFunctionInfo(func).body, found);
      found = found.map((e) => twins.get(e) ?? e);
      for (const [e, twin] of twins) { const place = places.get(e); if (place) places.set(twin, place); }
    }

    // One window per kind of access, pointer local and size (an access through any other pointer has its own): the
    // accesses v128.load(p), v128.load(p, 16), ... share one, so a loop needs two locals per pointer, not per access.
    const windows = new Map<string, Window>();
    const sites = new Map<number, Site>();
    found.forEach((expr, k) => {
      const access = accessOf(expr);
      if (!access || (access.store && !options.checkStores)) return;
      const base = baseOf(access.ptr);
      const key = `${access.store ? "store" : "load"} ${base ? `local ${base.local}` : `site ${k}`} ${access.bytes}`;
      if (!windows.has(key)) windows.set(key, { lo: local(), cap: local(), mark: access.store ? local() : -1, hull: -1, reach: 0 });
      sites.set(expr, { window: windows.get(key)!, base, offset: access.offset, bytes: access.bytes, covered: false });
    });
    const runs = loadRuns(binaryen.getFunctionInfo(func).body, sites);
    // A window with runs keeps a third local, the cap of its widest run's addresses: a run is inside the window when
    // its lowest address is below that cap, one compare for the whole run.
    for (const run of runs) {
      const offsets = run.sites.map((e) => sites.get(e)!.offset);
      const window = sites.get(run.sites[0])!.window;
      window.reach = Math.max(window.reach, Math.max(...offsets) - Math.min(...offsets));
      if (window.hull < 0) window.hull = local();
    }
    // Windows start invalid (cap 0: a local's initial value); those in the TCM arena are dropped after every call.
    let body = binaryen.getFunctionInfo(func).body;
    if (windows.size) {
      // Only a window in the TCM arena can turn false (the slow path's windows lie wholly inside it or wholly outside:
      // outside, a load window is memory where loads are not checked, a store window a range the call owns until it
      // ends), so only those are dropped: a loop calling the kernel library (an accessor's read and write) keeps its
      // other windows instead of taking the slow path after every call.
      const inArena = (w: Window) => module.i32.lt_u(module.i32.sub(module.local.get(w.lo, i32), global("tcmLo")), global("tcmSpan"));
      const drop = () => tag(module.block(null, [...windows.values()].map((w) =>
        module.if(inArena(w), module.block(null, [w.cap, ...(w.hull >= 0 ? [w.hull] : [])].map((l) => module.local.set(l, c(0))))))), []);
      // The sanitizer's checks (imports of its module, build/sanitize-pass.ts) change no TCM: their calls keep the
      // windows, and stay as they are (a sanitize error names the place of its call).
      const sanitizeCheck = (call: number) => {
        const info = binaryen.getExpressionInfo(call) as unknown as { id: number; target?: string };
        if (info.id !== binaryen.CallId || !info.target) return false;
        const callee = module.getFunction(info.target);
        return callee !== 0 && binaryen.getFunctionInfo(callee).module === SANITIZE_MODULE;
      };
      body = afterEachCall(module, func, body, drop, (wrapper, call) => { tag(wrapper, [call]); }, (call) => sanitizeCheck(call) || queryCalls.has(call));
    }

    /** The address an access of a site reads or writes: its pointer local plus constants, or the temporary p. */
    const addressOf = (base: Base | null, p: number, offset: number) => () => {
      const pointer = base ? module.local.get(base.local, i32) : get(p);
      const constant = offset + (base ? base.offset : 0);
      return constant ? module.i32.add(pointer, c(constant)) : pointer;
    };
    /** if ((a - lo) u>= cap) { window(a, n, store) at the access's place; lo = win_lo; cap = win_len - n + 1 } */
    const windowTest = (access: number, window: Window, address: () => number, bytes: number, store: boolean): number =>
      module.if(module.i32.ge_u(module.i32.sub(address(), get(window.lo)), get(window.cap)), module.block(null, [
        placed(access, module.call(fn("window"), [address(), c(bytes), c(store ? 1 : 0)], none)),
        module.local.set(window.lo, global("winLo")),
        module.local.set(window.cap, module.i32.sub(global("winLen"), c(bytes - 1))),
        ...(window.mark >= 0 ? [module.local.set(window.mark, global("winMark"))] : []),
        // cap - reach, or 0 (no run fits) when the window is narrower than that.
        ...(window.hull >= 0 ? [module.local.set(window.hull, module.select(module.i32.gt_u(get(window.cap), c(window.reach)), module.i32.sub(get(window.cap), c(window.reach)), c(0)))] : []),
      ]));
    /**
     * The pointer operand with its window test in front (unless a run's test ahead covers it, see hoistedTests). A
     * store then marks the written-map where it lands in TCM. The pointer is evaluated once: a local (plus a constant)
     * is read again, anything else goes through a new local.
     */
    const checked = (access: number, ptr: number, offset: number, bytes: number, store: boolean): number => {
      const site = sites.get(access);
      const base = site?.base ?? null;
      if (site?.covered) return ptr;
      const p = base ? -1 : local();
      const address = addressOf(base, p, offset);
      const code: number[] = base ? [] : [module.local.set(p, ptr)];
      if (site) code.push(windowTest(access, site.window, address, bytes, store));
      if (store) {
        // The mark's static offset holds the pointer's constant and the access's offset: its pointer is the local alone.
        // A store with a window marks when its window is TCM (the window says so); one without (sanitize mode, whose
        // own checks refuse a store outside the call's memory) when it lands in the arena.
        const pointer = () => (base ? module.local.get(base.local, i32) : get(p));
        const inTcm = site ? get(site.window.mark) : module.i32.lt_u(module.i32.sub(address(), get(tcmLo())), get(tcmSpan()));
        code.push(module.if(inTcm, markWritten(pointer, offset + (base ? base.offset : 0), bytes)));
      }
      return tag(module.block(null, [...code, base ? ptr : get(p)], i32), [ptr]);
    };
    /** A bulk instruction's first operand: evaluates all three into locals, calls the runtime's check, yields the first. */
    const bulk = (first: number, second: number, size: number, check: (a: number, b: number, n: number) => number) => {
      const [a, b, n] = [local(), local(), local()];
      const block = tag(module.block(null, [module.local.set(a, first), module.local.set(b, second), module.local.set(n, size), check(a, b, n), get(a)], i32), [first, second, size]);
      return { block, second: get(b), size: get(n) };
    };
    // A bulk store the sanitizer checks (sanitize mode) still marks what it writes in TCM, which later reads need.
    const storeCall = (access: number, d: number, n: number) => options.checkStores
      ? placed(access, module.call(fn("store"), [get(d), get(n)], none))
      : module.call(fn("mark"), [get(d), get(n)], none);

    for (const expr of found) {
      // The access itself keeps its place explicitly: emitted after the check's code (mapped to CHECK_SOURCE), it must
      // map back to the kernel's line, or profiling would count it as the check's.
      const place = places.get(expr);
      if (checkFile !== null && place) module.setDebugLocation(func, expr, place.file, place.line, place.column);
      const id = binaryen.getExpressionId(expr);
      const access = accessOf(expr);
      if (access) {
        access.setPtr(checked(expr, access.ptr, access.offset, access.bytes, access.store));
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
    // Each run's test goes before the run's first statement: its lowest address below the window's hull cap means every
    // access of the run is inside the window (a window is one interval); else each access is checked as alone, in order.
    for (const run of [...runs].sort((a, b) => b.index - a.index)) {
      const lowest = run.sites.reduce((m, e) => (sites.get(e)!.offset < sites.get(m)!.offset ? e : m));
      const { window, base, bytes } = sites.get(lowest)!;
      const outside = module.i32.ge_u(module.i32.sub(addressOf(base, -1, sites.get(lowest)!.offset)(), get(window.lo)), get(window.hull));
      const each = run.sites.map((e) => windowTest(e, window, addressOf(base, -1, sites.get(e)!.offset), bytes, false));
      const test = module.if(outside, module.block(null, each));
      (binaryen as unknown as { Block: { insertChildAt(b: number, i: number, c: number): void } }).Block.insertChildAt(run.block, run.index, tag(test, []));
    }
    const info = binaryen.getFunctionInfo(func);
    const loads = tcmBounds ? [tag(module.local.set(tcmBounds[0], global("tcmLo")), []), tag(module.local.set(tcmBounds[1], global("tcmSpan")), [])] : [];
    B._BinaryenFunctionSetBody(func, module.block(null, [...loads, body], info.results));
  }
}

/**
 * A check window's locals: an access of n bytes at a is known fine when (a - lo) u< cap (cap = window bytes - n + 1);
 * a store window's mark is 1 when it is TCM (-1: a load window has none); a window with runs keeps hull = cap - reach
 * (0 when that would be negative), reach being the widest run's highest offset less its lowest (-1: no runs).
 */
interface Window { lo: number; cap: number; mark: number; hull: number; reach: number }
/** An access with a window: its pointer (local + constant, or null), static offset, bytes; covered by a run's test. */
interface Site { window: Window; base: Base | null; offset: number; bytes: number; covered: boolean }
/** Loads through one window in consecutive statements of a block: one test before statement `index` covers them all. */
interface Run { block: number; index: number; sites: number[] }

/** Expression kinds a statement of a run may hold: no call, store, branch or other control flow. */
const PURE_KINDS = new Set(["LocalGet", "LocalSet", "GlobalGet", "Const", "Unary", "Binary", "Select", "Drop", "Nop", "Load", "SIMDLoad",
  "SIMDExtract", "SIMDReplace", "SIMDShuffle", "SIMDTernary", "SIMDShift"].map((k) => ids[`${k}Id`]));

/**
 * The runs of a function body: in each block, consecutive statements that only compute and load (PURE_KINDS) and
 * hold loads through the same window, none of them setting the window's pointer local. Their loads run in order with
 * nothing between that could change what is written or free a block, so the run's test can come first, and a run
 * of two or more loads is worth one (v128.load(p), v128.load(p, 16), ... of a SIMD loop: two compares, not four). Marks
 * the sites covered.
 */
function loadRuns(body: number, sites: Map<number, Site>): Run[] {
  const runs: Run[] = [];
  walkExpressions(body, (block, id, info) => {
    if (id !== binaryen.BlockId) return;
    const open = new Map<Window, Run>();
    const close = (w: Window) => {
      const run = open.get(w);
      open.delete(w);
      if (run && run.sites.length >= 2) { runs.push(run); for (const e of run.sites) sites.get(e)!.covered = true; }
    };
    ((info as { children: number[] }).children).forEach((child, index) => {
      let pure = true;
      const setLocals = new Set<number>();
      const loads: number[] = [];
      walkExpressions(child, (e, kind, i) => {
        if (!PURE_KINDS.has(kind)) pure = false;
        if (kind === binaryen.LocalSetId) setLocals.add((i as { index: number }).index);
        const site = sites.get(e);
        if (site?.base && !site.covered && (kind === binaryen.LoadId || kind === binaryen.SIMDLoadId)) loads.push(e);
      }, (kind) => new Error(`ownership checks: cannot walk expression kind ${kind}`));
      if (!pure) { for (const w of [...open.keys()]) close(w); return; }
      for (const w of [...open.keys()]) if (setLocals.has(sites.get(open.get(w)!.sites[0])!.base!.local)) close(w);
      for (const e of loads.reverse()) { // the walk visits children last first: reversed, in evaluation order
        const site = sites.get(e)!;
        if (setLocals.has(site.base!.local)) continue;
        const run = open.get(site.window) ?? { block, index, sites: [] };
        open.set(site.window, run);
        run.sites.push(e);
      }
    });
    for (const w of [...open.keys()]) close(w);
  }, (id) => new Error(`ownership checks: cannot walk expression kind ${id}`));
  return runs;
}

/** A pointer operand that is a local, plus a constant. */
interface Base { local: number; offset: number }

/** The pointer as local + constant (local.get x, or x + c), whose value the check can read again; else null. */
function baseOf(ptr: number): Base | null {
  const info = (e: number) => binaryen.getExpressionInfo(e) as unknown as { id: number; index: number; op: number; left: number; right: number; value: unknown };
  const id = binaryen.getExpressionId(ptr);
  if (id === binaryen.LocalGetId) return { local: info(ptr).index, offset: 0 };
  if (id !== binaryen.BinaryId || info(ptr).op !== binaryen.AddInt32) return null;
  const { left, right } = info(ptr);
  for (const [x, k] of [[left, right], [right, left]]) {
    if (binaryen.getExpressionId(x) !== binaryen.LocalGetId || binaryen.getExpressionId(k) !== binaryen.ConstId) continue;
    const value = info(k).value;
    // A constant the access's static offset can take (so the mark can use it as one): below 1 GiB, not negative.
    if (typeof value === "number" && value >= 0 && value < 1 << 30) return { local: info(x).index, offset: value };
  }
  return null;
}

/** A single load or store: its pointer (and setter), static offset, bytes and whether it writes; null for a bulk one. */
function accessOf(expr: number): { ptr: number; setPtr: (v: number) => void; offset: number; bytes: number; store: boolean } | null {
  const id = binaryen.getExpressionId(expr);
  const of = (kind: Kind, bytes: number, store: boolean) => ({
    ptr: B[kind].getPtr(expr), setPtr: (v: number) => void B[kind].setPtr(expr, v), offset: B[kind].getOffset(expr), bytes, store,
  });
  if (id === binaryen.LoadId) return of("Load", B.Load.getBytes(expr), false);
  if (id === binaryen.StoreId) return of("Store", B.Store.getBytes(expr), true);
  if (id === binaryen.AtomicRMWId) return of("AtomicRMW", B.AtomicRMW.getBytes(expr), true);
  if (id === binaryen.AtomicCmpxchgId) return of("AtomicCmpxchg", B.AtomicCmpxchg.getBytes(expr), true);
  if (id === binaryen.SIMDLoadId) return of("SIMDLoad", SIMD_LOAD_BYTES.get(B.SIMDLoad.getOp(expr)) ?? 16, false);
  if (id === binaryen.SIMDLoadStoreLaneId) return of("SIMDLoadStoreLane", SIMD_LANE_BYTES.get(B.SIMDLoadStoreLane.getOp(expr))!, Boolean(B.SIMDLoadStoreLane.isStore(expr)));
  return null;
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
