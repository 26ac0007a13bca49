/** A minimal WebAssembly binary reader: sections, the entries relocation needs, and a full instruction decoder. */

/** Thrown when the bytes are not a wasm module this reader understands. */
export class WasmFormatError extends Error {}

/** Section ids of the binary format. */
export const SectionId = {
  custom: 0, type: 1, import: 2, function: 3, table: 4, memory: 5, global: 6,
  export: 7, start: 8, element: 9, code: 10, data: 11, dataCount: 12,
} as const;

const SECTION_NAMES = [
  "custom", "type", "import", "function", "table", "memory", "global",
  "export", "start", "element", "code", "data", "data count",
];

/** Human-readable name of a section id. */
export function sectionName(id: number): string {
  return SECTION_NAMES[id] ?? `unknown (id ${id})`;
}

/** A byte range [start, end) in the module. */
export interface Range {
  start: number;
  end: number;
}

/** Sequential reader over a byte range with LEB128 decoding. */
export class ByteReader {
  constructor(readonly bytes: Uint8Array, public pos: number, readonly end = bytes.length) {}

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  u8(): number {
    if (this.pos >= this.end) throw new WasmFormatError(`unexpected end of data at offset ${this.pos}`);
    return this.bytes[this.pos++];
  }

  /** Unsigned LEB128 of at most 32 bits. */
  u32(): number {
    const start = this.pos;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.u8();
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) {
        if (value > 0xffffffff) break;
        return value;
      }
    }
    throw new WasmFormatError(`invalid u32 LEB128 at offset ${start}`);
  }

  /** Signed LEB128 of at most 32 bits, as a JS int32. */
  s32(): number {
    const start = this.pos;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.u8();
      value |= (byte & 0x7f) << shift; // bits past 32 fall off: the int32 wrap we want
      if ((byte & 0x80) === 0) {
        if (shift < 25 && (byte & 0x40) !== 0) value |= -1 << (shift + 7);
        return value | 0;
      }
    }
    throw new WasmFormatError(`invalid s32 LEB128 at offset ${start}`);
  }

  /** Signed LEB128 of at most 64 bits, as a bigint. */
  s64(): bigint {
    const start = this.pos;
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = this.u8();
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return BigInt.asIntN(64, (byte & 0x40) !== 0 ? value - (1n << (shift + 7n)) : value);
    }
    throw new WasmFormatError(`invalid s64 LEB128 at offset ${start}`);
  }

  /** Skips a LEB128 of at most `maxBytes` bytes (s33 block types, memory64 limits). */
  skipLeb(maxBytes: number): void {
    const start = this.pos;
    for (let i = 0; i < maxBytes; i++) if ((this.u8() & 0x80) === 0) return;
    throw new WasmFormatError(`LEB128 longer than ${maxBytes} bytes at offset ${start}`);
  }

  skip(count: number): void {
    if (this.pos + count > this.end) throw new WasmFormatError(`unexpected end of data at offset ${this.pos}`);
    this.pos += count;
  }

  /** Skips a length-prefixed name or byte vector and returns its range. */
  vector(): Range {
    const length = this.u32();
    const start = this.pos;
    this.skip(length);
    return { start, end: this.pos };
  }
}

/** One section: the whole of it spans [start, end), its content [contentStart, end). */
export interface Section extends Range {
  id: number;
  contentStart: number;
}

/** Splits a module into its sections, checking the header. */
export function readSections(bytes: Uint8Array): Section[] {
  const magic = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (bytes.length < 8 || magic.some((b, i) => bytes[i] !== b)) {
    throw new WasmFormatError("not a WebAssembly version 1 module");
  }
  const r = new ByteReader(bytes, 8);
  const sections: Section[] = [];
  while (!r.atEnd) {
    const start = r.pos;
    const id = r.u8();
    const size = r.u32();
    const contentStart = r.pos;
    r.skip(size);
    sections.push({ id, start, contentStart, end: r.pos });
  }
  return sections;
}

