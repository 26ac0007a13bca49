// Tensors made inside a kernel (torch::empty/zeros/ones/full/eye): the data
// lives on the core's kernel heap and disappears when the launch ends.
import { CTX_NUM_TENSORS, CTX_DESC, MAX_TENSORS, DESC_BYTES, TD_DATA, TD_DTYPE, TD_NDIM, TD_FLAGS, TD_NUMEL, TD_SLOT, TD_SIZES, TD_STRIDES, TDF_KERNEL_OWNED, CTX_STAT_FILL_BYTES } from "./layout";
import { E_SHAPE, E_TOO_MANY, E_TENSOR_OP, TOP_READ_ONLY, OP_FILL_ } from "./errors";
import { CTX, fail, checks_on, slot_of } from "./core";
import { element_size, is_floating, kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte, f32_to_bf16, f32_to_f16 } from "./dtype";
import { Tensor, data_of } from "./tensor";
import { log_output_write } from "./writelog";

/** Slot of kernel-made tensors in reports. */
export const KERNEL_TENSOR_SLOT: i32 = -2;
// The device's shape limits (Neuron SDK 2.18 and later; host/device/tensor.ts DEVICE_SHAPE_LIMITS): at most 8
// dimensions of at most 65535, or at most 4 dimensions of at most 4294967295.
const MAX_DIMS: i32 = 8;
const MAX_DIM_SIZE: i64 = 65535;
const MAX_DIMS_LARGE: i32 = 4;
const MAX_DIM_SIZE_LARGE: i64 = 4294967295;

/** A new tensor of the given sizes and dtype; its contents are undefined. */
export function empty(sizes: StaticArray<i64>, dtype: i32): Tensor {
  const ndim = sizes.length;
  const esize = element_size(dtype);
  if (esize == 0) fail(E_SHAPE, KERNEL_TENSOR_SLOT, 3, dtype, 0);
  if (ndim > MAX_DIMS) fail(E_SHAPE, KERNEL_TENSOR_SLOT, 2, ndim, MAX_DIMS);
  const max_size = ndim <= MAX_DIMS_LARGE ? MAX_DIM_SIZE_LARGE : MAX_DIM_SIZE;
  let count: f64 = 1; // in f64: four sizes up to 2^32 overflow an i64
  for (let i = 0; i < ndim; i++) {
    const s = unchecked(sizes[i]);
    if (s < 0 || s > max_size) fail(E_SHAPE, KERNEL_TENSOR_SLOT, 4, i, <f64>s);
    count *= <f64>s;
  }
  // The heap's allocator takes sizes below 1 GiB (BLOCK_MAXSIZE): a larger tensor fails as the heap's "full", with its bytes.
  // @ts-ignore: the kernel heap's global (assembly/rt/stub.ts)
  if (count * <f64>esize >= <f64>(1 << 30)) __gpsimd_heap_refuse(count * <f64>esize);
  const numel = <i64>count;
  const n = load<i32>(CTX, CTX_NUM_TENSORS);
  if (n >= MAX_TENSORS) fail(E_TOO_MANY, KERNEL_TENSOR_SLOT, 2, MAX_TENSORS, 0);
  store<i32>(CTX, n + 1, CTX_NUM_TENSORS);
  const desc = CTX + CTX_DESC + <usize>(n * DESC_BYTES);
  memory.fill(desc, 0, DESC_BYTES);
  store<u32>(desc, <u32>heap.alloc(<usize>(numel * esize)), TD_DATA);
  store<i32>(desc, dtype, TD_DTYPE);
  store<i32>(desc, ndim, TD_NDIM);
  store<i32>(desc, TDF_KERNEL_OWNED, TD_FLAGS);
  store<i64>(desc, numel, TD_NUMEL);
  store<i32>(desc, KERNEL_TENSOR_SLOT, TD_SLOT);
  let stride: u32 = 1;
  for (let i = ndim - 1; i >= 0; i--) {
    store<u32>(desc + (<usize>i << 2), <u32>unchecked(sizes[i]), TD_SIZES);
    store<u32>(desc + (<usize>i << 2), stride, TD_STRIDES);
    stride *= <u32>unchecked(sizes[i]);
  }
  return changetype<Tensor>(desc);
}

