// A C++ kernel's zero-initialised statics (.bss: `static float scratch[1024];`,
// `static int calls;`, and the C library's own state such as errno or rand's
// seed) have no data segment: lld leaves them out and expects zeroed memory.
// gpsimd places a library's static data by its data segments (build/relocate.ts
// takes the image from them), so without a segment those bytes would overlap
// whatever device memory follows. The kernel's statics end where its (unused)
// link-time stack ends, at __stack_pointer's initial value: the merged module's
// highest data segment is extended with zeros to there. Only the data section
// changes (it follows the code), so code offsets and source maps stay valid.
//
// lld zeroes those statics itself at instantiation (a start function,
// __wasm_init_memory: with imported shared memory it cannot assume zeroed
// memory). Here every core thread instantiates the library, and again after an
// error, all on the same device memory: each new instance would zero the
// statics the kernels wrote (a call counter, a table filled on first use) while
// the initialised ones kept theirs. The host writes the static image, zeros
// included, once when the library is placed, so that fill goes (withoutBssInit).
import binaryen from "binaryen";
import { walkExpressions } from "../binaryen-walk.js";
import { readSections, readGlobals, readDataSegments, ByteReader, SectionId } from "../wasm-reader.js";

/** Where a linked kernel's static data (with its zeroed part) ends: __stack_pointer's initial value (lld's global 0). */
export function kernelStaticEnd(kernel: Uint8Array): number {
  const globals = readSections(kernel).find((s) => s.id === SectionId.global);
  const init = globals ? readGlobals(kernel, globals)[0]?.init[0] : undefined;
  if (!init || init.fields.length !== 1) throw new Error("gpsimd: the linked C++ kernel has no __stack_pointer global");
  return init.fields[0].value;
}

/** The module with its highest active data segment extended with zero bytes to `end` (unchanged if it reaches it). */
export function reserveStaticData(wasm: Uint8Array, end: number): Uint8Array {
  const section = readSections(wasm).find((s) => s.id === SectionId.data);
  if (!section) throw new Error("gpsimd: the merged kernel module has no data section");
  const segments = readDataSegments(wasm, section);
  const start = (s: (typeof segments)[number]) => s.offset[0].fields[0].value;
  const last = segments.filter((s) => !s.passive).reduce((a, b) => (start(b) + size(b) > start(a) + size(a) ? b : a));
  const grow = end - (start(last) + size(last));
  if (grow <= 0) return wasm;
  // The segment's size field (just before its bytes) is rewritten; the section's size field too.
  const lengthAt = sizeFieldStart(wasm, last.data.start);
  const body = concat([
    wasm.subarray(section.contentStart, lengthAt), uleb(size(last) + grow), wasm.subarray(last.data.start, last.data.end),
    new Uint8Array(grow), wasm.subarray(last.data.end, section.end),
  ]);
  return concat([wasm.subarray(0, section.start), Uint8Array.of(SectionId.data), uleb(body.length), body, wasm.subarray(section.end)]);
}

function size(s: { data: { start: number; end: number } }): number { return s.data.end - s.data.start; }

/** The start of the LEB128 length that ends just before `bytesStart` (the reader recorded only the bytes' range). */
function sizeFieldStart(wasm: Uint8Array, bytesStart: number): number {
  let at = bytesStart - 1; // the length's last byte has no continuation bit
  while (at > 0 && (wasm[at - 1] & 0x80)) at--;
  const r = new ByteReader(wasm, at, bytesStart);
  r.u32();
  if (r.pos !== bytesStart) throw new Error("gpsimd: could not read a data segment's size");
  return at;
}

function uleb(n: number): Uint8Array {
  const out: number[] = [];
  do {
    const byte = n & 0x7f;
    n >>>= 7;
    out.push(n ? byte | 0x80 : byte);
  } while (n);
  return Uint8Array.from(out);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/**
 * Empties the linked kernel's start function when all it does is zero memory (lld's __wasm_init_memory for .bss):
 * the static image already holds those zeros. Returns whether it did. A start function doing anything else is left.
 */
export function withoutBssInit(module: binaryen.Module): boolean {
  const start = module.getStart();
  if (!start) return false;
  const { body, name } = binaryen.getFunctionInfo(start);
  let onlyFills = true;
  walkExpressions(body, (_expr, id) => {
    if (id !== binaryen.MemoryFillId && id !== binaryen.ConstId && id !== binaryen.BlockId && id !== binaryen.NopId) onlyFills = false;
  }, (id) => new Error(`withoutBssInit: ${name} holds an instruction the pass does not know (expression id ${id})`));
  if (!onlyFills) return false;
  (binaryen as unknown as { Function: { setBody(f: binaryen.FunctionRef, body: binaryen.ExpressionRef): void } }).Function.setBody(start, module.nop());
  return true;
}
