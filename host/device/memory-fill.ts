// Zeroing device memory from the host at memset speed. Device memory is a
// shared WebAssembly.Memory, and TypedArray.fill on a shared buffer stores
// byte by byte (64 KB: about 28 us against 0.8 us for memory.fill on Node 20),
// so a tiny module that imports the memory and runs memory.fill does it.

/**
 * (module (import "env" "memory" (memory 1 65536 shared))
 *   (func (export "zero") (param $at i32) (param $bytes i32) local.get $at i32.const 0 local.get $bytes memory.fill))
 */
const ZERO_MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x06, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x00, // type 0: (i32, i32) -> ()
  0x02, 0x12, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03, 0x01, 0x80, 0x80, 0x04, // env.memory, shared, 1 .. 65536 pages
  0x03, 0x02, 0x01, 0x00,
  0x07, 0x08, 0x01, 0x04, 0x7a, 0x65, 0x72, 0x6f, 0x00, 0x00, // export "zero"
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x41, 0x00, 0x20, 0x01, 0xfc, 0x0b, 0x00, 0x0b,
]);

let compiled: WebAssembly.Module | null = null;
const zeroers = new WeakMap<WebAssembly.Memory, (at: number, bytes: number) => void>();

/** A function that zeroes [at, at + bytes) of `memory` (a shared memory, as device memory is). */
export function zeroer(memory: WebAssembly.Memory): (at: number, bytes: number) => void {
  let zero = zeroers.get(memory);
  if (!zero) {
    compiled ??= new WebAssembly.Module(ZERO_MODULE);
    zero = new WebAssembly.Instance(compiled, { env: { memory } }).exports.zero as (at: number, bytes: number) => void;
    zeroers.set(memory, zero);
  }
  return zero;
}