/** A reader over a section's content. */
export function sectionReader(bytes: Uint8Array, section: Section): ByteReader {
  return new ByteReader(bytes, section.contentStart, section.end);
}

/** What the import section declares that relocation cares about. */
export interface Imports {
  functions: number;
  globals: number;
  memories: number;
  /** Where each imported memory's minimum size is encoded. */
  memoryMinimums: Range[];
}

/** Reads the import section, counting imports by kind. */
export function readImports(bytes: Uint8Array, section: Section): Imports {
  const r = sectionReader(bytes, section);
  const imports: Imports = { functions: 0, globals: 0, memories: 0, memoryMinimums: [] };
  for (let count = r.u32(); count > 0; count--) {
    r.vector();
    r.vector();
    const kind = r.u8();
    if (kind === 0) {
      r.u32();
      imports.functions++;
    } else if (kind === 1) {
      r.u8();
      readLimits(r);
    } else if (kind === 2) {
      imports.memoryMinimums.push(readLimits(r));
      imports.memories++;
    } else if (kind === 3) {
      r.skip(2);
      imports.globals++;
    } else if (kind === 4) {
      r.u8();
      r.u32();
    } else {
      throw new WasmFormatError(`unknown import kind ${kind} at offset ${r.pos - 1}`);
    }
  }
  return imports;
}

/** The imported functions of an import section, as module and name, in function index order. */
export function readFunctionImports(bytes: Uint8Array, section: Section): { module: string; name: string }[] {
  const r = sectionReader(bytes, section);
  const text = (range: Range) => new TextDecoder().decode(bytes.subarray(range.start, range.end));
  const functions: { module: string; name: string }[] = [];
  for (let count = r.u32(); count > 0; count--) {
    const module = text(r.vector());
    const name = text(r.vector());
    const kind = r.u8();
    if (kind === 0) { r.u32(); functions.push({ module, name }); }
    else if (kind === 1) { r.u8(); readLimits(r); }
    else if (kind === 2) readLimits(r);
    else if (kind === 3) r.skip(2);
    else if (kind === 4) { r.u8(); r.u32(); }
    else throw new WasmFormatError(`unknown import kind ${kind} at offset ${r.pos - 1}`);
  }
  return functions;
}

/** Reads the memory section; returns where each memory's minimum size is encoded. */
export function readMemories(bytes: Uint8Array, section: Section): Range[] {
  const r = sectionReader(bytes, section);
  const minimums: Range[] = [];
  for (let count = r.u32(); count > 0; count--) minimums.push(readLimits(r));
  return minimums;
}

/** Reads table/memory limits and returns the range of the minimum. */
function readLimits(r: ByteReader): Range {
  const flags = r.u8();
  const start = r.pos;
  r.skipLeb(10); // memory64 limits are u64
  const min = { start, end: r.pos };
  if (flags & 1) r.skipLeb(10);
  return min;
}

/** A function body: locals declarations span [start, codeStart), instructions [codeStart, end). */
export interface FunctionBody extends Range {
  codeStart: number;
}

/** Reads the code section into function bodies. */
export function readFunctionBodies(bytes: Uint8Array, section: Section): FunctionBody[] {
  const r = sectionReader(bytes, section);
  const bodies: FunctionBody[] = [];
  for (let count = r.u32(); count > 0; count--) {
    const { start, end } = r.vector();
    const body = new ByteReader(bytes, start, end);
    for (let groups = body.u32(); groups > 0; groups--) {
      body.u32();
      body.u8(); // value type (single byte without the GC proposal)
    }
    bodies.push({ start, codeStart: body.pos, end });
  }
  return bodies;
}

/** A global: its type spans [start, initStart), its initialiser expression follows. */
export interface GlobalEntry {
  start: number;
  init: Instruction[];
}

