// The sanitizer's instrumentation: a Binaryen pass that routes the address of
// EVERY memory-touching instruction of a kernel module through a check the
// host provides (host/checks/sanitizer.ts), before the instruction runs.
//
// Contract (for any kernel module: AssemblyScript builds, clang output):
// - Call instrumentMemory(module, { isRuntime }) once, before the module is
//   optimized and emitted (for AssemblyScript, in asc's afterCompile hook, where
//   the module still carries its debug locations for the source map). The
//   module must have one 32-bit memory (the pass does not look at memory names).
// - It adds eight imports from module "sanitize" (SANITIZE_IMPORTS):
//     load(addr, offset, bytes) -> addr          a kernel read of [addr + offset, + bytes)
//     store(addr, offset, bytes) -> addr         a kernel write (read-modify-writes count as writes)
//     runtime_load / runtime_store (same)        the same, by the kernel library's own code
//     bulk_load / bulk_store (same)              a kernel memory.copy's source and destination, a memory.fill's
//                                                or memory.init's destination (sanitize mode's initcheck carries
//                                                a copy's written bytes over and does not check them as reads)
//     memory_grow(delta) -> never returns        a kernel may not grow the shared device memory
//     heap_alloc(ptr) -> ptr                      a kernel heap allocator (HEAP_ALLOCATORS) handed out the
//                                                block at ptr: its bytes are unwritten again (initcheck)
//   `bytes` is an unsigned i32, a constant or the run-time length of a bulk
//   instruction; each check returns its address unchanged or throws.
// - isRuntime(name) says which functions are the kernel library's runtime (its
//   own bookkeeping in the context block: counters, TCM table, streams...):
//   their accesses use the runtime_* checks, which may also write the context
//   block's untrusted fields. Everything else (the kernel, the language's
//   standard library, helpers that take the kernel's raw pointers) is kernel.
//   Decide it by where a function came from, never by a name a kernel's source
//   could choose: a C++ kernel's own module is instrumented with
//   isRuntime = () => false (build/cpp/post-link.ts), the runtime apart.
// - It throws for an expression kind it does not know (GC, strings...), so no
//   memory access is ever left unchecked silently.
// - Bump SANITIZE_ABI (host/checks/sanitizer-fast-path.ts) when the imports or
//   what they are called with change: it is part of a sanitize-mode library's
//   hash, so libraries built by an older gpsimd are rebuilt.
// It is deterministic and does not look at constant addresses, so the two
// builds of build/compile.ts (at two static-data bases) stay identical but for
// those constants, as build/relocate.ts requires.
import { walkExpressions } from "./binaryen-walk.js";
import binaryen from "binaryen";
import { SANITIZE_MODULE } from "../host/checks/sanitizer-fast-path.js";
/** Import names, by internal function name. */
const HOOKS = {
  load: "__sanitize_load", store: "__sanitize_store",
  runtime_load: "__sanitize_runtime_load", runtime_store: "__sanitize_runtime_store",
  bulk_load: "__sanitize_bulk_load", bulk_store: "__sanitize_bulk_store",
  memory_grow: "__sanitize_memory_grow", heap_alloc: "__sanitize_heap_alloc",
} as const;
/**
 * The kernel heap's allocators as the kernel library's build names them (names no kernel source can give a function):
 * assembly/rt/stub.ts's __alloc (every block: heap.alloc, arrays, objects, the C++ stack) and __new (objects), and
 * for C++ malloc and new, assembly/cpp-abi.ts's gpsimd_malloc (the C++ device runtime is optimised before it is
 * instrumented, and __alloc is inlined there). Each returns a block whose payload size is the word before it.
 */
const HEAP_ALLOCATORS = new Set(["~lib/rt/stub/__alloc", "~lib/rt/stub/__new", "~lib/gpsimd/cpp-abi/gpsimd_malloc"]);
/** The imports an instrumented module needs (host/checks/sanitizer.ts provides them). */
export const SANITIZE_IMPORTS = Object.keys(HOOKS) as (keyof typeof HOOKS)[];

/** Which functions are the kernel library's runtime. */
export interface InstrumentOptions { isRuntime(functionName: string): boolean; }

export { isGpsimdRuntime } from "./runtime-names.js";

