// Byte-level readers the DWARF sections need beyond wasm's LEB128 (build/wasm-reader.ts):
// little-endian fixed-size fields, DWARF's own LEB128 reads wider than 32 bits, and
// the name of a custom section. Shared by the line-table reader (dwarf-lines.ts) and
// the inlined-call reader (dwarf-inlines.ts).
import { ByteReader } from "../wasm-reader.js";

/** The name of the custom section whose content starts at `at`, and where its payload starts. */
export function customName(wasm: Uint8Array, at: number): { name: string; end: number } {
  const r = new ByteReader(wasm, at);
  const n = r.u32();
  return { name: new TextDecoder().decode(wasm.subarray(r.pos, r.pos + n)), end: r.pos + n };
}

export function u16(r: ByteReader): number { return r.u8() | (r.u8() << 8); }
export function u32le(r: ByteReader): number { return (u16(r) | (u16(r) << 16)) >>> 0; }
export function u64le(r: ByteReader): number { const lo = u32le(r); return lo + u32le(r) * 2 ** 32; }

/** Unsigned LEB128 up to 2^53 (DWARF attribute values may exceed 32 bits). */
export function uleb(r: ByteReader): number {
  let result = 0, scale = 1, byte: number;
  do { byte = r.u8(); result += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80);
  return result;
}

/** Signed LEB128 up to 2^53. */
export function sleb(r: ByteReader): number {
  let result = 0, scale = 1, byte: number;
  do { byte = r.u8(); result += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80);
  return byte & 0x40 ? result - scale : result;
}
