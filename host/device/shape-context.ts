// Whether a shape function is running: factories then make meta tensors,
// and any attempt to read data is an error.
let depth = 0;

/** True while a shape function runs on this thread. */
export function inShapeFunction(): boolean { return depth > 0; }

/** Runs fn with factories in meta mode. */
export function withShapeContext<T>(fn: () => T): T {
  depth++;
  try { return fn(); } finally { depth--; }
}
