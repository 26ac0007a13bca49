// Names a tensor descriptor in messages: "argument 0 't_in' (float32[32, 4096])".
import { CTX_DESC, DESC_BYTES, TD_DTYPE, TD_NDIM, TD_SIZES } from "../device/layout.js";
import { dtypeFromScalarType } from "../device/dtype.js";
import type { KernelSignature } from "../../build/signatures.js";

/** Descriptor slot of the output, of tensors a kernel made, and of reports about no tensor. */
export const OUTPUT_SLOT = -1;
export const KERNEL_TENSOR_SLOT = -2;

/** "float32[2, 3]" for the descriptor at `at`. */
function shapeText(view: DataView, at: number): string {
  const ndim = view.getInt32(at + TD_NDIM, true);
  const sizes = Array.from({ length: Math.max(0, Math.min(ndim, 8)) }, (_, i) => view.getInt32(at + TD_SIZES + 4 * i, true));
  let name: string;
  try { name = dtypeFromScalarType(view.getInt32(at + TD_DTYPE, true)).name; } catch { name = "?"; }
  return `${name}[${sizes.join(", ")}]`;
}

/** Names the tensor in descriptor slot `slot` of the context block at ctx. */
export function describeDescriptor(view: DataView, ctx: number, slot: number, kernel: KernelSignature): string {
  if (slot >= 0 && slot < kernel.params.length) {
    return `argument ${slot} '${kernel.params[slot].name}' (${shapeText(view, ctx + CTX_DESC + slot * DESC_BYTES)})`;
  }
  if (slot === OUTPUT_SLOT) return `the output (${shapeText(view, ctx + CTX_DESC + kernel.params.length * DESC_BYTES)})`;
  if (slot === KERNEL_TENSOR_SLOT) return "a tensor the kernel made";
  return "TCM";
}
