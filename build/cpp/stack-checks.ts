// Stack checks for a C++ kernel: its stack (clang's __stack_pointer, growing
// down) lives on the core's kernel heap, from the runtime's gpsimd_stack_limit
// up (assembly/cpp-abi.ts), so a frame too large for it, or recursion too
// deep, would overwrite the heap below in silence. Every place the kernel moves
// the stack pointer down is checked: `global.set $__stack_pointer` (frames of
// functions that call, alloca) and `global.get $__stack_pointer - n` (frames of
// leaf functions, which never write the pointer back). A move from at or above
// the limit to below it calls the runtime's gpsimd_stack_overflow, which stops
// the kernel with a named error. A pointer already below the limit (the static
// stack lld gives code that runs before the kernel switched stacks) is not
// the kernel's stack, and not checked.
import binaryen from "binaryen";
import { walkExpressions } from "../binaryen-walk.js";

const STACK_POINTER = "__stack_pointer";
/** The runtime's exports the checks use (assembly/cpp-abi.ts). */
const LIMIT = "gpsimd_stack_limit", OVERFLOW = "gpsimd_stack_overflow";

/** binaryen.js setters and the local adder its typings do not declare. */
const api = binaryen as unknown as {
  GlobalSet: { getName(e: number): string; getValue(e: number): number; setValue(e: number, v: number): void };
  GlobalGet: { getName(e: number): string };
  Binary: { getOp(e: number): number; getLeft(e: number): number; getRight(e: number): number; setRight(e: number, v: number): void };
  _BinaryenFunctionAddVar(f: number, t: number): number;
};

/** Checks every stack-pointer decrement of the module's functions; returns how many. `from`: the runtime's import module. */
export function insertStackChecks(module: binaryen.Module, from: string): number {
  if (!module.getGlobal(STACK_POINTER)) return 0;
  const i32 = binaryen.i32;
  module.addGlobalImport(LIMIT, from, LIMIT, i32, true);
  module.addFunctionImport(OVERFLOW, from, OVERFLOW, binaryen.none, binaryen.none);
  const sp = () => module.global.get(STACK_POINTER, i32);
  const limit = () => module.global.get(LIMIT, i32);
  /** if (next < limit && sp >= limit) overflow(): the pointer is about to leave the kernel's stack downwards. */
  const check = (next: number) => module.if(
    module.i32.and(module.i32.lt_u(next, limit()), module.i32.ge_u(sp(), limit())),
    module.call(OVERFLOW, [], binaryen.none),
  );
  let checks = 0;
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const f = module.getFunctionByIndex(i);
    const { module: imported, body, name } = binaryen.getFunctionInfo(f);
    if (imported || !body) continue;
    const sets: number[] = [], subs: number[] = [];
    walkExpressions(body, (expr, id) => {
      if (id === binaryen.GlobalSetId && api.GlobalSet.getName(expr) === STACK_POINTER) sets.push(expr);
      else if (id === binaryen.BinaryId && api.Binary.getOp(expr) === binaryen.SubInt32) {
        const left = api.Binary.getLeft(expr);
        if (binaryen.getExpressionId(left) === binaryen.GlobalGetId && api.GlobalGet.getName(left) === STACK_POINTER) subs.push(expr);
      }
    }, (id) => new Error(`insertStackChecks: ${name} holds an instruction the pass does not know (expression id ${id}); teach build/binaryen-walk.ts its children`));
    for (const set of sets) {
      const next = api._BinaryenFunctionAddVar(f, i32);
      api.GlobalSet.setValue(set, module.block(null, [module.local.set(next, api.GlobalSet.getValue(set)), check(module.local.get(next, i32)), module.local.get(next, i32)], i32));
    }
    for (const sub of subs) {
      // sp - n: n is checked before the subtraction reads it (sp is the same global in both).
      const n = api._BinaryenFunctionAddVar(f, i32);
      api.Binary.setRight(sub, module.block(null, [module.local.set(n, api.Binary.getRight(sub)), check(module.i32.sub(sp(), module.local.get(n, i32))), module.local.get(n, i32)], i32));
    }
    checks += sets.length + subs.length;
  }
  return checks;
}
