// printf: the format string and up to 8 arguments go to the host, which
// formats them like C and appends the text to this core's ring buffer
// (NEURON_RT_GPSIMD_STDOUT_QUEUE_SIZE_BYTES); it is shown after the operator.
import { CTX_PRINTF_ARGS, CTX_STAT_PRINTF_CALLS, PF_TAG_INT, PF_TAG_UINT, PF_TAG_FLOAT, PF_TAG_STRING, PF_TAG_BOOL } from "./layout";
import { CTX } from "./core";
import { host_printf } from "./bindings/host";

// @ts-ignore: decorator
@inline function zero<T>(): T {
  if (isReference<T>()) return changetype<T>(0);
  else return <T>0;
}

/** Writes argument record i: a tag and the value (f64, i64, or a string address). */
// @ts-ignore: decorator
@inline function put<T>(i: i32, value: T): void {
  const rec = CTX + CTX_PRINTF_ARGS + <usize>(i << 4);
  if (isString<T>()) {
    store<i32>(rec, PF_TAG_STRING);
    store<u32>(rec, <u32>changetype<usize>(value), 8);
  } else if (isBoolean<T>()) {
    store<i32>(rec, PF_TAG_BOOL);
    store<i64>(rec, value ? 1 : 0, 8);
  } else if (isFloat<T>()) {
    store<i32>(rec, PF_TAG_FLOAT);
    store<f64>(rec, <f64>value, 8);
  } else if (isSigned<T>()) {
    store<i32>(rec, PF_TAG_INT);
    store<i64>(rec, <i64>value, 8);
  } else if (isInteger<T>()) {
    store<i32>(rec, PF_TAG_UINT);
    store<u64>(rec, <u64>value, 8);
  } else {
    ERROR("printf arguments must be numbers, booleans or strings");
  }
}

/** C printf for kernels: %d %i %u %x %X %o %c %s %f %e %g %p %% with flags, width and precision; up to 8 arguments. */
export function printf<A = i32, B = i32, C = i32, D = i32, E = i32, F = i32, G = i32, H = i32>(
  fmt: string, a: A = zero<A>(), b: B = zero<B>(), c: C = zero<C>(), d: D = zero<D>(),
  e: E = zero<E>(), f: F = zero<F>(), g: G = zero<G>(), h: H = zero<H>(),
): void {
  put<A>(0, a); put<B>(1, b); put<C>(2, c); put<D>(3, d);
  put<E>(4, e); put<F>(5, f); put<G>(6, g); put<H>(7, h);
  store<f64>(CTX, load<f64>(CTX, CTX_STAT_PRINTF_CALLS) + 1, CTX_STAT_PRINTF_CALLS);
  host_printf(changetype<usize>(fmt), CTX + CTX_PRINTF_ARGS, 8);
}
