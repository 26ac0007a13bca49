// Names the statements behind a cross-core error, or behind output elements a single-core kernel never wrote
// (cross-core-errors.ts). The logs the checks read keep element ranges only: a call site per logged interval would
// cost every call a little, to serve only the calls that fail. Instead a failed call runs once more, on the calling
// thread, core after core (the same claims as any launch, with no worker taking part; a single-core call that ran on
// the calling thread outside the pool runs there too, Pool.locate), with FLAG_WATCH: the kernel library reports each
// access of the output to the host, which names the first one of each core that touches the ranges the error is
// about (host/checks/access-watch.ts).
//
// The rerun must change nothing the caller owns: it runs on copies of the call's tensors (the arguments as they are
// after the failed call, which a kernel can only read unless it makes raw stores, and a fresh output), freed after.
// Cores that do not synchronise compute their accesses from their own inputs, so the rerun makes the same accesses;
// should it not (a kernel whose ranges depend on what it read from another core's elements, or a rerun that fails),
// the error is reported as first found, saying that the statement was not found again.
import { AccessWatch, withWatch } from "../checks/access-watch.js";
import { pendingPlaces } from "./cross-core-errors.js";
import { Tensor } from "../device/tensor.js";
import { FLAG_TRACE, FLAG_WATCH } from "../device/layout.js";
import type { LaunchRequest } from "./pool.js";

/** The error with its statements named, found by `rerun` (which runs a launch on the calling thread); any other error as it is. */
export function locateCrossCore(error: unknown, request: LaunchRequest, rerun: (request: LaunchRequest) => void): unknown {
  const pending = pendingPlaces(error);
  if (!pending) return error;
  const made: Tensor[] = [];
  const fresh = (t: Tensor) => { const copy = new Tensor(t.sizes(), t.dtype); made.push(copy); return copy; };
  const watch = new AccessWatch(pending.targets);
  try {
    const tensors = request.checked.tensors.map((t) => (t ? copyInto(fresh(t), t) : null));
    const output = fresh(request.output);
    withWatch(watch, () => rerun({
      library: request.library, op: request.op, output,
      checked: { ...request.checked, tensors },
      flags: (request.flags | FLAG_WATCH) & ~FLAG_TRACE,
    }));
  } catch {
    // No room for the copies, or a thread failed: the error stands as found, each statement "not found again".
  } finally {
    for (const t of made) t.dispose();
  }
  return pending.withPlaces(watch.found);
}

/** `copy` (a tensor of t's sizes and dtype) with t's bytes. */
function copyInto(copy: Tensor, t: Tensor): Tensor {
  const bytes = (x: Tensor) => { const v = x.storageView(); return new Uint8Array(v.buffer, v.byteOffset, v.byteLength); };
  bytes(copy).set(bytes(t));
  return copy;
}
