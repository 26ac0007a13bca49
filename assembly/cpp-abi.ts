// The device runtime's C ABI: gpsimd's kernel library (this folder) exported
// as numbers-only functions, so that a C++ kernel module calls the one
// implementation of the device API and its checks. build/cpp/ compiles this
// file with asc into the "device runtime" module and merges it with the C++
// kernel, whose headers (include/gpsimd/abi.h) import these names from the
// import module "gpsimd-abi". Tensors are descriptor addresses, pointers are
// addresses; element types are spelled by suffix (f32 f64 i64 i32 i16 u16 i8 u8).
import { Tensor } from "./tensor";
import { get_cpu_id, get_cpu_count, get_dst_tensor } from "./core";
import { tcm_malloc, tcm_malloc_at, tcm_free, TcmAccessor } from "./tcm";
import { Accessor, Accessor2, Row1, Row2 } from "./accessor";
import { ReadStreamAccessor, WriteStreamAccessor } from "./stream";
import { printf } from "./printf";
import { empty, zeros, ones, full, eye, fill_ } from "./factories";
import { CTX } from "./core";
import { CTX_PRINTF_ARGS, CTX_STAT_PRINTF_CALLS, CTX_HEAP_BASE, CTX_HEAP_END, PF_TAG_STRING, PF_TAG_INT, PF_TAG_UINT, PF_TAG_FLOAT } from "./layout";
import { host_printf } from "./bindings/host";
import { OBJECT_OVERHEAD } from "rt/common";
import * as ops from "./tensor-ops";

// @ts-ignore: decorator
@inline function T(desc: usize): Tensor { return changetype<Tensor>(desc); }

export function gpsimd_cpu_id(): u32 { return get_cpu_id(); }
export function gpsimd_cpu_count(): u32 { return get_cpu_count(); }
export function gpsimd_dst(): usize { return changetype<usize>(get_dst_tensor()); }

export function gpsimd_tcm_malloc(nbytes: usize): usize { return tcm_malloc(nbytes); }
/** tcm_malloc for the kernel statement numbered `site` (build/allocation-sites.ts rewrites the kernel's calls). */
export function gpsimd_tcm_malloc_at(nbytes: usize, site: i32): usize { return tcm_malloc_at(nbytes, site); }
export function gpsimd_tcm_free(ptr: usize): void { tcm_free(ptr); }

export function gpsimd_numel(desc: usize): i64 { return T(desc).numel(); }
export function gpsimd_dim(desc: usize): i32 { return T(desc).dim(); }
export function gpsimd_size(desc: usize, d: i32): i64 { return T(desc).size(d); }
export function gpsimd_stride(desc: usize, d: i32): i64 { return T(desc).stride(d); }
export function gpsimd_scalar_type(desc: usize): i32 { return T(desc).scalar_type(); }
export function gpsimd_set_policy(desc: usize, policy: i32): void { T(desc).set_accessor_coherence_policy(policy); }
export function gpsimd_get_policy(desc: usize): i32 { return T(desc).get_accessor_coherence_policy(); }

/**
 * The lowest address of the running C++ kernel's stack: the kernel imports it, and its stack checks
 * (build/cpp/stack-checks.ts) call gpsimd_stack_overflow when the stack pointer would go below it.
 */
export let gpsimd_stack_limit: usize = 0;
/** Its highest address (the stack starts there, empty): a move above it leaves the stack too (stack-checks.ts). */
export let gpsimd_stack_top: usize = 0;
/**
 * The lowest address the stack pointer reached in this call (stack-checks.ts lowers it): the stack below it was not
 * touched, and the host need not clear it before the next call (host/cores/heap-hygiene.ts).
 */
export let gpsimd_stack_low: usize = 0;
let stackBytes: usize = 0;

/** A stack for the C++ kernel on this core's heap (emptied at every launch): returns its top. */
export function gpsimd_stack(bytes: usize): usize {
  gpsimd_stack_limit = heap.alloc(bytes);
  stackBytes = bytes;
  gpsimd_stack_top = gpsimd_stack_limit + bytes;
  gpsimd_stack_low = gpsimd_stack_top;
  return gpsimd_stack_top;
}

/**
 * The C++ kernel's stack is full: the frame it was making would overwrite the heap below (or, for a wild
 * variable-length array or alloca size, memory above or anywhere else: build/cpp/stack-checks.ts). The host turns this abort
 * (its text starts with STACK_OVERFLOW_ABORT, host/cores/kernel-instance.ts) into the trap an AssemblyScript
 * kernel's overflow is (KernelTrapError E_TRAP, "stack overflow").
 */
