// Stack checks for a C++ kernel: its stack (clang's __stack_pointer, growing
// down) lives on the core's kernel heap, [gpsimd_stack_limit,
// gpsimd_stack_top] of the runtime (assembly/cpp-abi.ts), so a frame too large
// for it, recursion too deep, or a variable-length array or alloca of a wild
// size would overwrite memory outside it in silence. A stack-pointer move that
// starts on the kernel's stack and leaves it, in either direction, calls the
// runtime's gpsimd_stack_overflow, which stops the kernel with a named error.
// The moves checked:
// - `global.set $__stack_pointer v` (frames of functions that call, alloca):
//   v must stay in [limit, top];
// - `s - n` where s is the stack pointer (`global.get $__stack_pointer`) or a
//   local that only ever holds it or a decrement of it (a leaf function's
//   frame or VLA, which never writes the pointer back): n, unsigned, must not
//   exceed s - limit. A negative n (a negative size) is a huge unsigned one, as
//   is a size that would wrap the pointer past address 0 to a high address;
// - a size computed in 64 bits (binaryen.js's i64.const takes a bigint, which its typings do not say) and cut to 32 inside such an n
//   (`i32.wrap_i64`, a VLA bound or alloca size of type int64_t): a size of 4
//   GB or more (or a negative one) would otherwise wrap to a small one.
// A pointer not on the kernel's stack (the static stack lld gives code that
// runs before the kernel switched stacks) is not checked. Each move that stays
// on the stack also lowers the runtime's gpsimd_stack_low when it goes below
// it: the stack under that mark was not touched, and the host clears only the
// rest between calls (host/cores/heap-hygiene.ts). The call a
// subtraction's check makes takes the subtraction's source place (the VLA's
// or alloca's line), so the error names that line even when the optimiser
// inlines the function.
import binaryen from "binaryen";
import { walkExpressions } from "../binaryen-walk.js";

const STACK_POINTER = "__stack_pointer";
/** The runtime's exports the checks use (assembly/cpp-abi.ts). */
const LIMIT = "gpsimd_stack_limit", TOP = "gpsimd_stack_top", OVERFLOW = "gpsimd_stack_overflow", LOW = "gpsimd_stack_low";

/** binaryen.js getters and setters and the local adder its typings do not declare. */
const api = binaryen as unknown as {
  GlobalSet: { getName(e: number): string; getValue(e: number): number; setValue(e: number, v: number): void };
  GlobalGet: { getName(e: number): string };
  LocalSet: { getIndex(e: number): number; getValue(e: number): number };
  LocalGet: { getIndex(e: number): number };
  Binary: { getOp(e: number): number; getLeft(e: number): number; getRight(e: number): number; setRight(e: number, v: number): void };
  Unary: { getOp(e: number): number; getValue(e: number): number; setValue(e: number, v: number): void };
  _BinaryenFunctionAddVar(f: number, t: number): number;
};

const isStackPointerGet = (e: number) => binaryen.getExpressionId(e) === binaryen.GlobalGetId && api.GlobalGet.getName(e) === STACK_POINTER;

/**
 * The function's locals that only ever hold the stack pointer or a decrement of it (a copy taken on entry, the frame
 * base after `s - n`): a subtraction from one is a stack-pointer move. A local also used for anything else (LLVM
 * reuses locals) is left out, so no ordinary integer is mistaken for the stack pointer.
 */
function stackPointerLocals(body: number, params: number, name: string): Set<number> {
  const assigned = new Map<number, number[]>();
  walkExpressions(body, (expr, id) => {
    if (id !== binaryen.LocalSetId) return;
    const index = api.LocalSet.getIndex(expr);
    assigned.set(index, [...(assigned.get(index) ?? []), api.LocalSet.getValue(expr)]);
  }, (id) => new Error(`insertStackChecks: ${name} holds an instruction the pass does not know (expression id ${id})`));
  const locals = new Set([...assigned].filter(([index, values]) => index >= params && values.some(isStackPointerGet)).map(([index]) => index));
  const holdsStackPointer = (e: number): boolean => {
    if (isStackPointerGet(e)) return true;
    if (binaryen.getExpressionId(e) === binaryen.LocalGetId) return locals.has(api.LocalGet.getIndex(e));
    return false;
  };
  const isDecrement = (e: number) => binaryen.getExpressionId(e) === binaryen.BinaryId && api.Binary.getOp(e) === binaryen.SubInt32 && holdsStackPointer(api.Binary.getLeft(e));
  for (let changed = true; changed;) {
    changed = false;
    for (const index of locals) {
      if (assigned.get(index)!.every((v) => isStackPointerGet(v) || isDecrement(v))) continue;
      locals.delete(index);
      changed = true;
    }
  }
  return locals;
}