/** Reads the global section. */
export function readGlobals(bytes: Uint8Array, section: Section): GlobalEntry[] {
  const r = sectionReader(bytes, section);
  const globals: GlobalEntry[] = [];
  for (let count = r.u32(); count > 0; count--) {
    const start = r.pos;
    r.skip(2); // value type and mutability
    globals.push({ start, init: decodeConstExpr(r) });
  }
  return globals;
}

/** A data segment; `offset` is the decoded offset expression of an active segment. */
export interface DataSegment {
  passive: boolean;
  memory: number;
  offset: Instruction[];
  /** Where the segment's bytes are. */
  data: Range;
}

/** Reads the data section. */
export function readDataSegments(bytes: Uint8Array, section: Section): DataSegment[] {
  const r = sectionReader(bytes, section);
  const segments: DataSegment[] = [];
  for (let count = r.u32(); count > 0; count--) {
    const flags = r.u32();
    if (flags > 2) throw new WasmFormatError(`unknown data segment flags ${flags} at offset ${r.pos - 1}`);
    const passive = flags === 1;
    const memory = flags === 2 ? r.u32() : 0;
    const offset = passive ? [] : decodeConstExpr(r);
    segments.push({ passive, memory, offset, data: r.vector() });
  }
  return segments;
}

const OP_END = 0x0b;
/** The i32.const opcode. */
export const OP_I32_CONST = 0x41;

/**
 * An immediate that may hold a static-data address: an i32.const value, a memarg offset, or an i64.const of a value
 * an address can have (a C++ kernel's static widened to 64 bits and folded: `printf("%u", (unsigned)&table)`).
 */
export interface AddressField extends Range {
  kind: "i32.const" | "memarg offset" | "i64.const";
  /** The value as an unsigned 32-bit number. */
  value: number;
}

/** A decoded instruction; `prefix` is 0 for single-byte opcodes. */
export interface Instruction extends Range {
  prefix: number;
  code: number;
  fields: AddressField[];
}

/** The opcode of an instruction as text, e.g. "0x41" or "0xfd 11". */
export function opcodeName(ins: Pick<Instruction, "prefix" | "code">): string {
  const hex = (n: number) => `0x${n.toString(16).padStart(2, "0")}`;
  return ins.prefix === 0 ? hex(ins.code) : `${hex(ins.prefix)} ${ins.code}`;
}

/** Decodes the instructions of a function body. */
export function decodeBody(bytes: Uint8Array, body: FunctionBody): Instruction[] {
  const r = new ByteReader(bytes, body.codeStart, body.end);
  const instructions: Instruction[] = [];
  while (!r.atEnd) instructions.push(decodeInstruction(r));
  return instructions;
}

/** Decodes a constant expression up to and including its `end`. */
export function decodeConstExpr(r: ByteReader): Instruction[] {
  const instructions: Instruction[] = [];
  for (;;) {
    const ins = decodeInstruction(r);
    instructions.push(ins);
    if (ins.prefix === 0 && ins.code === OP_END) return instructions;
  }
}

/** Decodes one instruction, recording the immediates that may be addresses. */
export function decodeInstruction(r: ByteReader): Instruction {
  const start = r.pos;
  const first = r.u8();
  const prefixed = PREFIXED[first];
  const ins: Instruction = { start, end: start, prefix: prefixed ? first : 0, code: prefixed ? r.u32() : first, fields: [] };
  if (!(prefixed ?? singleByte)(r, ins)) {
    throw new WasmFormatError(`unknown opcode ${opcodeName(ins)} at offset ${start}`);
  }
  ins.end = r.pos;
  return ins;
}