export function gpsimd_stack_overflow(): void {
  abort(`stack overflow: the C++ stack (${stackBytes} bytes) is full: unbounded recursion, local arrays larger than the stack, or a variable-length array or alloca whose size leaves it (negative, or past the end of memory) (raise it, up to 400 KB, with extra_cflags: ["-DSTACK_SIZE=<bytes>"])`);
}

// Element-wise accessors: open (rank 0 = flat), flat get/set, and handles for acc[i][j] chains (as in accessor.ts).
export function gpsimd_acc_row(desc: usize, i: i64): usize { return changetype<usize>(changetype<Accessor2<f32>>(desc)[i]); }
export function gpsimd_row_next(handle: usize, i: i64): usize {
  return changetype<usize>(changetype<Row2<f32>>(handle)[i]);
}

// Printf: the C side writes the argument records (strings as C addresses); the format is a C string. The strings
// are decoded onto the kernel heap for the host, which copies the formatted line into the ring; they are given back
// right after (newest first, as the heap takes blocks back), so printing never fills the heap: the ring, whose
// oldest lines are overwritten, is all that printing keeps.
export function gpsimd_printf(fmt: usize, fmtBytes: i32, nargs: i32): void {
  const decoded = new StaticArray<usize>(9);
  let count = 0;
  for (let i = 0; i < nargs; i++) {
    const rec = CTX + CTX_PRINTF_ARGS + <usize>(i << 4);
    if (load<i32>(rec) == PF_TAG_STRING) {
      const p = <usize>load<u32>(rec, 8);
      let n: usize = 0;
      while (load<u8>(p + n) != 0) n++;
      const s = changetype<usize>(String.UTF8.decodeUnsafe(p, n));
      unchecked(decoded[count++] = s);
      store<u32>(rec, <u32>s, 8);
    }
  }
  store<f64>(CTX, load<f64>(CTX, CTX_STAT_PRINTF_CALLS) + 1, CTX_STAT_PRINTF_CALLS);
  const format = changetype<usize>(String.UTF8.decodeUnsafe(fmt, <usize>fmtBytes));
  unchecked(decoded[count++] = format);
  host_printf(format, CTX + CTX_PRINTF_ARGS, nargs);
  const heapBase = <usize>load<u32>(CTX, CTX_HEAP_BASE), heapEnd = <usize>load<u32>(CTX, CTX_HEAP_END);
  for (let i = count - 1; i >= 0; i--) {
    const s = unchecked(decoded[i]);
    if (s >= heapBase && s < heapEnd) __free(s - OBJECT_OVERHEAD); // "" is a static string, not a heap block
  }
  __free(changetype<usize>(decoded) - OBJECT_OVERHEAD);
}
/** Where the C side writes printf's argument records (16 bytes each: tag, then the value at +8). */
export function gpsimd_printf_args(): usize { return CTX + CTX_PRINTF_ARGS; }

// Factories: sizes are an array of i64 in memory.
function sizes_of(p: usize, n: i32): StaticArray<i64> {
  const a = new StaticArray<i64>(n);
  for (let i = 0; i < n; i++) unchecked(a[i] = load<i64>(p + (<usize>i << 3)));
  return a;
}
export function gpsimd_empty(sizes: usize, n: i32, dtype: i32): usize { return changetype<usize>(empty(sizes_of(sizes, n), dtype)); }
export function gpsimd_zeros(sizes: usize, n: i32, dtype: i32): usize { return changetype<usize>(zeros(sizes_of(sizes, n), dtype)); }
export function gpsimd_ones(sizes: usize, n: i32, dtype: i32): usize { return changetype<usize>(ones(sizes_of(sizes, n), dtype)); }
export function gpsimd_full(sizes: usize, n: i32, value: f64, dtype: i32): usize { return changetype<usize>(full<f64>(sizes_of(sizes, n), value, dtype)); }
export function gpsimd_full_i(sizes: usize, n: i32, value: i64, dtype: i32): usize { return changetype<usize>(full<i64>(sizes_of(sizes, n), value, dtype)); }
export function gpsimd_eye(n: i64, m: i64, dtype: i32): usize { return changetype<usize>(eye(n, m, dtype)); }
export function gpsimd_fill(desc: usize, value: f64): usize { return changetype<usize>(fill_<f64>(T(desc), value)); }
export function gpsimd_fill_i(desc: usize, value: i64): usize { return changetype<usize>(fill_<i64>(T(desc), value)); }