/** Checks every stack-pointer move of the module's functions; returns how many. `from`: the runtime's import module. */
export function insertStackChecks(module: binaryen.Module, from: string): number {
  if (!module.getGlobal(STACK_POINTER)) return 0;
  const { i32 } = binaryen;
  module.addGlobalImport(LIMIT, from, LIMIT, i32, true);
  module.addGlobalImport(TOP, from, TOP, i32, true);
  module.addGlobalImport(LOW, from, LOW, i32, true);
  module.addFunctionImport(OVERFLOW, from, OVERFLOW, binaryen.none, binaryen.none);
  const sp = () => module.global.get(STACK_POINTER, i32);
  const limit = () => module.global.get(LIMIT, i32);
  const top = () => module.global.get(TOP, i32);
  const overflow = () => module.call(OVERFLOW, [], binaryen.none);
  /** v is on the kernel's stack: limit <= v <= top (v is read twice: a local.get or global.get). */
  const onStack = (v: () => number) => module.i32.and(module.i32.ge_u(v(), limit()), module.i32.le_u(v(), top()));
  /** if (onStack(v) && v < low) low = v (v is read several times: side-effect free). */
  const lower = (v: () => number) => module.if(module.i32.and(onStack(v), module.i32.lt_u(v(), module.global.get(LOW, i32))), module.global.set(LOW, v()));
  const moves = stackPointerMoves(module);
  const places = sourcePlaces(module, moves.flatMap((m) => m.subs));
  let checks = 0;
  for (const { f, sets, subs } of moves) {
    const local = () => api._BinaryenFunctionAddVar(f, i32);
    for (const set of sets) {
      // The pointer set from on the stack to off it: if (onStack(sp) && !onStack(next)) overflow().
      const next = local();
      const get = () => module.local.get(next, i32);
      api.GlobalSet.setValue(set, module.block(null, [
        module.local.set(next, api.GlobalSet.getValue(set)),
        module.if(module.i32.and(onStack(sp), module.i32.eqz(onStack(get))), overflow()),
        lower(get),
        get(),
      ], i32));
    }
    for (const sub of subs) {
      // s - n, s on the stack: n (unsigned) may not exceed s - limit. n is checked before the subtraction reads it.
      const left = api.Binary.getLeft(sub);
      const s = binaryen.getExpressionId(left) === binaryen.LocalGetId ? (() => { const at = api.LocalGet.getIndex(left); return () => module.local.get(at, i32); })() : sp;
      const n = local();
      const place = places.get(sub);
      /** The overflow call, at the subtraction's source place. */
      const placedOverflow = () => {
        const call = overflow();
        if (place) module.setDebugLocation(f, call, place.file, place.line, place.column);
        return call;
      };
      const size = checkWideSizes(module, f, api.Binary.getRight(sub), () => module.if(onStack(s), placedOverflow()), place);
      const checked = module.local.get(n, i32);
      api.Binary.setRight(sub, module.block(null, [
        module.local.set(n, size),
        module.if(module.i32.and(onStack(s), module.i32.gt_u(module.local.get(n, i32), module.i32.sub(s(), limit()))), placedOverflow()),
        lower(() => module.i32.sub(s(), module.local.get(n, i32))),
        checked,
      ], i32));
      // When the optimiser inlines the runtime's overflow function here, its abort call has no line; the source
      // locator then takes the next line in the function (host/checks/source-locator.ts): this one.
      if (place) module.setDebugLocation(f, checked, place.file, place.line, place.column);
    }
    checks += sets.length + subs.length;
  }
  return checks;
}

/** The stack-pointer writes and subtractions of one defined function. */
interface Moves { f: number; sets: number[]; subs: number[] }

