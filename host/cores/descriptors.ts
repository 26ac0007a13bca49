// Writes the tensor descriptors a kernel sees into a core's context block:
// the arguments in parameter order, then the output. Only numbers cross.
// Descriptors live in kernel-writable memory, so the host keeps its own copy
// of what it wrote: after the launch it checks that the kernel changed no
// trusted field, and it accepts a returned tensor only if the launch made it.
import { tensorShape, type Tensor } from "../device/tensor.js";
import { OUTPUT_SLOT, KERNEL_TENSOR_SLOT } from "../checks/describe.js";
import { KernelTamperError } from "../checks/errors.js";
// A descriptor change is found after the kernel returned; in sanitize mode the store into it fails (E_SANITIZE_READ_ONLY).
import { SANITIZE_RERUN_HINT } from "../checks/rerun-hint.js";
import { dtypeInfo, dtypeFromScalarType, type DType } from "../device/dtype.js";
import {
  CTX_DESC, DESC_BYTES, CTX_NUM_TENSORS, CTX_DST, CTX_CPU_ID, CTX_CPU_COUNT, CTX_FLAGS, MAX_TENSORS,
  TD_DATA, TD_DTYPE, TD_NDIM, TD_FLAGS, TD_NUMEL, TD_SLOT, TD_SIZES, TD_STRIDES, TDF_READ_ONLY, TDF_OUTPUT, TDF_KERNEL_OWNED,
} from "../device/layout.js";
import type { KernelSignature } from "../../build/signatures.js";
import { hbm } from "../device/hbm.js";

/** Descriptor address of slot i (argument i, in parameter order) in the context block at ctx. */
export function descriptorAddress(ctx: number, index: number): number {
  return ctx + CTX_DESC + index * DESC_BYTES;
}

/**
 * Writes one descriptor at byte address `at` through `words`, a u32 view of device memory (hbm().words()), for t
 * in argument slot `slot` (OUTPUT_SLOT for the output) whose data is at `address`.
 */
export function writeDescriptor(words: Uint32Array, at: number, t: Tensor, slot: number, flags: number, address: number): void {
  const d = at >>> 2;
  // A loop, not words.fill: fill on a view of shared memory goes through the runtime (about twice the time here).
  for (let i = d; i < d + (DESC_BYTES >> 2); i++) words[i] = 0;
  const sizes = tensorShape(t);
  const numel = t.numel();
  // Negative i32 fields (slot -1) wrap to their two's-complement u32, as the kernel reads them.
  words[d + (TD_DATA >> 2)] = address;
  words[d + (TD_DTYPE >> 2)] = t.dtype.scalarType;
  words[d + (TD_NDIM >> 2)] = sizes.length;
  words[d + (TD_FLAGS >> 2)] = flags;
  words[d + (TD_NUMEL >> 2)] = numel % 0x1_0000_0000; // i64, little-endian: low word, then high word
  words[d + (TD_NUMEL >> 2) + 1] = Math.floor(numel / 0x1_0000_0000);
  words[d + (TD_SLOT >> 2)] = slot;
  let stride = 1;
  for (let i = sizes.length - 1; i >= 0; i--) {
    words[d + (TD_SIZES >> 2) + i] = sizes[i];
    words[d + (TD_STRIDES >> 2) + i] = stride;
    stride *= sizes[i];
  }
}

/** Word offsets of the fields a kernel must never change: data, dtype, rank, flags, count, slot, sizes, strides. */
const TRUSTED_WORDS = [
  TD_DATA, TD_DTYPE, TD_NDIM, TD_FLAGS, TD_NUMEL, TD_NUMEL + 4, TD_SLOT,
  ...Array.from({ length: 8 }, (_, i) => TD_SIZES + 4 * i), ...Array.from({ length: 8 }, (_, i) => TD_STRIDES + 4 * i),
].map((b) => b >> 2);

/** What a launch put in a context block's descriptors, kept by the host (kernels cannot reach it). */
export interface LaunchDescriptors {
  /** The tensor arguments in parameter order (null for scalars), then the output (null if none). */
  tensors: (Tensor | null)[];
  /** Descriptor addresses of the tensor arguments in the block prepared (null for scalars). */
  argDescs: (number | null)[];
  /** Descriptor address of the output in the block prepared (0 for none). */
  outputDesc: number;
  /** The data address written for each of `tensors` (0 for none): the tensors' other trusted fields never change. */
  addresses: number[];
}

