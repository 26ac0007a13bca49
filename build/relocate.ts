/**
 * Position-independent AssemblyScript modules: asc can only place static data at a fixed `--memoryBase`, so a
 * library is built at two bases and every immediate or data word that moves by exactly the base delta is an address
 * (i32.const values, memarg offsets, and i64.const values below 2^32: a C++ kernel's address widened to 64 bits).
 *
 * Relocation keeps every offset from the base, and asc aligns static data to absolute addresses (16 bytes, or the
 * alignment asked of `memory.data`), so a load-time base must be aligned like base A for that alignment to hold.
 */
import {
  ByteReader,
  OP_I32_CONST,
  SectionId,
  WasmFormatError,
  decodeBody,
  opcodeName,
  readDataSegments,
  readFunctionBodies,
  readGlobals,
  readImports,
  readMemories,
  readSections,
  sectionName,
  type Imports,
  type Instruction,
  type Range,
  type Section,
} from "./wasm-reader.js";

/** A wasm module whose static-data addresses can be moved to any base at load time. */
export interface RelocatableModule {
  /** The module built at base A, with every address immediate stored relative to base A (value - A) as a 5-byte padded LEB128, and with its data segments removed (no data section, no data-count section). */
  wasm: Uint8Array;
  /** Byte offsets in `wasm` of each padded 5-byte LEB holding a relative address (i32.const and i64.const immediates in code and in global initialisers, and load/store memarg offsets). */
  codeRelocs: Uint32Array;
  /** The static image: bytes of all active data segments laid out relative to base A (index 0 = address A), gaps zero-filled; 4-byte words that hold addresses are stored relative (value - A). */
  data: Uint8Array;
  /** Byte offsets in `data` of the 4-byte little-endian words holding relative addresses. */
  dataRelocs: Uint32Array;
  /**
   * Anchors mapping byte offsets in `wasm` back to build A (which asc's source map refers to): pairs
   * (newOffset, oldOffset), sorted by newOffset, one wherever the shift between the two changes (padded LEBs,
   * re-encoded size fields, dropped sections). See toOriginalOffset.
   */
  offsetMap: Uint32Array;
}

/** Two builds cannot be turned into a relocatable module, or a relocation does not fit. */
export class RelocationError extends Error {
  readonly code = "E_RELOCATION";
  override readonly name = "RelocationError";
}

/** Diff two builds of the same sources at bases a and b and make a relocatable module. Throws RelocationError when the builds differ other than by addresses (say where: section, function index, instruction offset), or when a data segment's offset is not an i32.const, or the module uses memory.init/data.drop (passive segments), or the module has more than one memory. */
export function makeRelocatable(buildA: Uint8Array, buildB: Uint8Array, baseA: number, baseB: number): RelocatableModule {
  checkAddress("baseA", baseA);
  checkAddress("baseB", baseB);
  if (baseA === baseB) throw new RelocationError("the two builds must use different memory bases");
  const bases: Bases = { a: baseA, b: baseB, delta: (baseB - baseA) >>> 0 };
  const [a, b] = [parseModule("build A", buildA), parseModule("build B", buildB)];
  return withContext("", () => diffModules(a, b, bases));
}

/**
 * The offset in build A of the byte at offset x of a RelocatableModule's wasm (or of the relocated code, which has
 * the same layout): x - newAnchor + oldAnchor for the last anchor with newAnchor <= x. Exact for every byte copied
 * from build A (instruction starts included); bytes of a re-encoded field map into the original field.
 */