export function gpsimd_to_tcm_f32(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<f32>(tcm, offset, n); }
export function gpsimd_from_tcm_f32(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<f32>(tcm, offset, n); }
export function gpsimd_acc_open_f32(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<f32>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<f32>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<f32>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<f32>());
  return changetype<usize>(T(desc).accessor4<f32>());
}
export function gpsimd_acc_get_f32(desc: usize, i: i64): f32 { return changetype<Accessor<f32>>(desc)[i]; }
export function gpsimd_acc_set_f32(desc: usize, i: i64, v: f32): void { changetype<Accessor<f32>>(desc)[i] = v; }
export function gpsimd_row_get_f32(handle: usize, j: i64): f32 { return changetype<Row1<f32>>(handle)[j]; }
export function gpsimd_row_set_f32(handle: usize, j: i64, v: f32): void { changetype<Row1<f32>>(handle)[j] = v; }
export function gpsimd_read_open_f32(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<f32>()); }
export function gpsimd_read_f32(s: usize): f32 { return changetype<ReadStreamAccessor<f32>>(s).read(); }
export function gpsimd_read_close_f32(s: usize): i32 { return changetype<ReadStreamAccessor<f32>>(s).close(); }
export function gpsimd_write_open_f32(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<f32>()); }
export function gpsimd_write_f32(s: usize, v: f32): void { changetype<WriteStreamAccessor<f32>>(s).write(v); }
export function gpsimd_write_close_f32(s: usize): i32 { return changetype<WriteStreamAccessor<f32>>(s).close(); }

export function gpsimd_to_tcm_f64(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<f64>(tcm, offset, n); }
export function gpsimd_from_tcm_f64(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<f64>(tcm, offset, n); }
export function gpsimd_acc_open_f64(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<f64>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<f64>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<f64>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<f64>());
  return changetype<usize>(T(desc).accessor4<f64>());
}
export function gpsimd_acc_get_f64(desc: usize, i: i64): f64 { return changetype<Accessor<f64>>(desc)[i]; }
export function gpsimd_acc_set_f64(desc: usize, i: i64, v: f64): void { changetype<Accessor<f64>>(desc)[i] = v; }
export function gpsimd_row_get_f64(handle: usize, j: i64): f64 { return changetype<Row1<f64>>(handle)[j]; }
export function gpsimd_row_set_f64(handle: usize, j: i64, v: f64): void { changetype<Row1<f64>>(handle)[j] = v; }
export function gpsimd_read_open_f64(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<f64>()); }
export function gpsimd_read_f64(s: usize): f64 { return changetype<ReadStreamAccessor<f64>>(s).read(); }
export function gpsimd_read_close_f64(s: usize): i32 { return changetype<ReadStreamAccessor<f64>>(s).close(); }
export function gpsimd_write_open_f64(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<f64>()); }
export function gpsimd_write_f64(s: usize, v: f64): void { changetype<WriteStreamAccessor<f64>>(s).write(v); }
export function gpsimd_write_close_f64(s: usize): i32 { return changetype<WriteStreamAccessor<f64>>(s).close(); }

export function gpsimd_to_tcm_i64(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<i64>(tcm, offset, n); }
export function gpsimd_from_tcm_i64(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<i64>(tcm, offset, n); }
export function gpsimd_acc_open_i64(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<i64>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<i64>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<i64>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<i64>());
  return changetype<usize>(T(desc).accessor4<i64>());
}
export function gpsimd_acc_get_i64(desc: usize, i: i64): i64 { return changetype<Accessor<i64>>(desc)[i]; }
export function gpsimd_acc_set_i64(desc: usize, i: i64, v: i64): void { changetype<Accessor<i64>>(desc)[i] = v; }
export function gpsimd_row_get_i64(handle: usize, j: i64): i64 { return changetype<Row1<i64>>(handle)[j]; }
export function gpsimd_row_set_i64(handle: usize, j: i64, v: i64): void { changetype<Row1<i64>>(handle)[j] = v; }
export function gpsimd_read_open_i64(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<i64>()); }
export function gpsimd_read_i64(s: usize): i64 { return changetype<ReadStreamAccessor<i64>>(s).read(); }
export function gpsimd_read_close_i64(s: usize): i32 { return changetype<ReadStreamAccessor<i64>>(s).close(); }
export function gpsimd_write_open_i64(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<i64>()); }
export function gpsimd_write_i64(s: usize, v: i64): void { changetype<WriteStreamAccessor<i64>>(s).write(v); }
export function gpsimd_write_close_i64(s: usize): i32 { return changetype<WriteStreamAccessor<i64>>(s).close(); }