const ids = binaryen as unknown as Record<string, number>;
/** binaryen.js's per-kind getters and setters (binaryen.Load.getPtr, ...), which its typings do not declare. */
type Kind = "Load" | "Store" | "AtomicRMW" | "AtomicCmpxchg" | "AtomicWait" | "AtomicNotify" | "SIMDLoad" | "SIMDLoadStoreLane" | "MemoryCopy" | "MemoryFill" | "MemoryInit" | "MemoryGrow";
const B = binaryen as unknown as Record<Kind, Record<string, (expr: number, value?: number) => number>>;
/** Bytes read by each SIMD load form (v128.load is a plain Load of 16 bytes); the ops of SIMDLoad. */
const SIMD_LOAD_BYTES = opBytes([
  ["Load8SplatVec128", 1], ["Load16SplatVec128", 2], ["Load32SplatVec128", 4], ["Load64SplatVec128", 8],
  ["Load8x8SVec128", 8], ["Load8x8UVec128", 8], ["Load16x4SVec128", 8], ["Load16x4UVec128", 8], ["Load32x2SVec128", 8], ["Load32x2UVec128", 8],
  ["Load32ZeroVec128", 4], ["Load64ZeroVec128", 8],
]);
/** Bytes of each lane load and store; the ops of SIMDLoadStoreLane (numbered apart from SIMDLoad's). */
const SIMD_LANE_BYTES = opBytes([
  ["Load8LaneVec128", 1], ["Load16LaneVec128", 2], ["Load32LaneVec128", 4], ["Load64LaneVec128", 8],
  ["Store8LaneVec128", 1], ["Store16LaneVec128", 2], ["Store32LaneVec128", 4], ["Store64LaneVec128", 8],
]);
function opBytes(table: [string, number][]): Map<number, number> {
  const map = new Map(table.map(([op, bytes]) => [ids[op], bytes]));
  if (map.size !== table.length) throw new Error("sanitize: binaryen's SIMD op numbers are not what this pass expects");
  return map;
}

/** Every expression under root that touches memory (collected first: instrumenting adds expressions that need no check). */
function memoryExpressions(root: binaryen.ExpressionRef): binaryen.ExpressionRef[] {
  const found: binaryen.ExpressionRef[] = [];
  walkExpressions(root, (expr, id) => { if (TOUCHES_MEMORY.has(id)) found.push(expr); },
    (id, expr) => new Error(`sanitize: cannot instrument a module with expression kind ${id} (${binaryen.emitText(expr).split("\n")[0]})`));
  return found;
}

const TOUCHES_MEMORY = new Set(["Load", "Store", "AtomicRMW", "AtomicCmpxchg", "AtomicWait", "AtomicNotify", "SIMDLoad", "SIMDLoadStoreLane",
  "MemoryInit", "MemoryCopy", "MemoryFill", "MemoryGrow"].map((k) => ids[`${k}Id`]));