/** The launch state of one core: who it is, its flags, and its tensors; returns the host's copy of the descriptors. */
export function prepareCore(
  ctx: number, core: number, cores: number, flags: number,
  args: (Tensor | null)[], output: Tensor | null,
): LaunchDescriptors {
  // Plain stores through one view of the memory, reused across launches (hbm().words()): a launch's
  // host work is a few microseconds, and views, DataViews and BigInts made per launch showed in it.
  const memory = hbm().words();
  const c = ctx >>> 2;
  memory[c + (CTX_CPU_ID >> 2)] = core;
  memory[c + (CTX_CPU_COUNT >> 2)] = cores;
  memory[c + (CTX_FLAGS >> 2)] = flags;
  const n = args.length;
  const tensors = new Array<Tensor | null>(n + 1), argDescs = new Array<number | null>(n), addresses = new Array<number>(n + 1);
  for (let i = 0; i < n; i++) {
    const t = args[i];
    tensors[i] = t;
    if (!t) { argDescs[i] = null; addresses[i] = 0; continue; }
    const at = argDescs[i] = descriptorAddress(ctx, i);
    writeDescriptor(memory, at, t, i, TDF_READ_ONLY, addresses[i] = t.pinnedAddress);
  }
  tensors[n] = output;
  addresses[n] = 0;
  let outputDesc = 0;
  if (output) {
    outputDesc = descriptorAddress(ctx, n);
    writeDescriptor(memory, outputDesc, output, OUTPUT_SLOT, TDF_OUTPUT, addresses[n] = output.pinnedAddress);
  }
  memory[c + (CTX_NUM_TENSORS >> 2)] = n + (output ? 1 : 0);
  memory[c + (CTX_DST >> 2)] = outputDesc;
  // No copy of the words written is kept: the host knows them from the tensors (their sizes and dtype never
  // change) and the addresses above, and descriptorIntact compares the block with them field by field.
  return { tensors, argDescs, outputDesc, addresses };
}

/**
 * True when the trusted words of the descriptor at word index d are those writeDescriptor wrote for t with
 * this slot, flags and data address (compared in place: no copy of them is made per launch).
 */
function descriptorIntact(m: Uint32Array, d: number, t: Tensor, slot: number, flags: number, address: number): boolean {
  const sizes = tensorShape(t);
  const numel = t.numel();
  if (m[d + (TD_DATA >> 2)] !== address || m[d + (TD_DTYPE >> 2)] !== t.dtype.scalarType || m[d + (TD_NDIM >> 2)] !== sizes.length
    || m[d + (TD_FLAGS >> 2)] !== flags || m[d + (TD_NUMEL >> 2)] !== numel % 0x1_0000_0000
    || m[d + (TD_NUMEL >> 2) + 1] !== Math.floor(numel / 0x1_0000_0000) || m[d + (TD_SLOT >> 2)] !== slot >>> 0) return false;
  let stride = 1;
  for (let i = sizes.length - 1; i >= 0; i--) {
    // As a u32 store wraps them (ToUint32).
    if (m[d + (TD_SIZES >> 2) + i] !== sizes[i] >>> 0 || m[d + (TD_STRIDES >> 2) + i] !== stride >>> 0) return false;
    stride *= sizes[i];
  }
  for (let i = sizes.length; i < 8; i++) if (m[d + (TD_SIZES >> 2) + i] !== 0 || m[d + (TD_STRIDES >> 2) + i] !== 0) return false;
  return true;
}

/** The descriptor words writeDescriptor writes (only the failure path needs them word by word). */
const expected = new Uint32Array(DESC_BYTES >> 2);

/** Who ran the kernel, for messages. */
export interface TamperSite { op: string; core: number; kernel: KernelSignature; }

/** "argument 0 't_in' (float32[8])" or "the output (float32[8])", from the host's own knowledge. */
function tensorName(launch: LaunchDescriptors, index: number, kernel: KernelSignature): string {
  const t = launch.tensors[index]!;
  return index < kernel.params.length ? `argument ${index} '${kernel.params[index].name}' (${t.describe()})` : `the output (${t.describe()})`;
}

function fieldChange(word: number, before: number, after: number): string {
  const byte = word << 2;
  if (byte === TD_FLAGS && (before & TDF_READ_ONLY) && !(after & TDF_READ_ONLY)) return `its read-only flag was cleared (flags ${before} -> ${after})`;
  if (byte === TD_DATA) return `its data address was changed from 0x${(before >>> 0).toString(16)} to 0x${(after >>> 0).toString(16)}`;
  if (byte === TD_NUMEL || byte === TD_NUMEL + 4) return "its element count was changed";
  const name = byte === TD_DTYPE ? "dtype" : byte === TD_NDIM ? "dimension count" : byte === TD_FLAGS ? "flags" : byte === TD_SLOT ? "slot"
    : byte < TD_STRIDES ? `size of dimension ${(byte - TD_SIZES) >> 2}` : `stride of dimension ${(byte - TD_STRIDES) >> 2}`;
  return `its ${name} was changed from ${before} to ${after}`;
}

