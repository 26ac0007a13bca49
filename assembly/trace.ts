// Timeline events for `gpsimd profile`. With FLAG_TRACE set, the kernel
// library reports each TCM copy, stream cache refill or flush and TCM block
// to the host, which timestamps it; with the flag off each site costs one
// branch on the cached FLAGS. Element-wise accessor traffic is counted
// (CTX_STAT_*), not traced: one event per element would swamp the timeline.
import { FLAG_TRACE } from "./layout";
import { FLAGS } from "./core";
import { host_trace } from "./bindings/host";

/** Reports an event of kind (TRACE_*) when the launch is traced. */
// @ts-ignore: decorator
@inline export function trace(kind: i32, slot: i32, bytes: f64, offset: f64): void {
  if (FLAGS & FLAG_TRACE) host_trace(kind, slot, bytes, offset);
}
