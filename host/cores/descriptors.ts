// Writes the tensor descriptors a kernel sees into a core's context block:
// the arguments in parameter order, then the output. Only numbers cross.
import type { Tensor } from "../device/tensor.js";
import { OUTPUT_SLOT } from "../checks/describe.js";
import {
  CTX_DESC, DESC_BYTES, CTX_NUM_TENSORS, CTX_DST, CTX_CPU_ID, CTX_CPU_COUNT, CTX_FLAGS,
  TD_DATA, TD_DTYPE, TD_NDIM, TD_FLAGS, TD_NUMEL, TD_SLOT, TD_SIZES, TD_STRIDES, TDF_READ_ONLY, TDF_OUTPUT,
} from "../device/layout.js";


/** Descriptor address of slot i (argument i, in parameter order) in the context block at ctx. */
export function descriptorAddress(ctx: number, index: number): number {
  return ctx + CTX_DESC + index * DESC_BYTES;
}

/** Writes one descriptor at `at`. */
export function writeDescriptor(view: DataView, at: number, t: Tensor, slot: number, flags: number): void {
  new Uint8Array(view.buffer, at, DESC_BYTES).fill(0);
  const sizes = t.sizes();
  view.setUint32(at + TD_DATA, t.address, true);
  view.setInt32(at + TD_DTYPE, t.dtype, true);
  view.setInt32(at + TD_NDIM, sizes.length, true);
  view.setInt32(at + TD_FLAGS, flags, true);
  view.setBigInt64(at + TD_NUMEL, BigInt(t.numel()), true);
  view.setInt32(at + TD_SLOT, slot, true);
  let stride = 1;
  for (let i = sizes.length - 1; i >= 0; i--) {
    view.setInt32(at + TD_SIZES + 4 * i, sizes[i], true);
    view.setUint32(at + TD_STRIDES + 4 * i, stride, true);
    stride *= sizes[i];
  }
}

/** The launch state of one core: who it is, its flags, and its tensors. Returns the descriptor addresses of the tensor arguments (null for scalars) and of the output. */
export function prepareCore(
  view: DataView, ctx: number, core: number, cores: number, flags: number,
  args: (Tensor | null)[], output: Tensor | null,
): { argDescs: (number | null)[]; outputDesc: number } {
  view.setInt32(ctx + CTX_CPU_ID, core, true);
  view.setInt32(ctx + CTX_CPU_COUNT, cores, true);
  view.setInt32(ctx + CTX_FLAGS, flags, true);
  const argDescs = args.map((t, i) => {
    if (!t) return null;
    const at = descriptorAddress(ctx, i);
    writeDescriptor(view, at, t, i, TDF_READ_ONLY);
    return at;
  });
  let outputDesc = 0;
  if (output) {
    outputDesc = descriptorAddress(ctx, args.length);
    writeDescriptor(view, outputDesc, output, OUTPUT_SLOT, TDF_OUTPUT);
  }
  view.setInt32(ctx + CTX_NUM_TENSORS, args.length + (output ? 1 : 0), true);
  view.setUint32(ctx + CTX_DST, outputDesc, true);
  return { argDescs, outputDesc };
}