export function gpsimd_to_tcm_i32(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<i32>(tcm, offset, n); }
export function gpsimd_from_tcm_i32(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<i32>(tcm, offset, n); }
export function gpsimd_acc_open_i32(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<i32>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<i32>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<i32>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<i32>());
  return changetype<usize>(T(desc).accessor4<i32>());
}
export function gpsimd_acc_get_i32(desc: usize, i: i64): i32 { return changetype<Accessor<i32>>(desc)[i]; }
export function gpsimd_acc_set_i32(desc: usize, i: i64, v: i32): void { changetype<Accessor<i32>>(desc)[i] = v; }
export function gpsimd_row_get_i32(handle: usize, j: i64): i32 { return changetype<Row1<i32>>(handle)[j]; }
export function gpsimd_row_set_i32(handle: usize, j: i64, v: i32): void { changetype<Row1<i32>>(handle)[j] = v; }
export function gpsimd_read_open_i32(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<i32>()); }
export function gpsimd_read_i32(s: usize): i32 { return changetype<ReadStreamAccessor<i32>>(s).read(); }
export function gpsimd_read_close_i32(s: usize): i32 { return changetype<ReadStreamAccessor<i32>>(s).close(); }
export function gpsimd_write_open_i32(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<i32>()); }
export function gpsimd_write_i32(s: usize, v: i32): void { changetype<WriteStreamAccessor<i32>>(s).write(v); }
export function gpsimd_write_close_i32(s: usize): i32 { return changetype<WriteStreamAccessor<i32>>(s).close(); }

export function gpsimd_to_tcm_i16(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<i16>(tcm, offset, n); }
export function gpsimd_from_tcm_i16(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<i16>(tcm, offset, n); }
export function gpsimd_acc_open_i16(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<i16>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<i16>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<i16>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<i16>());
  return changetype<usize>(T(desc).accessor4<i16>());
}
export function gpsimd_acc_get_i16(desc: usize, i: i64): i16 { return changetype<Accessor<i16>>(desc)[i]; }
export function gpsimd_acc_set_i16(desc: usize, i: i64, v: i16): void { changetype<Accessor<i16>>(desc)[i] = v; }
export function gpsimd_row_get_i16(handle: usize, j: i64): i16 { return changetype<Row1<i16>>(handle)[j]; }
export function gpsimd_row_set_i16(handle: usize, j: i64, v: i16): void { changetype<Row1<i16>>(handle)[j] = v; }
export function gpsimd_read_open_i16(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<i16>()); }
export function gpsimd_read_i16(s: usize): i16 { return changetype<ReadStreamAccessor<i16>>(s).read(); }
export function gpsimd_read_close_i16(s: usize): i32 { return changetype<ReadStreamAccessor<i16>>(s).close(); }
export function gpsimd_write_open_i16(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<i16>()); }
export function gpsimd_write_i16(s: usize, v: i16): void { changetype<WriteStreamAccessor<i16>>(s).write(v); }
export function gpsimd_write_close_i16(s: usize): i32 { return changetype<WriteStreamAccessor<i16>>(s).close(); }

export function gpsimd_to_tcm_u16(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<u16>(tcm, offset, n); }
export function gpsimd_from_tcm_u16(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<u16>(tcm, offset, n); }
export function gpsimd_acc_open_u16(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<u16>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<u16>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<u16>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<u16>());
  return changetype<usize>(T(desc).accessor4<u16>());
}
export function gpsimd_acc_get_u16(desc: usize, i: i64): u16 { return changetype<Accessor<u16>>(desc)[i]; }
export function gpsimd_acc_set_u16(desc: usize, i: i64, v: u16): void { changetype<Accessor<u16>>(desc)[i] = v; }
export function gpsimd_row_get_u16(handle: usize, j: i64): u16 { return changetype<Row1<u16>>(handle)[j]; }
export function gpsimd_row_set_u16(handle: usize, j: i64, v: u16): void { changetype<Row1<u16>>(handle)[j] = v; }
export function gpsimd_read_open_u16(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<u16>()); }
export function gpsimd_read_u16(s: usize): u16 { return changetype<ReadStreamAccessor<u16>>(s).read(); }
export function gpsimd_read_close_u16(s: usize): i32 { return changetype<ReadStreamAccessor<u16>>(s).close(); }
export function gpsimd_write_open_u16(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<u16>()); }
export function gpsimd_write_u16(s: usize, v: u16): void { changetype<WriteStreamAccessor<u16>>(s).write(v); }
export function gpsimd_write_close_u16(s: usize): i32 { return changetype<WriteStreamAccessor<u16>>(s).close(); }

