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

/** Box pairs a TCM chunk holds: the shipped kernels' (ops/giou/multicore.ts) 256, three buffers in 9 KB. */
const GIOU_CHUNK: i32 = 256;
/**
 * This thread's 16 KB buffer, its TCM: each thread of a split run has an instance of this module of its own (its
 * globals are its own, the memory is shared), and the host gives each a buffer of its own (set_tcm_buffer).
 */
let tcm_buffer: usize = 0;

/** Sets this instance's (this thread's) TCM-sized buffer. */
export function set_tcm_buffer(at: usize): void {
  tcm_buffer = at;
}

/**
 * The same GIOU done the way a TCM kernel must do it, with nothing of gpsimd around it: per chunk of GIOU_CHUNK
 * pairs, memory.copy both inputs into this thread's 16 KB buffer, giou_f32x4 there, memory.copy the scores out.
 */
export function giou_tcm(out: usize, pred: usize, target: usize, begin: i32, end: i32): void {
  const tcm_pred = tcm_buffer, tcm_target = tcm_buffer + 4096, tcm_out = tcm_buffer + 8192;
  for (let i = begin; i < end; i += GIOU_CHUNK) {
    const n = min(GIOU_CHUNK, end - i);
    memory.copy(tcm_pred, pred + (<usize>i << 4), <usize>n << 4);
    memory.copy(tcm_target, target + (<usize>i << 4), <usize>n << 4);
    giou_f32x4(tcm_out, tcm_pred, tcm_target, n);
    memory.copy(out + (<usize>i << 2), tcm_out, <usize>n << 2);
  }
}

/** ReLU forward of elements [begin, end). */
export function relu_forward(out: usize, x: usize, begin: i32, end: i32): void {
  relu_f32(out + (<usize>begin << 2), x + (<usize>begin << 2), <usize>(end - begin));
}

/** Floats a ReLU TCM chunk holds: the shipped kernel's (ops/relu/multicore.ts) 4 KB buffer. */
const RELU_CHUNK: i32 = 1024;

/** ReLU forward as a TCM kernel does it, with nothing of gpsimd around it: per 4 KB chunk, copy into this thread's buffer, ReLU in place, copy out. */
export function relu_forward_tcm(out: usize, x: usize, begin: i32, end: i32): void {
  const buffer = tcm_buffer;
  for (let i = begin; i < end; i += RELU_CHUNK) {
    const n = min(RELU_CHUNK, end - i);
    memory.copy(buffer, x + (<usize>i << 2), <usize>n << 2);
    relu_f32(buffer, buffer, <usize>n);
    memory.copy(out + (<usize>i << 2), buffer, <usize>n << 2);
  }
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