/**
 * Throws KernelTamperError if the kernel changed a trusted field of any descriptor the launch wrote
 * into the context block at ctx (23 words per tensor: cheap beside the launch itself).
 */
export function verifyDescriptors(words: Uint32Array, ctx: number, launch: LaunchDescriptors, site: TamperSite): void {
  const base = (ctx + CTX_DESC) >>> 2;
  const per = DESC_BYTES >> 2;
  for (let i = 0; i < launch.tensors.length; i++) {
    const t = launch.tensors[i];
    if (!t) continue;
    // As prepareCore wrote it: arguments in their own slot, read-only; then the output.
    const isArgument = i < launch.argDescs.length;
    const slot = isArgument ? i : OUTPUT_SLOT, flags = isArgument ? TDF_READ_ONLY : TDF_OUTPUT;
    const d = base + i * per;
    if (descriptorIntact(words, d, t, slot, flags, launch.addresses[i])) continue;
    // Changed: the first trusted word that differs from what was written names the field.
    writeDescriptor(expected, 0, t, slot, flags, launch.addresses[i]);
    for (const w of TRUSTED_WORDS) {
      const before = expected[w], after = words[d + w];
      if (before === after) continue;
      const name = tensorName(launch, i, site.kernel);
      throw new KernelTamperError("E_DESCRIPTOR_CHANGED", `${site.op} (core ${site.core}): the kernel changed the descriptor of ${name}: ${fieldChange(w, before | 0, after | 0)}. Descriptors belong to the host: a kernel must not write them (its writes through this one may have reached memory outside the call's tensors); ${SANITIZE_RERUN_HINT}`, {
        op: site.op, core: site.core, details: { tensor: name, field: w << 2, before: before | 0, after: after | 0 },
      });
    }
  }
}

/** The data a kernel's result lives in: what the host copies into the output. */
export interface ReturnedData { data: number; dtype: DType; numel: number; }

/**
 * The tensor a single-core kernel returned, if the host must copy it into the output: an argument
 * (the host's own tensor) or a tensor the kernel made (its descriptor checked: data inside the core's
 * heap). Null when the kernel returned the output itself. Anything else is KernelTamperError.
 */
export function returnedData(
  view: DataView, ctx: number, returned: number, launch: LaunchDescriptors, heap: { start: number; end: number }, site: TamperSite,
): ReturnedData | null {
  const offset = returned - (ctx + CTX_DESC);
  const index = offset / DESC_BYTES;
  const fail = (why: string) => new KernelTamperError("E_FOREIGN_RETURN", `${site.op} (core ${site.core}): the kernel returned ${why}; return get_dst_tensor(), an argument, or a tensor the kernel made (empty, zeros, ...)`, {
    op: site.op, core: site.core, details: { returned },
  });
  if (!Number.isInteger(index) || index < 0 || index >= MAX_TENSORS) throw fail(`0x${(returned >>> 0).toString(16)}, which is not a tensor of this launch`);
  const nargs = site.kernel.params.length;
  if (index === nargs) return null; // the output
  if (index < nargs) {
    const t = launch.tensors[index];
    if (!t) throw fail(`argument ${index} '${site.kernel.params[index].name}', which is a scalar, as a tensor (not a tensor of this launch)`);
    return { data: t.pinnedAddress, dtype: t.dtype, numel: t.numel() };
  }
  const slot = view.getInt32(returned + TD_SLOT, true), flags = view.getInt32(returned + TD_FLAGS, true);
  const data = view.getUint32(returned + TD_DATA, true), code = view.getInt32(returned + TD_DTYPE, true);
  const numel = Number(view.getBigInt64(returned + TD_NUMEL, true));
  let bytes = -1, dtype: DType | undefined;
  try { dtype = dtypeFromScalarType(code); bytes = dtypeInfo(dtype).bytes * numel; } catch { /* not a dtype */ }
  if (slot !== KERNEL_TENSOR_SLOT || !(flags & TDF_KERNEL_OWNED) || dtype === undefined || bytes < 0 || !Number.isSafeInteger(bytes)) {
    throw fail(`a descriptor in slot ${index} that the kernel library did not make (slot ${slot}, flags ${flags}, dtype ${code}, ${numel} elements): not a tensor of this launch`);
  }
  if (data < heap.start || data + bytes > heap.end) {
    throw fail(`a tensor whose ${bytes} bytes at 0x${data.toString(16)} lie outside the kernel heap [0x${heap.start.toString(16)}, 0x${heap.end.toString(16)}) where tensors made in a kernel live`);
  }
  return { data, dtype, numel };
}