export function gpsimd_to_tcm_i8(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<i8>(tcm, offset, n); }
export function gpsimd_from_tcm_i8(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<i8>(tcm, offset, n); }
export function gpsimd_acc_open_i8(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<i8>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<i8>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<i8>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<i8>());
  return changetype<usize>(T(desc).accessor4<i8>());
}
export function gpsimd_acc_get_i8(desc: usize, i: i64): i8 { return changetype<Accessor<i8>>(desc)[i]; }
export function gpsimd_acc_set_i8(desc: usize, i: i64, v: i8): void { changetype<Accessor<i8>>(desc)[i] = v; }
export function gpsimd_row_get_i8(handle: usize, j: i64): i8 { return changetype<Row1<i8>>(handle)[j]; }
export function gpsimd_row_set_i8(handle: usize, j: i64, v: i8): void { changetype<Row1<i8>>(handle)[j] = v; }
export function gpsimd_read_open_i8(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<i8>()); }
export function gpsimd_read_i8(s: usize): i8 { return changetype<ReadStreamAccessor<i8>>(s).read(); }
export function gpsimd_read_close_i8(s: usize): i32 { return changetype<ReadStreamAccessor<i8>>(s).close(); }
export function gpsimd_write_open_i8(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<i8>()); }
export function gpsimd_write_i8(s: usize, v: i8): void { changetype<WriteStreamAccessor<i8>>(s).write(v); }
export function gpsimd_write_close_i8(s: usize): i32 { return changetype<WriteStreamAccessor<i8>>(s).close(); }

export function gpsimd_to_tcm_u8(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tensor_to_tcm<u8>(tcm, offset, n); }
export function gpsimd_from_tcm_u8(desc: usize, tcm: usize, offset: i64, n: i64): void { changetype<TcmAccessor>(desc).tcm_to_tensor<u8>(tcm, offset, n); }
export function gpsimd_acc_open_u8(desc: usize, rank: i32): usize {
  if (rank == 0) return changetype<usize>(T(desc).accessor<u8>());
  if (rank == 1) return changetype<usize>(T(desc).accessor1<u8>());
  if (rank == 2) return changetype<usize>(T(desc).accessor2<u8>());
  if (rank == 3) return changetype<usize>(T(desc).accessor3<u8>());
  return changetype<usize>(T(desc).accessor4<u8>());
}
export function gpsimd_acc_get_u8(desc: usize, i: i64): u8 { return changetype<Accessor<u8>>(desc)[i]; }
export function gpsimd_acc_set_u8(desc: usize, i: i64, v: u8): void { changetype<Accessor<u8>>(desc)[i] = v; }
export function gpsimd_row_get_u8(handle: usize, j: i64): u8 { return changetype<Row1<u8>>(handle)[j]; }
export function gpsimd_row_set_u8(handle: usize, j: i64, v: u8): void { changetype<Row1<u8>>(handle)[j] = v; }
export function gpsimd_read_open_u8(desc: usize): usize { return changetype<usize>(T(desc).read_stream_accessor<u8>()); }
export function gpsimd_read_u8(s: usize): u8 { return changetype<ReadStreamAccessor<u8>>(s).read(); }
export function gpsimd_read_close_u8(s: usize): i32 { return changetype<ReadStreamAccessor<u8>>(s).close(); }
export function gpsimd_write_open_u8(desc: usize): usize { return changetype<usize>(T(desc).write_stream_accessor<u8>()); }
export function gpsimd_write_u8(s: usize, v: u8): void { changetype<WriteStreamAccessor<u8>>(s).write(v); }
export function gpsimd_write_close_u8(s: usize): i32 { return changetype<WriteStreamAccessor<u8>>(s).close(); }