/** Counts bytes a factory or fill_ stores (the cost model charges them as plain stores to HBM). */
function count_fill(bytes: usize): void {
  if (checks_on()) store<f64>(CTX, load<f64>(CTX, CTX_STAT_FILL_BYTES) + <f64>bytes, CTX_STAT_FILL_BYTES);
}

/**
 * fill_(t, value): stores the Scalar value (an integer or float type) in t's dtype into every element; returns t.
 * Floating dtypes take value as float32 (bfloat16 and float16 then round to nearest even); integral dtypes truncate
 * a floating value toward zero, saturate it to the int64 range (NaN is 0) and keep the low bits (300 in uint8 is 44).
 */
export function fill_<S>(t: Tensor, value: S): Tensor {
  if (!isInteger<S>() && !isFloat<S>()) ERROR("fill_ takes a number: an integer type (i32, i64) or a float type (f32, f64)");
  return fill_with(t, <f32>value, <i64>value);
}

/** fill_ with the value converted for floating (vf) and integral (vi) dtypes. */
function fill_with(t: Tensor, vf: f32, vi: i64): Tensor {
  if (t.is_read_only()) fail(E_TENSOR_OP, slot_of(changetype<usize>(t)), TOP_READ_ONLY, OP_FILL_, 0);
  const p = data_of(t);
  const n = <usize>t.numel();
  count_fill(n * <usize>element_size(t.scalar_type()));
  log_output_write(changetype<usize>(t), 0, <u32>n); // fill_(get_dst_tensor(), v) writes the whole output
  switch (t.scalar_type()) {
    case kFloat: for (let i: usize = 0; i < n; i++) store<f32>(p + (i << 2), vf); break;
    case kBFloat16: { const v = f32_to_bf16(vf); for (let i: usize = 0; i < n; i++) store<u16>(p + (i << 1), v); break; }
    case kHalf: { const v = f32_to_f16(vf); for (let i: usize = 0; i < n; i++) store<u16>(p + (i << 1), v); break; }
    case kInt: { const v = <i32>vi; for (let i: usize = 0; i < n; i++) store<i32>(p + (i << 2), v); break; }
    case kShort: { const v = <i16>vi; for (let i: usize = 0; i < n; i++) store<i16>(p + (i << 1), v); break; }
    case kLong: for (let i: usize = 0; i < n; i++) store<i64>(p + (i << 3), vi); break;
    case kChar: case kByte: memory.fill(p, <u8>vi, n); break;
  }
  return t;
}

/** A new tensor filled with zeros. */
export function zeros(sizes: StaticArray<i64>, dtype: i32): Tensor {
  const t = empty(sizes, dtype);
  count_fill(<usize>(t.numel() * element_size(dtype)));
  memory.fill(data_of(t), 0, <usize>(t.numel() * element_size(dtype)));
  return t;
}

/** A new tensor filled with ones. */
export function ones(sizes: StaticArray<i64>, dtype: i32): Tensor { return fill_(empty(sizes, dtype), 1); }

/** A new tensor filled with value, a Scalar converted as fill_ does. */
export function full<S>(sizes: StaticArray<i64>, value: S, dtype: i32): Tensor { return fill_(empty(sizes, dtype), value); }

/** An n x m matrix with ones on the diagonal. */
export function eye(n: i64, m: i64, dtype: i32): Tensor {
  const t = zeros([n, m], dtype);
  const k = min(n, m);
  const p = data_of(t);
  const esize = element_size(dtype);
  for (let i: i64 = 0; i < k; i++) {
    const at = p + <usize>((i * m + i) * esize);
    if (dtype == kFloat) store<f32>(at, 1);
    else if (is_floating(dtype)) store<u16>(at, dtype == kBFloat16 ? f32_to_bf16(1) : f32_to_f16(1));
    else if (dtype == kLong) store<i64>(at, 1);
    else if (dtype == kInt) store<i32>(at, 1);
    else if (dtype == kShort) store<i16>(at, 1);
    else store<u8>(at, 1);
  }
  return t;
}
