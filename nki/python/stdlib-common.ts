// Helpers the standard-library modules share.

import { NativeFunction, PyModule, type CallContext, type PyValue } from "./values.js";

export function module(name: string, entries: Record<string, PyValue>): PyModule {
  const m = new PyModule(name);
  m.attrs.set("__name__", name);
  for (const [k, v] of Object.entries(entries)) m.attrs.set(k, v);
  return m;
}

export function fn(name: string, f: (args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext) => PyValue): NativeFunction {
  return new NativeFunction(name, f);
}