// Tensor operations: result 0 makes a new tensor (the plain form), otherwise the _out form writes into result.
export function gpsimd_abs(result: usize, self: usize): usize { return changetype<usize>(result ? ops.abs_out(T(result), T(self)) : ops.abs(T(self))); }
export function gpsimd_ceil(result: usize, self: usize): usize { return changetype<usize>(result ? ops.ceil_out(T(result), T(self)) : ops.ceil(T(self))); }
export function gpsimd_floor(result: usize, self: usize): usize { return changetype<usize>(result ? ops.floor_out(T(result), T(self)) : ops.floor(T(self))); }
export function gpsimd_sin(result: usize, self: usize): usize { return changetype<usize>(result ? ops.sin_out(T(result), T(self)) : ops.sin(T(self))); }
export function gpsimd_cos(result: usize, self: usize): usize { return changetype<usize>(result ? ops.cos_out(T(result), T(self)) : ops.cos(T(self))); }
export function gpsimd_tan(result: usize, self: usize): usize { return changetype<usize>(result ? ops.tan_out(T(result), T(self)) : ops.tan(T(self))); }
export function gpsimd_log(result: usize, self: usize): usize { return changetype<usize>(result ? ops.log_out(T(result), T(self)) : ops.log(T(self))); }
export function gpsimd_log2(result: usize, self: usize): usize { return changetype<usize>(result ? ops.log2_out(T(result), T(self)) : ops.log2(T(self))); }
export function gpsimd_log10(result: usize, self: usize): usize { return changetype<usize>(result ? ops.log10_out(T(result), T(self)) : ops.log10(T(self))); }
export function gpsimd_exp(result: usize, self: usize): usize { return changetype<usize>(result ? ops.exp_out(T(result), T(self)) : ops.exp(T(self))); }
export function gpsimd_bitwise_not(result: usize, self: usize): usize { return changetype<usize>(result ? ops.bitwise_not_out(T(result), T(self)) : ops.bitwise_not(T(self))); }
export function gpsimd_mul(result: usize, self: usize, other: usize): usize { return changetype<usize>(result ? ops.mul_out(T(result), T(self), T(other)) : ops.mul(T(self), T(other))); }
export function gpsimd_div(result: usize, self: usize, other: usize): usize { return changetype<usize>(result ? ops.div_out(T(result), T(self), T(other)) : ops.div(T(self), T(other))); }
export function gpsimd_pow(result: usize, self: usize, other: usize): usize { return changetype<usize>(result ? ops.pow_out(T(result), T(self), T(other)) : ops.pow(T(self), T(other))); }
export function gpsimd_bitwise_and(result: usize, self: usize, other: usize): usize { return changetype<usize>(result ? ops.bitwise_and_out(T(result), T(self), T(other)) : ops.bitwise_and(T(self), T(other))); }
export function gpsimd_bitwise_or(result: usize, self: usize, other: usize): usize { return changetype<usize>(result ? ops.bitwise_or_out(T(result), T(self), T(other)) : ops.bitwise_or(T(self), T(other))); }
// A torch::Scalar crosses as (f64 value, i64 value, kind): kind 1 is an integral Scalar, handed on as i64 (as an
// AssemblyScript kernel's integer argument), 0 a floating one, as f64. So torch::add(a, b) or torch::mul(t, 2) on
// integral tensors stays integral, and a floating Scalar promotes, by torch's rules (tensor-ops.ts), not by the ABI.
export function gpsimd_add(result: usize, self: usize, other: usize, a_f: f64, a_i: i64, a_int: i32): usize {
  if (a_int) return changetype<usize>(result ? ops.add_out<i64>(T(result), T(self), T(other), a_i) : ops.add<i64>(T(self), T(other), a_i));
  return changetype<usize>(result ? ops.add_out<f64>(T(result), T(self), T(other), a_f) : ops.add<f64>(T(self), T(other), a_f));
}
export function gpsimd_sub(result: usize, self: usize, other: usize, a_f: f64, a_i: i64, a_int: i32): usize {
  if (a_int) return changetype<usize>(result ? ops.sub_out<i64>(T(result), T(self), T(other), a_i) : ops.sub<i64>(T(self), T(other), a_i));
  return changetype<usize>(result ? ops.sub_out<f64>(T(result), T(self), T(other), a_f) : ops.sub<f64>(T(self), T(other), a_f));
}
// @ts-ignore: decorator
@inline function add_scalar_as<S, A>(sub: bool, result: usize, self: usize, s: S, a: A): usize {
  if (sub) return changetype<usize>(result ? ops.sub_scalar_out<S, A>(T(result), T(self), s, a) : ops.sub_scalar<S, A>(T(self), s, a));
  return changetype<usize>(result ? ops.add_scalar_out<S, A>(T(result), T(self), s, a) : ops.add_scalar<S, A>(T(self), s, a));
}
function add_scalar_k(sub: bool, result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32, a_f: f64, a_i: i64, a_int: i32): usize {
  if (s_int) return a_int ? add_scalar_as<i64, i64>(sub, result, self, s_i, a_i) : add_scalar_as<i64, f64>(sub, result, self, s_i, a_f);
  return a_int ? add_scalar_as<f64, i64>(sub, result, self, s_f, a_i) : add_scalar_as<f64, f64>(sub, result, self, s_f, a_f);
}
export function gpsimd_add_scalar(result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32, a_f: f64, a_i: i64, a_int: i32): usize { return add_scalar_k(false, result, self, s_f, s_i, s_int, a_f, a_i, a_int); }
export function gpsimd_sub_scalar(result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32, a_f: f64, a_i: i64, a_int: i32): usize { return add_scalar_k(true, result, self, s_f, s_i, s_int, a_f, a_i, a_int); }
export function gpsimd_mul_scalar(result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32): usize {
  if (s_int) return changetype<usize>(result ? ops.mul_scalar_out<i64>(T(result), T(self), s_i) : ops.mul_scalar<i64>(T(self), s_i));
  return changetype<usize>(result ? ops.mul_scalar_out<f64>(T(result), T(self), s_f) : ops.mul_scalar<f64>(T(self), s_f));
}
export function gpsimd_div_scalar(result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32): usize {
  if (s_int) return changetype<usize>(result ? ops.div_scalar_out<i64>(T(result), T(self), s_i) : ops.div_scalar<i64>(T(self), s_i));
  return changetype<usize>(result ? ops.div_scalar_out<f64>(T(result), T(self), s_f) : ops.div_scalar<f64>(T(self), s_f));
}
export function gpsimd_pow_scalar(result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32): usize {
  if (s_int) return changetype<usize>(result ? ops.pow_scalar_out<i64>(T(result), T(self), s_i) : ops.pow_scalar<i64>(T(self), s_i));
  return changetype<usize>(result ? ops.pow_scalar_out<f64>(T(result), T(self), s_f) : ops.pow_scalar<f64>(T(self), s_f));
}
export function gpsimd_bitwise_and_scalar(result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32): usize {
  if (s_int) return changetype<usize>(result ? ops.bitwise_and_scalar_out<i64>(T(result), T(self), s_i) : ops.bitwise_and_scalar<i64>(T(self), s_i));
  return changetype<usize>(result ? ops.bitwise_and_scalar_out<f64>(T(result), T(self), s_f) : ops.bitwise_and_scalar<f64>(T(self), s_f));
}
export function gpsimd_bitwise_or_scalar(result: usize, self: usize, s_f: f64, s_i: i64, s_int: i32): usize {
  if (s_int) return changetype<usize>(result ? ops.bitwise_or_scalar_out<i64>(T(result), T(self), s_i) : ops.bitwise_or_scalar<i64>(T(self), s_i));
  return changetype<usize>(result ? ops.bitwise_or_scalar_out<f64>(T(result), T(self), s_f) : ops.bitwise_or_scalar<f64>(T(self), s_f));
}
// Scalar-first forms: torch::pow(Scalar, Tensor), torch::bitwise_and/or(Scalar, Tensor).
export function gpsimd_scalar_pow(result: usize, s_f: f64, s_i: i64, s_int: i32, exponent: usize): usize {
  if (s_int) return changetype<usize>(result ? ops.scalar_pow_out<i64>(T(result), s_i, T(exponent)) : ops.scalar_pow<i64>(s_i, T(exponent)));
  return changetype<usize>(result ? ops.scalar_pow_out<f64>(T(result), s_f, T(exponent)) : ops.scalar_pow<f64>(s_f, T(exponent)));
}
export function gpsimd_scalar_bitwise_and(result: usize, s_f: f64, s_i: i64, s_int: i32, other: usize): usize {
  if (s_int) return changetype<usize>(result ? ops.scalar_bitwise_and_out<i64>(T(result), s_i, T(other)) : ops.scalar_bitwise_and<i64>(s_i, T(other)));
  return changetype<usize>(result ? ops.scalar_bitwise_and_out<f64>(T(result), s_f, T(other)) : ops.scalar_bitwise_and<f64>(s_f, T(other)));
}
export function gpsimd_scalar_bitwise_or(result: usize, s_f: f64, s_i: i64, s_int: i32, other: usize): usize {
  if (s_int) return changetype<usize>(result ? ops.scalar_bitwise_or_out<i64>(T(result), s_i, T(other)) : ops.scalar_bitwise_or<i64>(s_i, T(other)));
  return changetype<usize>(result ? ops.scalar_bitwise_or_out<f64>(T(result), s_f, T(other)) : ops.scalar_bitwise_or<f64>(s_f, T(other)));
}
// @ts-ignore: decorator
@inline function clamp_as<L, H>(result: usize, self: usize, lo: L, hi: H): usize {
  return changetype<usize>(result ? ops.clamp_out<L, H>(T(result), T(self), lo, hi) : ops.clamp<L, H>(T(self), lo, hi));
}
export function gpsimd_clamp(result: usize, self: usize, lo_f: f64, lo_i: i64, lo_int: i32, hi_f: f64, hi_i: i64, hi_int: i32): usize {
  if (lo_int) return hi_int ? clamp_as<i64, i64>(result, self, lo_i, hi_i) : clamp_as<i64, f64>(result, self, lo_i, hi_f);
  return hi_int ? clamp_as<f64, i64>(result, self, lo_f, hi_i) : clamp_as<f64, f64>(result, self, lo_f, hi_f);
}