/** The static offset of an atomic wait or notify (binaryen.js has no getter for it). */
function printedOffset(expr: binaryen.ExpressionRef): number {
  const m = /^\(\S+ (?:\$\S+ )?offset=(\d+)/.exec(binaryen.emitText(expr));
  return m ? Number(m[1]) : 0;
}

/** Instruments every memory access of every function defined in the module (see the contract above). */
export function instrumentMemory(module: binaryen.Module, options: InstrumentOptions): void {
  const { i32 } = binaryen;
  if (module.hasMemory() && module.getMemoryInfo().is64) throw new Error("sanitize: 64-bit memories are not supported");
  const check = binaryen.createType([i32, i32, i32]);
  for (const name of SANITIZE_IMPORTS) {
    if (name === "memory_grow" || name === "heap_alloc") module.addFunctionImport(HOOKS[name], SANITIZE_MODULE, name, i32, i32);
    else module.addFunctionImport(HOOKS[name], SANITIZE_MODULE, name, check, i32);
  }
  const c = (n: number) => module.i32.const(n);
  for (let f = 0; f < module.getNumFunctions(); f++) {
    const func = module.getFunctionByIndex(f);
    const info = binaryen.getFunctionInfo(func);
    if (info.module || !info.body) continue; // an import
    const runtime = options.isRuntime(info.name);
    const load = runtime ? HOOKS.runtime_load : HOOKS.load;
    const store = runtime ? HOOKS.runtime_store : HOOKS.store;
    const bulkLoad = runtime ? HOOKS.runtime_load : HOOKS.bulk_load;
    const bulkStore = runtime ? HOOKS.runtime_store : HOOKS.bulk_store;
    /** ptr, checked: (call hook ptr offset bytes). */
    const checked = (hook: string, ptr: number, offset: number, bytes: number) => module.call(hook, [ptr, c(offset), c(bytes)], i32);
    /** A fresh i32 local of this function. */
    const local = () => (binaryen as unknown as { _BinaryenFunctionAddVar(f: number, t: number): number })._BinaryenFunctionAddVar(func, i32);
    /**
     * A bulk instruction with a run-time length: its first operand becomes a block that evaluates all three
     * operands in order into locals, checks the ranges, and yields the first; the others read the locals.
     */
    const get = (l: number) => module.local.get(l, i32);
    const bulk = (first: number, second: number, size: number, checks: (a: number, b: number, n: number) => number[]) => {
      const [a, b, n] = [local(), local(), local()];
      const block = module.block(null, [
        module.local.set(a, first), module.local.set(b, second), module.local.set(n, size),
        ...checks(a, b, n).map((e) => module.drop(e)), get(a),
      ], i32);
      return { block, second: get(b), size: get(n) };
    };
    for (const expr of memoryExpressions(info.body)) {
      const id = binaryen.getExpressionId(expr);
      if (id === binaryen.LoadId) {
        B.Load.setPtr(expr, checked(load, B.Load.getPtr(expr), B.Load.getOffset(expr), B.Load.getBytes(expr)));
      } else if (id === binaryen.StoreId) {
        B.Store.setPtr(expr, checked(store, B.Store.getPtr(expr), B.Store.getOffset(expr), B.Store.getBytes(expr)));
      } else if (id === binaryen.AtomicRMWId) {
        B.AtomicRMW.setPtr(expr, checked(store, B.AtomicRMW.getPtr(expr), B.AtomicRMW.getOffset(expr), B.AtomicRMW.getBytes(expr)));
      } else if (id === binaryen.AtomicCmpxchgId) {
        B.AtomicCmpxchg.setPtr(expr, checked(store, B.AtomicCmpxchg.getPtr(expr), B.AtomicCmpxchg.getOffset(expr), B.AtomicCmpxchg.getBytes(expr)));
      } else if (id === binaryen.AtomicWaitId) {
        const bytes = B.AtomicWait.getExpectedType(expr) === binaryen.i64 ? 8 : 4;
        B.AtomicWait.setPtr(expr, checked(load, B.AtomicWait.getPtr(expr), printedOffset(expr), bytes));
      } else if (id === binaryen.AtomicNotifyId) {
        B.AtomicNotify.setPtr(expr, checked(load, B.AtomicNotify.getPtr(expr), printedOffset(expr), 4));
      } else if (id === binaryen.SIMDLoadId) {
        B.SIMDLoad.setPtr(expr, checked(load, B.SIMDLoad.getPtr(expr), B.SIMDLoad.getOffset(expr), SIMD_LOAD_BYTES.get(B.SIMDLoad.getOp(expr))!));
      } else if (id === binaryen.SIMDLoadStoreLaneId) {
        const hook = B.SIMDLoadStoreLane.isStore(expr) ? store : load;
        B.SIMDLoadStoreLane.setPtr(expr, checked(hook, B.SIMDLoadStoreLane.getPtr(expr), B.SIMDLoadStoreLane.getOffset(expr), SIMD_LANE_BYTES.get(B.SIMDLoadStoreLane.getOp(expr))!));
      } else if (id === binaryen.MemoryCopyId) {
        const { block, second, size } = bulk(B.MemoryCopy.getDest(expr), B.MemoryCopy.getSource(expr), B.MemoryCopy.getSize(expr),
          (d, s, n) => [module.call(bulkLoad, [get(s), c(0), get(n)], i32), module.call(bulkStore, [get(d), c(0), get(n)], i32)]);
        B.MemoryCopy.setDest(expr, block); B.MemoryCopy.setSource(expr, second); B.MemoryCopy.setSize(expr, size);
      } else if (id === binaryen.MemoryFillId) {
        const { block, second, size } = bulk(B.MemoryFill.getDest(expr), B.MemoryFill.getValue(expr), B.MemoryFill.getSize(expr),
          (d, _v, n) => [module.call(bulkStore, [get(d), c(0), get(n)], i32)]);
        B.MemoryFill.setDest(expr, block); B.MemoryFill.setValue(expr, second); B.MemoryFill.setSize(expr, size);
      } else if (id === binaryen.MemoryInitId) {
        const { block, second, size } = bulk(B.MemoryInit.getDest(expr), B.MemoryInit.getOffset(expr), B.MemoryInit.getSize(expr),
          (d, _o, n) => [module.call(bulkStore, [get(d), c(0), get(n)], i32)]);
        B.MemoryInit.setDest(expr, block); B.MemoryInit.setOffset(expr, second); B.MemoryInit.setSize(expr, size);
      } else if (id === binaryen.MemoryGrowId) {
        B.MemoryGrow.setDelta(expr, module.call(HOOKS.memory_grow, [B.MemoryGrow.getDelta(expr)], i32));
      }
    }
    if (HEAP_ALLOCATORS.has(info.name)) reportResults(module, func, info.body, HOOKS.heap_alloc);
  }
}

/** Passes every value the function returns (its returns' values and its body's) through `hook` (i32 -> i32). */
function reportResults(module: binaryen.Module, func: binaryen.FunctionRef, root: binaryen.ExpressionRef, hook: string): void {
  const R = binaryen as unknown as { Return: { getValue(e: number): number; setValue(e: number, v: number): void }; Function: { setBody(f: number, e: number): void } };
  const returns: binaryen.ExpressionRef[] = [];
  walkExpressions(root, (expr, id) => { if (id === binaryen.ReturnId) returns.push(expr); }, () => new Error("sanitize: unknown expression in the heap allocator"));
  for (const r of returns) {
    const value = R.Return.getValue(r);
    if (value) R.Return.setValue(r, module.call(hook, [value], binaryen.i32));
  }
  if (binaryen.getExpressionType(root) === binaryen.i32) R.Function.setBody(func, module.call(hook, [root], binaryen.i32));
}
