// Executed-instruction counting, on only when asked: the counting copy of a
// loaded library is the same library with its kernel module rewritten by
// build/count-pass.ts. It is made from the library's placed code at the
// first request and kept until the library unloads; it shares the library's
// static data, so its kernels see the same device memory. Plain calls never
// run it: a library's own module has no counters.
import { Library, type PlacedModule } from "../library/library.js";
import { corePool } from "../cores/pool.js";
import { instrumentCounting, type CountingModule } from "../../build/count-pass.js";
import { RegistryError, LibraryFormatError } from "../checks/errors.js";
import { isGpsimdRuntime, isGpsimdRuntimeFile } from "../../build/runtime-names.js";
import { CHECK_SOURCE } from "../../build/ownership-names.js";
import { toOriginalOffset } from "../../build/relocate.js";
import { createSourceLocator, sourceFileLookup } from "../checks/source-locator.js";

const copies = new WeakMap<Library, Library>();

/**
 * The counting copy of `library`: call its operators (with trace on) and each core's trace carries the executed
 * instructions by class (CoreTrace.instructions). Made once per library; unloaded with it.
 */
export function countingLibrary(library: Library): Library {
  if (library.isUnloaded) throw new RegistryError("E_UNLOADED", `library ${library.namespace} (${library.path}) was unloaded: it has no counting copy`);
  const known = copies.get(library);
  if (known && !known.isUnloaded) return known;
  const placed = library.placed;
  const lookup = placed.sourceMap ? sourceFileLookup(placed.sourceMap, placed.offsetMap) : null;
  let counted: CountingModule, module: WebAssembly.Module;
  try {
    counted = instrumentCounting(placed.code, { isRuntimeFunction: isGpsimdRuntime, isRuntimeFile: isGpsimdRuntimeFile, isCheckFile: (file) => file === CHECK_SOURCE, sourceFileAt: lookup ?? undefined });
    module = new WebAssembly.Module(counted.wasm);
  } catch (e) {
    throw new LibraryFormatError("E_COUNTING", `lib${library.manifest.name}: its kernel module cannot be instrumented to count executed instructions (${e instanceof Error ? e.message : String(e)}); profile it without counting (profile(..., { count: false }), gpsimd profile --no-count)`, { cause: e });
  }
  const offsetMap = composeOffsetMaps(counted.anchors, placed.offsetMap);
  const copyPlaced: PlacedModule = {
    ...placed, module, code: counted.wasm, offsetMap, sharesStaticData: true,
    locator: placed.sourceMap ? createSourceLocator(placed.sourceMap, offsetMap, counted.wasm) : null,
  };
  const copy = new Library(library.namespace, library.path, library.manifest, copyPlaced, [...library.ops.values()].map((o) => o.definition),
    { ...library.options }, library.cores, library.threads, corePool);
  copies.set(library, copy);
  const unload = library.unload.bind(library);
  library.unload = () => { unload(); copy.unload(); };
  return copy;
}

/**
 * Offset maps (pairs newOffset, oldOffset: build/relocate.ts) chained: `outer` takes the counting module to the
 * library's code, `inner` the library's code to the build its source map describes; the result goes all the way.
 */
export function composeOffsetMaps(outer: Uint32Array, inner: Uint32Array): Uint32Array {
  const pairs: number[] = [];
  let j = 0;
  for (let i = 0; i < outer.length; i += 2) {
    const [n, m] = [outer[i], outer[i + 1]];
    const end = i + 2 < outer.length ? m + (outer[i + 2] - n) : Infinity; // outer's piece covers [m, end) of the middle
    pairs.push(n, toOriginalOffset(inner, m));
    while (j < inner.length && inner[j] <= m) j += 2;
    for (let k = j; k < inner.length && inner[k] < end; k += 2) pairs.push(n + inner[k] - m, inner[k + 1]);
  }
  return Uint32Array.from(pairs);
}
