// The floors' arithmetic as a plain WebAssembly module: the shipped kernels'
// own inner loops (ops/giou/giou-f32x4.ts, assembly/simd.ts) called over whole
// arrays, with no gpsimd around them: no launch, no TCM copies, no checks.
// Each export works on the index range [begin, end), so threads can split it.
import { giou_f32x4 } from "../../../ops/giou/giou-f32x4";
import { relu_f32, relu_backward_f32, add_f32 } from "../../../assembly/simd";

/** GIOU of box pairs [begin, end): out[i] from pred[4i..4i+3] and target[4i..4i+3]. */
export function giou(out: usize, pred: usize, target: usize, begin: i32, end: i32): void {
  giou_f32x4(out + (<usize>begin << 2), pred + (<usize>begin << 4), target + (<usize>begin << 4), end - begin);
}

/** ReLU forward of elements [begin, end). */
export function relu_forward(out: usize, x: usize, begin: i32, end: i32): void {
  relu_f32(out + (<usize>begin << 2), x + (<usize>begin << 2), <usize>(end - begin));
}

/** ReLU backward of elements [begin, end). */
export function relu_backward(out: usize, grad: usize, x: usize, begin: i32, end: i32): void {
  const o = <usize>begin << 2;
  relu_backward_f32(out + o, grad + o, x + o, <usize>(end - begin));
}

/** a + b of elements [begin, end) (the NKI tensor add's arithmetic). */
export function add(out: usize, a: usize, b: usize, begin: i32, end: i32): void {
  const o = <usize>begin << 2;
  add_f32(out + o, a + o, b + o, <usize>(end - begin));
}

/** Copies bytes [begin, end) of src, chunk by chunk, into a buffer of 4 chunks (each byte once: what a TCM kernel's copies move). */
export function copy_chunks(buffer: usize, src: usize, chunk: i32, begin: i32, end: i32): void {
  for (let i = begin; i < end; i += chunk) {
    memory.copy(buffer + <usize>((i / chunk) % 4 * chunk), src + <usize>i, <usize>min(chunk, end - i));
  }
}