export function toOriginalOffset(offsetMap: Uint32Array, x: number): number {
  let [lo, hi] = [0, offsetMap.length >>> 1]; // find the first anchor with newAnchor > x
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsetMap[2 * mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? x : x - offsetMap[2 * lo - 2] + offsetMap[2 * lo - 1];
}

/** A copy of m.wasm with every code relocation set to (relative + base): ready to compile. */
export function relocateCode(m: Pick<RelocatableModule, "wasm" | "codeRelocs">, base: number): Uint8Array<ArrayBuffer> {
  checkAddress("base", base);
  const wasm = m.wasm.slice();
  for (const at of m.codeRelocs) {
    // i32.const immediates are signed LEBs, memarg offsets unsigned; an offset is preceded by its alignment (< 0x40).
    // An i64.const address is written unsigned: below 2^32, its 5-byte LEB has the sign bit clear, a positive s64.
    const signed = wasm[at - 1] === OP_I32_CONST;
    writePaddedLeb(wasm, at, addBase(readPaddedLeb(wasm, at), base), signed);
  }
  return wasm;
}

/** A copy of m.data with every data relocation set to (relative + base): the bytes to write at `base` in memory. */
export function relocateData(m: Pick<RelocatableModule, "data" | "dataRelocs">, base: number): Uint8Array<ArrayBuffer> {
  checkAddress("base", base);
  const data = m.data.slice();
  const view = dataView(data);
  for (const at of m.dataRelocs) view.setUint32(at, addBase(view.getUint32(at, true), base), true);
  return data;
}

const BLOB_MAGIC = 0x4c52_5047; // "GPRL" read as a little-endian u32
const BLOB_VERSION = 2;
const BLOB_HEADER_BYTES = 28;

/** Serialises a RelocatableModule into one binary blob (for a .wasm sidecar file): simple header + the five arrays. */
export function encodeRelocatable(m: RelocatableModule): Uint8Array {
  // Header: magic, version, then the lengths of codeRelocs, dataRelocs, offsetMap, wasm and data; the arrays follow
  // in that order, u32 arrays first so that they stay 4-byte aligned.
  const words = [m.codeRelocs, m.dataRelocs, m.offsetMap];
  const wordBytes = 4 * words.reduce((sum, array) => sum + array.length, 0);
  const blob = new Uint8Array(BLOB_HEADER_BYTES + wordBytes + m.wasm.length + m.data.length);
  const view = dataView(blob);
  const header = [BLOB_MAGIC, BLOB_VERSION, ...words.map((array) => array.length), m.wasm.length, m.data.length];
  header.forEach((value, i) => view.setUint32(4 * i, value, true));
  let at = BLOB_HEADER_BYTES;
  for (const array of words) {
    for (const word of array) {
      view.setUint32(at, word, true);
      at += 4;
    }
  }
  blob.set(m.wasm, at);
  blob.set(m.data, at + m.wasm.length);
  return blob;
}

/** Reads back a blob written by encodeRelocatable. */
export function decodeRelocatable(bytes: Uint8Array): RelocatableModule {
  const view = dataView(bytes);
  if (bytes.length < BLOB_HEADER_BYTES || view.getUint32(0, true) !== BLOB_MAGIC) {
    throw new RelocationError("not a relocatable module blob");
  }
  const [version, codeCount, dataCount, mapLength, wasmLength, dataLength] = [1, 2, 3, 4, 5, 6].map((i) =>
    view.getUint32(4 * i, true),
  );
  if (version !== BLOB_VERSION) throw new RelocationError(`unsupported relocatable module blob version ${version}`);
  const wasmStart = BLOB_HEADER_BYTES + 4 * (codeCount + dataCount + mapLength);
  if (bytes.length !== wasmStart + wasmLength + dataLength) {
    throw new RelocationError("relocatable module blob has the wrong length");
  }
  const relocs = (start: number, count: number) =>
    Uint32Array.from({ length: count }, (_, i) => view.getUint32(start + 4 * i, true));
  return {
    codeRelocs: relocs(BLOB_HEADER_BYTES, codeCount),
    dataRelocs: relocs(BLOB_HEADER_BYTES + 4 * codeCount, dataCount),
    offsetMap: relocs(BLOB_HEADER_BYTES + 4 * (codeCount + dataCount), mapLength),
    wasm: bytes.slice(wasmStart, wasmStart + wasmLength),
    data: bytes.slice(wasmStart + wasmLength),
  };
}

/** The two bases and their difference modulo 2^32. */
interface Bases {
  a: number;
  b: number;
  delta: number;
}

interface ParsedModule {
  bytes: Uint8Array;
  sections: Section[];
  imports: Imports;
}

/**
 * A section of the output module made from `origin`, a section of build A; `relocs` are offsets in `content`,
 * `anchors` pairs (offset in `content`, offset in build A) as in RelocatableModule.offsetMap.
 */
interface OutputSection {
  id: number;
  origin: Section;
  content: Uint8Array;
  relocs: number[];
  anchors: number[];
}

/** An address immediate to re-encode as a padded LEB holding `relative`. */
interface Patch extends Range {
  relative: number;
  signed: boolean;
}

function parseModule(name: string, bytes: Uint8Array): ParsedModule {
  return withContext(name, () => {
    const sections = readSections(bytes);
    const importSection = sections.find((s) => s.id === SectionId.import);
    const imports = importSection
      ? readImports(bytes, importSection)
      : { functions: 0, globals: 0, memories: 0, memoryMinimums: [] };
    return { bytes, sections, imports };
  });
}

function diffModules(a: ParsedModule, b: ParsedModule, bases: Bases): RelocatableModule {
  const ids = (m: ParsedModule) => m.sections.map((s) => sectionName(s.id)).join(", ");
  if (ids(a) !== ids(b)) throw new RelocationError(`the builds have different sections: [${ids(a)}] vs [${ids(b)}]`);
  checkSingleMemory(a);
  const output: OutputSection[] = [];
  let data: StaticImage = { image: new Uint8Array(0), relocs: [] };
  a.sections.forEach((sectionA, i) => {
    const sectionB = b.sections[i];
    switch (sectionA.id) {
      case SectionId.code:
        output.push(diffCode(a, b, sectionA, sectionB, bases));
        break;
      case SectionId.global:
        output.push(diffGlobals(a, b, sectionA, sectionB, bases));
        break;
      case SectionId.data:
        data = diffImages(staticImage(a, sectionA, bases.a), staticImage(b, sectionB, bases.b), bases);
        break;
      case SectionId.dataCount:
        break; // only meaningful alongside the data section, which is dropped
      default:
        output.push(diffVerbatim(a, b, sectionA, sectionB));
    }
  });
  const { wasm, relocs, anchors } = assemble(a.bytes.subarray(0, 8), output);
  return {
    wasm,
    codeRelocs: Uint32Array.from(relocs),
    data: data.image,
    dataRelocs: Uint32Array.from(data.relocs),
    offsetMap: compactAnchors(anchors),
  };
}

function checkSingleMemory(m: ParsedModule): void {
  const memorySection = m.sections.find((s) => s.id === SectionId.memory);
  const defined = memorySection ? readMemories(m.bytes, memorySection).length : 0;
  if (m.imports.memories + defined > 1) throw new RelocationError("the module has more than one memory");
}

/**
 * A section copied from build A after checking that build B has the same content. Memory minimums are exempt:
 * asc raises them to cover the static data, so they legitimately depend on the base.
 */
function diffVerbatim(a: ParsedModule, b: ParsedModule, sectionA: Section, sectionB: Section): OutputSection {
  if (!equalBytes(withoutMemoryMinimums(a, sectionA), withoutMemoryMinimums(b, sectionB))) {
    throw new RelocationError(`${sectionName(sectionA.id)} section differs between the builds (offset ${sectionA.start})`);
  }
  const content = a.bytes.subarray(sectionA.contentStart, sectionA.end);
  return { id: sectionA.id, origin: sectionA, content, relocs: [], anchors: [0, sectionA.contentStart] };
}

function withoutMemoryMinimums(m: ParsedModule, section: Section): Uint8Array {
  const minimums =
    section.id === SectionId.import ? m.imports.memoryMinimums
    : section.id === SectionId.memory ? readMemories(m.bytes, section)
    : [];
  const out = new ByteWriter();
  let from = section.contentStart;
  for (const min of minimums) {
    out.bytes(m.bytes.subarray(from, min.start));
    from = min.end;
  }
  out.bytes(m.bytes.subarray(from, section.end));
  return out.finish();
}

function diffCode(a: ParsedModule, b: ParsedModule, sectionA: Section, sectionB: Section, bases: Bases): OutputSection {
  const bodiesA = readFunctionBodies(a.bytes, sectionA);
  const bodiesB = readFunctionBodies(b.bytes, sectionB);
  if (bodiesA.length !== bodiesB.length) {
    throw new RelocationError(`code section: ${bodiesA.length} vs ${bodiesB.length} function bodies`);
  }
  const out = new ByteWriter();
  const relocs: number[] = [];
  const count = new ByteReader(a.bytes, sectionA.contentStart, sectionA.end);
  count.u32();
  out.anchor(sectionA.contentStart);
  out.u32(bodiesA.length);
  bodiesA.forEach((bodyA, i) => {
    const bodyB = bodiesB[i];
    const where = `code section, function ${a.imports.functions + i}`;
    const localsA = a.bytes.subarray(bodyA.start, bodyA.codeStart);
    if (!equalBytes(localsA, b.bytes.subarray(bodyB.start, bodyB.codeStart))) {
      throw new RelocationError(`${where}: local declarations differ`);
    }
    const patches = withContext(where, () =>
      diffInstructions(a.bytes, decodeBody(a.bytes, bodyA), b.bytes, decodeBody(b.bytes, bodyB), bases, where),
    );
    const body = new ByteWriter();
    const bodyRelocs = body.splice(a.bytes, bodyA, patches);
    out.anchor(i === 0 ? count.pos : bodiesA[i - 1].end); // where build A has this body's size
    out.u32(body.length);
    for (const at of bodyRelocs) relocs.push(at + out.length);
    out.append(body);
  });
  return { id: SectionId.code, origin: sectionA, content: out.finish(), relocs, anchors: out.anchors };
}

function diffGlobals(a: ParsedModule, b: ParsedModule, sectionA: Section, sectionB: Section, bases: Bases): OutputSection {
  const globalsA = readGlobals(a.bytes, sectionA);
  const globalsB = readGlobals(b.bytes, sectionB);
  if (globalsA.length !== globalsB.length) {
    throw new RelocationError(`global section: ${globalsA.length} vs ${globalsB.length} globals`);
  }
  const patches = globalsA.flatMap((globalA, i) => {
    const globalB = globalsB[i];
    const where = `global section, global ${a.imports.globals + i}`;
    if (!equalBytes(a.bytes.subarray(globalA.start, globalA.start + 2), b.bytes.subarray(globalB.start, globalB.start + 2))) {
      throw new RelocationError(`${where}: types differ`);
    }
    return diffInstructions(a.bytes, globalA.init, b.bytes, globalB.init, bases, where);
  });
  // The global section has no nested sizes, so it is the original content with the patches applied.
  const out = new ByteWriter();
  const relocs = out.splice(a.bytes, { start: sectionA.contentStart, end: sectionA.end }, patches);
  return { id: SectionId.global, origin: sectionA, content: out.finish(), relocs, anchors: out.anchors };
}

/** Compares two instruction sequences and returns the address immediates of build A as patches. */
function diffInstructions(
  bytesA: Uint8Array, insA: Instruction[], bytesB: Uint8Array, insB: Instruction[], bases: Bases, where: string,
): Patch[] {
  const patches: Patch[] = [];
  insA.forEach((a, k) => {
    const at = () => `${where}, instruction ${opcodeName(a)} at offset ${a.start}`;
    const b = insB[k];
    if (!b || !sameShape(bytesA, a, bytesB, b)) {
      throw new RelocationError(`${at()}: the builds differ (build B has ${b ? `${opcodeName(b)} at offset ${b.start}` : "no more instructions"})`);
    }
    if (a.prefix === 0xfc && (a.code === 8 || a.code === 9)) {
      throw new RelocationError(`${at()}: memory.init/data.drop (passive data segments) cannot be relocated`);
    }
    a.fields.forEach((field, j) => {
      const relative = relativeAddress(field.value, b.fields[j].value, bases, () => `${at()}, ${field.kind}`);
      if (relative !== null) patches.push({ start: field.start, end: field.end, relative, signed: field.kind === "i32.const" });
    });
  });
  if (insB.length > insA.length) throw new RelocationError(`${where}: build B has more instructions`);
  return patches;
}

/** Whether two instructions have the same opcode and the same bytes outside their address fields. */
function sameShape(bytesA: Uint8Array, a: Instruction, bytesB: Uint8Array, b: Instruction): boolean {
  if (a.fields.length !== b.fields.length) return false;
  const fixedParts = (bytes: Uint8Array, ins: Instruction) => {
    const bounds = [ins.start, ...ins.fields.flatMap((f) => [f.start, f.end]), ins.end];
    return Array.from({ length: bounds.length / 2 }, (_, i) => bytes.subarray(bounds[2 * i], bounds[2 * i + 1]));
  };
  const partsB = fixedParts(bytesB, b);
  return fixedParts(bytesA, a).every((part, i) => equalBytes(part, partsB[i]));
}

/** Classifies a pair of values: null if equal, the address relative to base A if moved by the delta. */
function relativeAddress(valueA: number, valueB: number, bases: Bases, where: () => string): number | null {
  if (valueA === valueB) return null;
  if (((valueB - valueA) >>> 0) !== bases.delta) {
    throw new RelocationError(
      `${where()}: ${valueA} (build A) vs ${valueB} (build B) differ by ${valueB - valueA}, not by the base delta ${bases.b - bases.a}`,
    );
  }
  if (valueA < bases.a) throw new RelocationError(`${where()}: address ${valueA} lies below base A (${bases.a})`);
  return valueA - bases.a;
}

/** The static data of a build, laid out from its base, and (once diffed) the offsets of its address words. */
interface StaticImage {
  image: Uint8Array;
  relocs: number[];
}

/** Lays out the active data segments relative to `base`. */
function staticImage(m: ParsedModule, section: Section, base: number): Uint8Array {
  const placed = readDataSegments(m.bytes, section).map((segment, i) => {
    const where = `data section, segment ${i}`;
    if (segment.passive) throw new RelocationError(`${where}: passive data segments cannot be relocated`);
    if (segment.memory !== 0) throw new RelocationError(`${where}: the module has more than one memory`);
    const [offset] = segment.offset; // the expression ends with `end`, so this is its only instruction
    if (segment.offset.length !== 2 || offset.prefix !== 0 || offset.code !== OP_I32_CONST) {
      throw new RelocationError(`${where}: the offset is not an i32.const`);
    }
    const address = offset.fields[0].value;
    if (address < base) throw new RelocationError(`${where}: address ${address} lies below the base ${base}`);
    return { at: address - base, bytes: m.bytes.subarray(segment.data.start, segment.data.end) };
  });
  const image = new Uint8Array(placed.reduce((end, p) => Math.max(end, p.at + p.bytes.length), 0));
  for (const p of placed) image.set(p.bytes, p.at);
  return image;
}

/** Compares the two images word by word; words that moved by the delta become relative addresses. */
function diffImages(imageA: Uint8Array, imageB: Uint8Array, bases: Bases): StaticImage {
  const length = Math.max(imageA.length, imageB.length);
  const image = new Uint8Array(length);
  image.set(imageA);
  const other = new Uint8Array(length);
  other.set(imageB);
  const [viewA, viewB] = [dataView(image), dataView(other)];
  const relocs: number[] = [];
  let at = 0;
  for (; at + 4 <= length; at += 4) {
    const where = () => `data section, word at address ${bases.a + at} (image offset ${at})`;
    const relative = relativeAddress(viewA.getUint32(at, true), viewB.getUint32(at, true), bases, where);
    if (relative === null) continue;
    viewA.setUint32(at, relative, true);
    relocs.push(at);
  }
  if (!equalBytes(image.subarray(at), other.subarray(at))) {
    throw new RelocationError(`data section: the trailing bytes at image offset ${at} differ between the builds`);
  }
  return { image, relocs };
}

/** Concatenates the header and sections into a module, returning the final offsets of the relocations and anchors. */
function assemble(header: Uint8Array, sections: OutputSection[]): { wasm: Uint8Array; relocs: number[]; anchors: number[] } {
  const out = new ByteWriter();
  const relocs: number[] = [];
  out.copy(header, { start: 0, end: header.length });
  for (const section of sections) {
    out.anchor(section.origin.start);
    out.u8(section.id);
    out.anchor(section.origin.start + 1); // build A's size field
    out.u32(section.content.length);
    for (const at of section.relocs) relocs.push(at + out.length);
    for (let i = 0; i < section.anchors.length; i += 2) out.anchors.push(section.anchors[i] + out.length, section.anchors[i + 1]);
    out.bytes(section.content);
  }
  return { wasm: out.finish(), relocs, anchors: out.anchors };
}

/** Keeps the anchors that change the shift (offset - original offset), the last of several at one offset. */
function compactAnchors(anchors: number[]): Uint32Array {
  const kept: number[] = [];
  for (let i = 0; i < anchors.length; i += 2) {
    const [at, original] = [anchors[i], anchors[i + 1]];
    if (kept.length > 0 && kept[kept.length - 2] === at) kept.length -= 2;
    if (kept.length > 0 && kept[kept.length - 2] - kept[kept.length - 1] === at - original) continue;
    kept.push(at, original);
  }
  return Uint32Array.from(kept);
}

/** Growable byte buffer with LEB128 encoding, recording where its bytes come from in build A. */
class ByteWriter {
  private buffer = new Uint8Array(256);
  length = 0;
  /** Pairs (offset in this buffer, offset in build A): from each on, the bytes are build A's from that offset. */
  readonly anchors: number[] = [];

  /** Declares that the bytes written next correspond to build A's bytes from `original` on. */
  anchor(original: number): void {
    this.anchors.push(this.length, original);
  }

  /** Copies `range` of build A. */
  copy(bytes: Uint8Array, range: Range): void {
    this.anchor(range.start);
    this.bytes(bytes.subarray(range.start, range.end));
  }

  /** Appends another writer's bytes and anchors. */
  append(other: ByteWriter): void {
    for (let i = 0; i < other.anchors.length; i += 2) this.anchors.push(other.anchors[i] + this.length, other.anchors[i + 1]);
    this.bytes(other.finish());
  }

  u8(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  u32(value: number): void {
    do {
      const byte = value & 0x7f;
      value >>>= 7;
      this.u8(value === 0 ? byte : byte | 0x80);
    } while (value !== 0);
  }

  bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Copies `range` of `bytes`, replacing the patched immediates with padded LEBs; returns where those now are. */
  splice(bytes: Uint8Array, range: Range, patches: Patch[]): number[] {
    const at: number[] = [];
    let from = range.start;
    for (const patch of patches) {
      this.copy(bytes, { start: from, end: patch.start });
      at.push(this.length);
      this.anchor(patch.start);
      this.reserve(PADDED_LEB_BYTES);
      writePaddedLeb(this.buffer, this.length, patch.relative, patch.signed);
      this.length += PADDED_LEB_BYTES;
      from = patch.end;
    }
    this.copy(bytes, { start: from, end: range.end });
    return at;
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  private reserve(count: number): void {
    if (this.length + count <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(2 * this.buffer.length, this.length + count));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}

const PADDED_LEB_BYTES = 5;

/** Writes a u32 as a 5-byte LEB128; `signed` encodes it as the i32 with the same bits. */
function writePaddedLeb(bytes: Uint8Array, at: number, value: number, signed: boolean): void {
  for (let i = 0; i < 4; i++) bytes[at + i] = ((value >>> (7 * i)) & 0x7f) | 0x80;
  // The last byte holds bits 28-31; a signed LEB sign-extends bit 31 into bits 4-6.
  bytes[at + 4] = (value >>> 28) | (signed && value >= 0x8000_0000 ? 0x70 : 0);
}

/** Reads a 5-byte LEB128 as the u32 it encodes, whether written signed or unsigned. */
function readPaddedLeb(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let i = 0; i < 4; i++) value |= (bytes[at + i] & 0x7f) << (7 * i);
  return (value | (bytes[at + 4] << 28)) >>> 0;
}

function addBase(relative: number, base: number): number {
  const address = relative + base;
  if (address > 0xffff_ffff) throw new RelocationError(`address ${relative} + base ${base} does not fit in 32 bits`);
  return address;
}

function checkAddress(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new RelocationError(`${name} must be an integer in [0, 2^32), got ${value}`);
  }
}

/** Runs `read`, turning format errors into RelocationErrors prefixed with `where`. */
function withContext<T>(where: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof WasmFormatError)) throw error;
    throw new RelocationError(where ? `${where}: ${error.message}` : error.message, { cause: error });
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function dataView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
