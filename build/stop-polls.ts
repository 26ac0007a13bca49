// A Binaryen pass that makes any kernel module stoppable from another thread.
// Kernels run on the calling thread and on worker threads; a runaway kernel
// cannot notice a deadline itself, so the host's watchdog thread writes a
// "stop word" in shared memory and every path the kernel can spin on reads it.
//
// Contract (any kernel module: AssemblyScript or C++, before or after
// optimisation; run it exactly once per module, on every build of a library):
// - Adds a mutable i32 global `__gpsimd_stop_word` (0 at start) holding the
//   address, in memory 0, of the i32 stop word of the core that runs, exported
//   under its name; and an export `__gpsimd_set_stop_word(address: i32)`. The
//   host calls it before every run (KernelInstance.run).
// - Or, given `stopWordFrom` (a C++ kernel, polled before it is merged into the
//   device runtime, whose functions asc already polled): imports that global
//   from that module instead, so the merged module has one stop word and one
//   setter.
// - Adds an import `gpsimd.stop()` (no params, no results). A poll calls it
//   when the stop word is not 0; the host throws there to stop the kernel, or
//   returns (a late request for an earlier launch, which it clears).
// - A poll is `if (i32.atomic.load (global.get $__gpsimd_stop_word)) call $gpsimd.stop`,
//   placed at the head of every loop body and at the entry of every function
//   that calls a function other than an import (direct, indirect or by ref).
//   So between two polls only straight-line code, one call of a function
//   without loops or calls, or one host import runs: recursion, closures
//   (call_indirect), mutual recursion and exponential call trees are covered.
//   The atomic load keeps V8 from hoisting it out of a loop.
// - `memory.atomic.wait` blocks a thread where nothing can stop it: the pass
//   names every function that contains one (report.atomicWaits) and the
//   build must refuse the module.
// Polls carry no debug location: instructions of the kernel keep their own,
// so a trap inside a loop still maps to its source line.
import { walkExpressions } from "./binaryen-walk.js";
import binaryen from "binaryen";
import { STOP_WORD_GLOBAL, SET_STOP_WORD_EXPORT, STOP_IMPORT } from "./stop-poll-names.js";

export { STOP_WORD_GLOBAL, SET_STOP_WORD_EXPORT, STOP_IMPORT };

const STOP_IMPORT_INTERNAL = "__gpsimd_stop_import";

/** What the pass did. */
export interface StopPollReport {
  /** Loop heads polled. */
  loops: number;
  /** Function entries polled. */
  entries: number;
  /** Functions (internal names) that contain memory.atomic.wait: the module must be refused. */
  atomicWaits: string[];
}

/** Setters the JS API has but its typings do not declare. */
const api = binaryen as unknown as {
  Function: { setBody(func: binaryen.FunctionRef, body: binaryen.ExpressionRef): void };
  Loop: { getBody(loop: binaryen.ExpressionRef): binaryen.ExpressionRef; setBody(loop: binaryen.ExpressionRef, body: binaryen.ExpressionRef): void };
};

const CALLS = new Set<number>([binaryen.CallId, binaryen.CallIndirectId, binaryen.CallRefId]);

/** Every expression of a function body, with the loops and calls it holds. */
function scan(body: number, imports: Set<string>, fn: string): { loops: number[]; calls: boolean; waits: boolean } {
  const loops: number[] = [];
  let calls = false, waits = false;
  walkExpressions(body, (expr, id, info) => {
    if (id === binaryen.LoopId) loops.push(expr);
    if (id === binaryen.AtomicWaitId) waits = true;
    if (CALLS.has(id) && !(id === binaryen.CallId && imports.has(info!.target as string))) calls = true;
  }, (id) => new Error(`insertStopPolls: ${fn} holds an instruction the pass does not know (expression id ${id}); teach build/binaryen-walk.ts its children`));
  return { loops, calls, waits };
}

/** Where the stop word's global lives: here (default), or exported by the module named `stopWordFrom`. */
export interface StopPollOptions { stopWordFrom?: string }

/** Instruments every defined function of the module (see the contract above). */
export function insertStopPolls(module: binaryen.Module, options: StopPollOptions = {}): StopPollReport {
  const imports = new Set<string>();
  const defined: binaryen.FunctionRef[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const f = module.getFunctionByIndex(i);
    const info = binaryen.getFunctionInfo(f);
    if (info.module) imports.add(info.name);
    else defined.push(f);
  }
  if (options.stopWordFrom !== undefined) {
    module.addGlobalImport(STOP_WORD_GLOBAL, options.stopWordFrom, STOP_WORD_GLOBAL, binaryen.i32, true);
  } else {
    module.addGlobal(STOP_WORD_GLOBAL, binaryen.i32, true, module.i32.const(0));
    module.addGlobalExport(STOP_WORD_GLOBAL, STOP_WORD_GLOBAL);
  }
  module.addFunctionImport(STOP_IMPORT_INTERNAL, STOP_IMPORT.module, STOP_IMPORT.name, binaryen.none, binaryen.none);
  const poll = () => module.if(module.i32.atomic.load(0, module.global.get(STOP_WORD_GLOBAL, binaryen.i32)), module.call(STOP_IMPORT_INTERNAL, [], binaryen.none));
  const report: StopPollReport = { loops: 0, entries: 0, atomicWaits: [] };
  for (const f of defined) {
    const { name, body } = binaryen.getFunctionInfo(f);
    const { loops, calls, waits } = scan(body, imports, name);
    if (waits) report.atomicWaits.push(name);
    for (const loop of loops) {
      const inner = api.Loop.getBody(loop);
      api.Loop.setBody(loop, module.block(null, [poll(), inner], binaryen.getExpressionType(inner)));
    }
    report.loops += loops.length;
    if (calls) {
      api.Function.setBody(f, module.block(null, [poll(), body], binaryen.getExpressionType(body)));
      report.entries++;
    }
  }
  if (options.stopWordFrom === undefined) {
    module.addFunction(SET_STOP_WORD_EXPORT, binaryen.i32, binaryen.none, [], module.global.set(STOP_WORD_GLOBAL, module.local.get(0, binaryen.i32)));
    module.addFunctionExport(SET_STOP_WORD_EXPORT, SET_STOP_WORD_EXPORT);
  }
  return report;
}

/** The build error for a module with atomic waits, naming each function. */
export function atomicWaitMessage(functions: string[]): string {
  const names = functions.map((f) => f.replace(/^.*\//, "")).join(", ");
  return `memory.atomic.wait in kernel code (${names}): a kernel may not block its core (nothing could stop it, and cores never synchronise on the device); remove the wait`;
}