/** Decodes the immediates of a single-byte opcode; false if the opcode is unknown. */
function singleByte(r: ByteReader, ins: Instruction): boolean {
  const op = ins.code;
  if (NO_IMMEDIATE.has(op) || (op >= 0x45 && op <= 0xc4)) return true;
  if (op >= 0x28 && op <= 0x3e) return memarg(r, ins);
  switch (op) {
    case 0x02: case 0x03: case 0x04: // block type: empty, value type or type index, all an s33
      r.skipLeb(5);
      return true;
    case 0x0c: case 0x0d: case 0x10: case 0x20: case 0x21: case 0x22: case 0x23: case 0x24:
    case 0x25: case 0x26: case 0x3f: case 0x40: case 0xd2:
      r.u32();
      return true;
    case 0x0e: // br_table: n labels, then the default label
      for (let n = r.u32(); n >= 0; n--) r.u32();
      return true;
    case 0x11: // call_indirect type table
      r.u32();
      r.u32();
      return true;
    case 0x1c: // typed select: vector of value types
      r.skip(r.u32());
      return true;
    case OP_I32_CONST: {
      const start = r.pos;
      const value = r.s32() >>> 0;
      ins.fields.push({ kind: "i32.const", value, start, end: r.pos });
      return true;
    }
    case 0x42: {
      const start = r.pos;
      const value = r.s64();
      if (value >= 0n && value <= 0xffffffffn) ins.fields.push({ kind: "i64.const", value: Number(value), start, end: r.pos });
      return true;
    }
    case 0x43:
      r.skip(4);
      return true;
    case 0x44:
      r.skip(8);
      return true;
    case 0xd0: // ref.null heap type
      r.u8();
      return true;
  }
  return false;
}

// unreachable nop else end return drop select ref.is_null
const NO_IMMEDIATE = new Set([0x00, 0x01, 0x05, OP_END, 0x0f, 0x1a, 0x1b, 0xd1]);

/** Decodes a memarg, recording its offset; multi-memory memargs are not supported. */
function memarg(r: ByteReader, ins: Instruction): true {
  const align = r.u32();
  // Bit 6 announces a memory index; rejecting it also keeps the byte before an offset distinct from i32.const.
  if (align >= 0x40) throw new WasmFormatError(`memarg with a memory index (multi-memory) at offset ${ins.start}`);
  const start = r.pos;
  const value = r.u32();
  ins.fields.push({ kind: "memarg offset", value, start, end: r.pos });
  return true;
}

type PrefixDecoder = (r: ByteReader, ins: Instruction) => boolean;

const PREFIXED: Partial<Record<number, PrefixDecoder>> = {
  0xfc: miscellaneous,
  0xfd: simd,
  0xfe: atomic,
};

/** 0xFC: saturating truncation, bulk memory and table operations. */
function miscellaneous(r: ByteReader, ins: Instruction): boolean {
  const op = ins.code;
  if (op <= 7) return true;
  // memory.init/memory.copy/table.init/table.copy take two indices, the rest one
  const indices = [8, 10, 12, 14].includes(op) ? 2 : op <= 17 ? 1 : 0;
  for (let i = 0; i < indices; i++) r.u32();
  return indices > 0;
}

/** 0xFD: SIMD. */
function simd(r: ByteReader, ins: Instruction): boolean {
  const op = ins.code;
  if (op <= 11 || op === 92 || op === 93) return memarg(r, ins); // v128 loads/stores, load32/64_zero
  if (op >= 84 && op <= 91) {
    memarg(r, ins); // load/store_lane: memarg then lane index
    r.u8();
    return true;
  }
  if (op === 12 || op === 13) r.skip(16); // v128.const, i8x16.shuffle
  else if (op >= 21 && op <= 34) r.u8(); // extract/replace_lane
  return op <= 0xff;
}

/** 0xFE: threads and atomics. */
function atomic(r: ByteReader, ins: Instruction): boolean {
  const op = ins.code;
  if (op === 3) {
    r.u8(); // atomic.fence: reserved zero byte
    return true;
  }
  if (op <= 2 || (op >= 0x10 && op <= 0x4e)) return memarg(r, ins);
  return false;
}
