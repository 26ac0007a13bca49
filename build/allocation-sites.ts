// Numbers every tcm_malloc call of a kernel, so that a TCM block still allocated when the kernel returns names the
// statement that allocated it. WebAssembly has no return addresses: the kernel library cannot see who called it, and
// at return the kernel's frames are gone. So the build passes the caller's number along: each call `tcm_malloc(n)`
// becomes `tcm_malloc_at(n, site)`, site = 1, 2, ... in the order met, and the kernel library stores the number in the
// block's table entry (TCMB_SITE). The number needs no table of its own: it is the last operand of its call, so in the
// built module `i32.const site` comes right before the `call`, whose own source place (the kernel statement, as for
// any kernel-library call: build/call-sites.ts) the source locator reads when a leak is reported
// (host/checks/source-locator.ts, locateAllocation). The allocator keeps its parameter through the optimiser because
// it is never inlined (call-sites.ts, post-link.ts) and is exported (below), so it is its own function with its own
// signature.
//
// One pass for both kernel languages: AssemblyScript kernels call the kernel library's tcm_malloc directly (before
// asc optimises, build/asc.ts); C++ kernels call the runtime's C ABI import gpsimd_tcm_malloc (before the kernel is
// merged with the runtime, build/cpp/post-link.ts). Runs on each build of a library alike (A and B of
// build/relocate.ts: the numbers are the same in both).
import binaryen from "binaryen";
import { walkExpressions } from "./binaryen-walk.js";
import { SITED_EXPORT } from "./allocation-site-names.js";

/** Call setters the JS API has but its typings do not declare. */
const api = binaryen as unknown as {
  Call: { setTarget(call: binaryen.ExpressionRef, name: string): void; appendOperand(call: binaryen.ExpressionRef, operand: binaryen.ExpressionRef): number };
};

/** Where the calls go: `from` (internal name) is the allocator without a site; `to` is the one with, added as an import when `import` is given. */
export interface AllocationSiteTarget {
  from: string;
  to: string;
  /** The C ABI import to add for `to` (a C++ kernel before the merge). */
  import?: { module: string; base: string };
}

/** Rewrites every call of target.from into a call of target.to with its site number; returns how many calls. */
export function numberAllocationSites(module: binaryen.Module, target: AllocationSiteTarget): number {
  const calls: binaryen.ExpressionRef[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const { name, body, module: imported } = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (imported || !body) continue;
    walkExpressions(body, (expr, id, info) => {
      if (id === binaryen.CallId && info!.target === target.from) calls.push(expr);
    }, (id) => new Error(`numberAllocationSites: ${name} holds an instruction the pass does not know (expression id ${id}); teach build/binaryen-walk.ts its children`));
  }
  if (!calls.length) return 0;
  // Exported, the allocator keeps its signature: dead-argument elimination would otherwise fold a site number that
  // every call passes alike (a library with one call) into the function, and drop it from the call. (The C ABI entry
  // a C++ kernel imports is exported by the device runtime.)
  if (target.import) module.addFunctionImport(target.to, target.import.module, target.import.base, binaryen.createType([binaryen.i32, binaryen.i32]), binaryen.i32);
  else module.addFunctionExport(target.to, SITED_EXPORT);
  calls.forEach((call, i) => {
    api.Call.setTarget(call, target.to);
    api.Call.appendOperand(call, module.i32.const(i + 1));
  });
  return calls.length;
}