/**
 * assert() failed in a C++ kernel: it aborts as an AssemblyScript assert does (KernelAbortError), with the expression
 * and the assert's own .cpp line in the text (optimised code may move the failing call away from it).
 */
export function gpsimd_assert_fail(expr: usize, expr_bytes: i32, file: usize, file_bytes: i32, line: i32): void {
  const path = String.UTF8.decodeUnsafe(file, <usize>file_bytes);
  abort(`assertion failed: ${String.UTF8.decodeUnsafe(expr, <usize>expr_bytes)} (${path}:${line})`, path, <u32>line, 0);
}

// The C library's heap (malloc, operator new, std::vector; include/gpsimd/device-libc.h): this core's kernel heap, as
// for tensors made inside a kernel. A request it cannot hold is E_HEAP_EXHAUSTED; it never returns 0.
export function gpsimd_malloc(bytes: usize, align: usize): usize {
  // @ts-ignore: the kernel heap's global (assembly/rt/stub.ts); the heap takes blocks below 1 GiB
  if (<u64>bytes + <u64>align >= (1 << 30)) __gpsimd_heap_refuse(<f64>bytes);
  if (align <= 16) return heap.alloc(bytes); // the heap's blocks are 16-byte aligned
  // Over-aligned: the address gets a block header of its own whose size reaches the real block's end, so that
  // free() of the newest block still gives its bytes back (the padding before it stays taken until the launch ends).
  const raw = heap.alloc(bytes + align);
  const p = (raw + align - 1) & ~(align - 1);
  if (p != raw) store<u32>(p - 4, load<u32>(raw - 4) - <u32>(p - raw));
  return p;
}
export function gpsimd_realloc(ptr: usize, bytes: usize): usize {
  // @ts-ignore: the kernel heap's global (assembly/rt/stub.ts)
  if (<u64>bytes >= (1 << 30)) __gpsimd_heap_refuse(<f64>bytes);
  return heap.realloc(ptr, bytes);
}
export function gpsimd_free(ptr: usize): void {
  // Not a block of this core's heap (a tcm_malloc block, a static address): undefined in C, an error here.
  if (ptr < <usize>load<u32>(CTX, CTX_HEAP_BASE) || ptr >= <usize>load<u32>(CTX, CTX_HEAP_END)) {
    abort("free() or delete of 0x" + ptr.toString(16) + ", which malloc or new did not return (a tcm_malloc block is freed with tcm_free)");
  }
  heap.free(ptr);
}