function stackPointerMoves(module: binaryen.Module): Moves[] {
  const out: Moves[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const f = module.getFunctionByIndex(i);
    const { module: imported, body, name, params } = binaryen.getFunctionInfo(f);
    if (imported || !body) continue;
    const locals = stackPointerLocals(body, binaryen.expandType(params).length, name);
    const sets: number[] = [], subs: number[] = [];
    walkExpressions(body, (expr, id) => {
      if (id === binaryen.GlobalSetId && api.GlobalSet.getName(expr) === STACK_POINTER) sets.push(expr);
      else if (id === binaryen.BinaryId && api.Binary.getOp(expr) === binaryen.SubInt32) {
        const left = api.Binary.getLeft(expr);
        const leftId = binaryen.getExpressionId(left);
        if (isStackPointerGet(left) || (leftId === binaryen.LocalGetId && locals.has(api.LocalGet.getIndex(left)))) subs.push(expr);
      }
    }, (id) => new Error(`insertStackChecks: ${name} holds an instruction the pass does not know (expression id ${id}); teach build/binaryen-walk.ts its children`));
    out.push({ f, sets, subs });
  }
  return out;
}

/** A debug location as Binaryen stores it: an index into the module's debug file names, line, column. */
interface Place { file: number; line: number; column: number }

/**
 * The debug location of each subtraction (binaryen.js can set an expression's location but not read it): each one's
 * right operand becomes a marker constant for one printing of the module, and the `;;@ file:line:column` annotation
 * the printer wrote last before the subtraction is its place. Subtractions without one are left out.
 */
function sourcePlaces(module: binaryen.Module, subs: number[]): Map<number, Place> {
  const places = new Map<number, Place>();
  if (!subs.length) return places;
  const MARK = -1_987_654_321; // an i32 constant no compiler gives a stack size; marker k is MARK + k
  const rights = subs.map((sub) => api.Binary.getRight(sub));
  subs.forEach((sub, k) => api.Binary.setRight(sub, module.i32.const(MARK + k)));
  let text: string;
  try {
    text = module.emitText();
  } finally {
    subs.forEach((sub, k) => api.Binary.setRight(sub, rights[k]));
  }
  const files = new Map<string, number>();
  for (let i = 0; ; i++) {
    const name = module.getDebugInfoFileName(i);
    if (!name) break;
    files.set(name, i);
  }
  subs.forEach((sub, k) => {
    const at = text.indexOf(`(i32.const ${MARK + k})`);
    const subAt = at < 0 ? -1 : text.lastIndexOf("(i32.sub", at);
    if (subAt < 0) return;
    const funcAt = text.lastIndexOf("(func ", subAt);
    // The printer writes an annotation when the place changes (a bare `;;@`: none), so the last one is in force.
    const annotation = [...text.slice(Math.max(funcAt, 0), subAt).matchAll(/;;@(?: (.*):(\d+):(\d+))?$/gm)].at(-1);
    const file = annotation?.[1] !== undefined ? files.get(annotation[1]) : undefined;
    if (annotation && file !== undefined) places.set(sub, { file, line: Number(annotation[2]), column: Number(annotation[3]) });
  });
  return places;
}

/**
 * The size expression with each 64-bit value cut to 32 bits in it (`i32.wrap_i64 x`) checked first: x of 2^32 or
 * more (unsigned: a negative size too) is a size no stack holds, whatever its low 32 bits say; `onOverflow` gives the
 * check's action, `place` the subtraction's source place.
 */
function checkWideSizes(module: binaryen.Module, f: number, size: number, onOverflow: () => number, place: Place | undefined): number {
  const i64 = binaryen.i64;
  const wraps: number[] = [];
  walkExpressions(size, (expr, id) => {
    if (id === binaryen.UnaryId && api.Unary.getOp(expr) === binaryen.WrapInt64) wraps.push(expr);
  }, (id) => new Error(`insertStackChecks: a stack size holds an instruction the pass does not know (expression id ${id})`));
  for (const wrap of wraps) {
    const wide = api._BinaryenFunctionAddVar(f, i64);
    const checked = module.local.get(wide, i64);
    api.Unary.setValue(wrap, module.block(null, [
      module.local.set(wide, api.Unary.getValue(wrap)),
      module.if(module.i64.gt_u(module.local.get(wide, i64), (module.i64.const as unknown as (v: bigint) => number)(0xFFFFFFFFn)), onOverflow()),
      checked,
    ], i64));
    if (place) module.setDebugLocation(f, checked, place.file, place.line, place.column); // as for the subtraction's check
  }
  return size;
}
