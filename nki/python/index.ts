// The Python room's public API: load a kernel file (parse, run its module-level code once) and
// call its functions; the value model, the import registry and the helpers native code uses.

import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import { PyModule, type CallContext, type PyValue, type SourceSite } from "./values.js";
import { Interpreter, type StopOptions } from "./interpreter.js";
import { ModuleLoader } from "./modules.js";
import { parseModule } from "./parse.js";
import { PyFunction } from "./objects.js";
import { callValue } from "./operators.js";
import { toGpsimdError } from "./python-errors.js";
import "./stdlib.js";

export interface LoadOptions extends StopOptions {
  /** The file's text; when given, the file is not read from disk (file then only names it). */
  source?: string;
}

/** A loaded kernel file: its module globals, and a way to call what it defines. */
export interface Program {
  readonly file: string;
  readonly globals: PyModule;
  readonly interpreter: Interpreter;
  /**
   * Calls a Python value (a PyFunction, a class, anything callable) with Python arguments. An
   * uncaught Python exception becomes PythonError E_PY_<Type> (KernelAbortError E_NKI_ASSERT for an
   * assert); gpsimd errors pass through.
   */
  call(fn: PyValue, args: PyValue[], kwargs?: Map<string, PyValue>, stop?: StopOptions): PyValue;
}

/** Parses `file` and runs its module-level code once, with __name__ set to the file's stem. */
export function loadProgram(file: string, options: LoadOptions = {}): Program {
  const source = options.source ?? readFileSync(file, "utf8");
  const interpreter = new Interpreter({ deadline: options.deadline, shouldStop: options.shouldStop });
  const loader = new ModuleLoader(interpreter);
  interpreter.importer = loader;
  const name = basename(file, extname(file)) || "__kernel__";
  const globals = new PyModule(name);
  globals.attrs.set("__name__", name);
  globals.attrs.set("__file__", file);
  globals.attrs.set("__doc__", null);
  loader.add(name, globals);
  const module = parseModule(file, source);
  try {
    interpreter.runModule(module, globals.attrs);
  } catch (e) { throw toGpsimdError(e); }
  return {
    file, globals, interpreter,
    call(fn, args, kwargs = new Map(), stop) {
      const saved = interpreter.stop;
      if (stop) interpreter.stop = stop;
      // A host object wrapping a def (an NKI kernel) offers the def's site, as a PyFunction does: the
      // traceback then starts at the kernel, not at line 1 of the module.
      const defSite = (fn as { defSite?: SourceSite } | null)?.defSite;
      const site = fn instanceof PyFunction ? fn.site : defSite ?? { file, line: 1, column: 1, function: "<module>" };
      const ctx: CallContext = { site, stack: [] };
      try {
        return callValue(fn, args, kwargs, ctx);
      } catch (e) { throw toGpsimdError(e); } finally { interpreter.stop = saved; }
    },
  };
}

export * from "./values.js";
export { PyFunction, PyClass, PyInstance, BoundMethod, NativeMethod, exceptionClassFor } from "./objects.js";
export type { FunctionParam } from "./objects.js";
export { PyHostType, PySet, PyRange, PyIterator } from "./types.js";
export { registerNativeModule, isNativeModuleRegistered } from "./modules.js";
export { Placeholder, isPlaceholder, setPlaceholdersForbidden, placeholdersForbidden } from "./placeholder.js";
export { bindArgs, bindParams, parseParamSpec, type ParamSpec } from "./args.js";
export { pyRepr, pyStr, formatValue, floatRepr } from "./format.js";
export {
  truthy, pyEquals, typeName, keyOf, binaryOp, inplaceOp, unaryOp, compareOp, contains, iterate, toArray, pyLen,
  getItem, setItem, callValue, sliceIndices, isCallable,
} from "./operators.js";
export { getAttribute, lookupAttribute, setAttribute } from "./methods.js";
export { isInstance, typeOf, toInt, toFloat } from "./builtins.js";
export { toGpsimdError, formatTraceback } from "./python-errors.js";
export { parseModule } from "./parse.js";
export { Interpreter, type StopOptions } from "./interpreter.js";