/** abort() of a C++ kernel (abort, assert, exit, libc++'s stops): the host names the kernel's line from the stack. */
export function gpsimd_abort(message: usize, file: usize, line: i32): void {
  abort(c_string(message), file ? c_string(file) : null, line, 0);
}

function c_string(p: usize): string {
  let n: usize = 0;
  while (load<u8>(p + n) != 0) n++;
  return String.UTF8.decodeUnsafe(p, n);
}

/** A WASI function the kernel's C library reached (build/cpp/host-stubs.ts): a GpSimd core has no host to give it. */
export function gpsimd_host_unavailable(kind: i32): void {
  const what = kind == 0 ? "files and the console (print with printf)"
    : kind == 1 ? "a clock"
    : kind == 2 ? "the process environment"
    : kind == 3 ? "process exit (a kernel ends by returning its tensor)"
    : "the host system";
  abort("the kernel's C library asked the host for " + what + " (a WASI call), which a GpSimd core does not have");
}

// Printf's argument records written for the C side (include/gpsimd/printf.h): the context block is the runtime's, and
// sanitize mode refuses a kernel's stores to it.
// @ts-ignore: decorator
@inline function printf_record(i: i32, tag: i32): usize {
  const rec = CTX + CTX_PRINTF_ARGS + <usize>(i << 4);
  store<i32>(rec, tag);
  return rec;
}
export function gpsimd_printf_int(i: i32, v: i64): void { store<i64>(printf_record(i, PF_TAG_INT), v, 8); }
export function gpsimd_printf_uint(i: i32, v: i64): void { store<i64>(printf_record(i, PF_TAG_UINT), v, 8); }
export function gpsimd_printf_float(i: i32, v: f64): void { store<f64>(printf_record(i, PF_TAG_FLOAT), v, 8); }
export function gpsimd_printf_string(i: i32, s: usize): void { store<u32>(printf_record(i, PF_TAG_STRING), <u32>s, 8); }
