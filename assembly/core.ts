// The current core: which context block this instance works in, its flags,
// and the functions kernels use to split work (get_cpu_id, get_cpu_count).
import { CTX_CPU_ID, CTX_CPU_COUNT, CTX_FLAGS, CTX_DST, FLAG_CHECKS, FLAG_MULTICORE, TD_SLOT } from "./layout";
import { host_fail, host_warn } from "./bindings/host";
import { E_NO_OUTPUT } from "./errors";
import { Tensor } from "./tensor";

/** Address of the context block of the core running now (set by __gpsimd_enter). */
export let CTX: usize = 0;
/** Flags of the current launch, cached from the context block. */
export let FLAGS: i32 = 0;

/** Switches this instance to the core whose context block is at ctx. */
export function set_core(ctx: usize): void {
  CTX = ctx;
  FLAGS = load<i32>(ctx, CTX_FLAGS);
}

/** True when bounds, TCM, stream and coherence checks are on. */
// @ts-ignore: decorator
@inline export function checks_on(): bool { return (FLAGS & FLAG_CHECKS) != 0; }

/** True when the library runs on all cores. */
// @ts-ignore: decorator
@inline export function is_multicore(): bool { return (FLAGS & FLAG_MULTICORE) != 0; }

/** Index of this core, in [0, get_cpu_count()). 0 in a single-core library. */
export function get_cpu_id(): u32 { return load<u32>(CTX, CTX_CPU_ID); }

/** Number of cores running this kernel: 8 in a multicore library, 1 otherwise. */
export function get_cpu_count(): u32 { return load<u32>(CTX, CTX_CPU_COUNT); }

/** The operator's output tensor, allocated from the shape function. Write the result here. */
export function get_dst_tensor(): Tensor {
  const dst = load<usize>(CTX, CTX_DST);
  if (dst == 0) fail(E_NO_OUTPUT, -3, 0, 0, 0);
  return changetype<Tensor>(dst);
}

/** Descriptor slot for reports about a tensor (argument position, -1 output, -2 kernel-made). */
// @ts-ignore: decorator
@inline export function slot_of(desc: usize): i32 { return load<i32>(desc, TD_SLOT); }

/** Reports a violation to the host, which throws; never returns. */
export function fail(code: i32, slot: i32, a: f64, b: f64, c: f64): void {
  host_fail(code, slot, a, b, c);
  unreachable();
}

/** Reports a warning to the host and carries on. */
export function warn(code: i32, slot: i32, a: f64, b: f64, c: f64): void {
  host_warn(code, slot, a, b, c);
}
