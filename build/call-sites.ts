// Keeps the kernel API's setup calls as calls, so that an error raised inside one names the kernel line
// of the call. Binaryen's inliner copies a small library function (Tensor#accessor<T>, tcm_malloc, ...)
// into the kernel with the library's source positions: the kernel's own operands become the inlined
// parameters, mapped to the library too, and a statement whose value is unused (`const acc =
// out.accessor<f32>();` with acc unused) loses its own position altogether. The kernel function's frame
// then points into library code, and the last kernel position before it (what the source locator,
// host/checks/source-locator.ts, names) is the statement before. Kept as a call, the call instruction
// carries the kernel's position of the call expression. These functions run once per accessor, stream,
// TCM block, copy, tensor made or tensor operation, never per element, so the call costs nothing
// measurable; per-element accesses (acc[i], stream read() and write()) stay inlinable (README, "An error,
// and how to read it", says where their line comes from).
import binaryen from "binaryen";

/** Binaryen wildcard patterns of the kernel library's setup functions (asc names them ~lib/gpsimd/<file>/<name>). */
export const KEPT_CALLS: readonly string[] = [
  "~lib/gpsimd/core/get_dst_tensor",
  "~lib/gpsimd/tensor/Tensor#accessor*",
  "~lib/gpsimd/tensor/Tensor#read_stream_accessor*",
  "~lib/gpsimd/tensor/Tensor#write_stream_accessor*",
  "~lib/gpsimd/tensor/Tensor#set_accessor_coherence_policy",
  "~lib/gpsimd/stream/*StreamAccessor<*>#close",
  "~lib/gpsimd/tcm/tcm_malloc*", // tcm_malloc_at too: its site operand must reach it (build/allocation-sites.ts)
  "~lib/gpsimd/tcm/tcm_free",
  "~lib/gpsimd/tcm/TcmAccessor#*",
  "~lib/gpsimd/factories/*",
  "~lib/gpsimd/tensor-ops/*",
  "~lib/gpsimd/printf/printf*",
];

/** Marks the setup functions not inlinable (before asc optimises the module). */
export function keepCallSites(module: binaryen.Module): void {
  for (const pattern of KEPT_CALLS) {
    binaryen.setPassArgument("no-inline", pattern);
    module.runPasses(["no-inline"]);
  }
  binaryen.setPassArgument("no-inline", null);
}
