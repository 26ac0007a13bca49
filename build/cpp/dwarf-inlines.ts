// Where clang inlined a function, from the DWARF 4 .debug_info of a linked wasm
// module: each DW_TAG_inlined_subroutine's code ranges and its call site (the
// file, line and column of the call it replaced). -gline-tables-only keeps
// these: the line table names the inlined function's own lines, and this says
// which statement called it (dwarf-lines.ts uses it to give the code inlined
// from gpsimd's headers the line of the kernel statement that called them).
import { ByteReader, SectionId, readSections, WasmFormatError } from "../wasm-reader.js";
import { customName, u16, u32le, u64le, uleb, sleb } from "./dwarf-read.js";

/** An inlined call: the module byte ranges of its code, its call site, and how many inlined calls enclose it. */
export interface InlinedCall {
  ranges: Array<[start: number, end: number]>;
  file: string;
  line: number;
  column: number;
  depth: number;
}

const TAG_COMPILE_UNIT = 0x11, TAG_INLINED_SUBROUTINE = 0x1d;
const AT_STMT_LIST = 0x10, AT_LOW_PC = 0x11, AT_HIGH_PC = 0x12, AT_RANGES = 0x55;
const AT_CALL_COLUMN = 0x57, AT_CALL_FILE = 0x58, AT_CALL_LINE = 0x59;
const FORM_ADDR = 0x01, FORM_INDIRECT = 0x16;

/**
 * The inlined calls of every compile unit. `filesAt` gives the file table of the line program at a .debug_line
 * offset (a unit's DW_AT_stmt_list), which DW_AT_call_file indexes.
 */
export function readInlinedCalls(wasm: Uint8Array, filesAt: (lineOffset: number) => string[]): InlinedCall[] {
  const sections = readSections(wasm);
  const custom = (name: string) => {
    const s = sections.find((x) => x.id === SectionId.custom && customName(wasm, x.contentStart).name === name);
    return s ? { start: customName(wasm, s.contentStart).end, end: s.end } : null;
  };
  const code = sections.find((s) => s.id === SectionId.code);
  const info = custom(".debug_info"), abbrev = custom(".debug_abbrev"), ranges = custom(".debug_ranges");
  if (!code || !info || !abbrev) return [];
  const calls: InlinedCall[] = [];
  const r = new ByteReader(wasm, info.start, info.end);
  while (!r.atEnd) {
    const length = u32le(r);
    const unitEnd = r.pos + length;
    const version = u16(r);
    if (version < 2 || version > 4) throw new WasmFormatError(`.debug_info version ${version}: expected DWARF 4 (-gdwarf-4)`);
    const abbrevs = readAbbrevs(wasm, abbrev.start + u32le(r), abbrev.end);
    const addressSize = r.u8();
    let files: string[] = [];
    let unitBase = 0;
    let depth = 0; // nesting of the DIE being read; inlined calls record how many inlined calls enclose them
    const open: boolean[] = []; // per open DIE with children: whether it is an inlined call
    while (r.pos < unitEnd) {
      const abbrevCode = uleb(r);
      if (abbrevCode === 0) { // end of a DIE's children
        if (open.pop()) depth--;
        continue;
      }
      const a = abbrevs.get(abbrevCode);
      if (!a) throw new WasmFormatError(`.debug_info: unknown abbreviation ${abbrevCode}`);
      const values = new Map<number, { form: number; value: number }>();
      for (const [at, form] of a.attributes) values.set(at, readForm(r, form, addressSize));
      if (a.tag === TAG_COMPILE_UNIT) {
        const stmt = values.get(AT_STMT_LIST);
        if (stmt) files = filesAt(stmt.value);
        unitBase = values.get(AT_LOW_PC)?.value ?? 0;
      } else if (a.tag === TAG_INLINED_SUBROUTINE) {
        const low = values.get(AT_LOW_PC), high = values.get(AT_HIGH_PC), at = values.get(AT_RANGES);
        const spans: Array<[number, number]> = [];
        if (low && high) spans.push([low.value, high.form === FORM_ADDR ? high.value : low.value + high.value]);
        else if (at && ranges) spans.push(...readRanges(wasm, ranges.start + at.value, ranges.end, unitBase, addressSize));
        const file = files[values.get(AT_CALL_FILE)?.value ?? -1];
        if (file !== undefined && spans.length) {
          calls.push({
            ranges: spans.map(([s, e]) => [codeOffset(s), codeOffset(e)]), file,
            line: values.get(AT_CALL_LINE)?.value ?? 0, column: values.get(AT_CALL_COLUMN)?.value ?? 0, depth,
          });
        }
      }
      if (a.children) {
        const inlined = a.tag === TAG_INLINED_SUBROUTINE;
        open.push(inlined);
        if (inlined) depth++;
      }
    }
    r.pos = unitEnd;
  }
  return calls;

  /** DWARF addresses of wasm code are offsets in the code section's content; the line table's rows are module offsets. */
  function codeOffset(address: number): number { return code!.contentStart + address; }
}

interface Abbrev { tag: number; children: boolean; attributes: Array<[number, number]> }

function readAbbrevs(wasm: Uint8Array, start: number, end: number): Map<number, Abbrev> {
  const r = new ByteReader(wasm, start, end);
  const out = new Map<number, Abbrev>();
  for (let code = uleb(r); code !== 0; code = uleb(r)) {
    const tag = uleb(r);
    const children = r.u8() === 1;
    const attributes: Array<[number, number]> = [];
    for (let at = uleb(r), form = uleb(r); at !== 0 || form !== 0; at = uleb(r), form = uleb(r)) attributes.push([at, form]);
    out.set(code, { tag, children, attributes });
  }
  return out;
}

/** Reads one attribute value; values that are not numbers (strings, blocks) come back as 0. */
function readForm(r: ByteReader, form: number, addressSize: number): { form: number; value: number } {
  const skip = (n: number) => { r.pos += n; return 0; };
  let value: number;
  switch (form) {
    case 0x01: value = addressSize === 8 ? u64le(r) : u32le(r); break; // addr
    case 0x0b: case 0x11: value = r.u8(); break; // data1, ref1
    case 0x05: case 0x12: value = u16(r); break; // data2, ref2
    case 0x06: case 0x13: case 0x0e: case 0x10: case 0x17: value = u32le(r); break; // data4, ref4, strp, ref_addr, sec_offset
    case 0x07: case 0x14: case 0x20: value = u64le(r); break; // data8, ref8, ref_sig8
    case 0x0c: value = r.u8(); break; // flag
    case 0x19: value = 1; break; // flag_present
    case 0x0d: value = sleb(r); break; // sdata
    case 0x0f: case 0x15: value = uleb(r); break; // udata, ref_udata
    case 0x08: while (r.u8() !== 0) { /* string */ } value = 0; break;
    case 0x0a: value = skip(r.u8()); break; // block1
    case 0x03: value = skip(u16(r)); break; // block2
    case 0x04: value = skip(u32le(r)); break; // block4
    case 0x09: case 0x18: value = skip(uleb(r)); break; // block, exprloc
    case FORM_INDIRECT: return readForm(r, uleb(r), addressSize);
    default: throw new WasmFormatError(`.debug_info: attribute form 0x${form.toString(16)} is not DWARF 4`);
  }
  return { form, value };
}

/** A .debug_ranges list: [start, end) pairs relative to `base`, ended by (0, 0); an all-ones start sets a new base. */
function readRanges(wasm: Uint8Array, start: number, end: number, base: number, addressSize: number): Array<[number, number]> {
  const r = new ByteReader(wasm, start, end);
  const read = () => (addressSize === 8 ? u64le(r) : u32le(r));
  const max = addressSize === 8 ? 2 ** 64 - 1 : 0xffffffff;
  const out: Array<[number, number]> = [];
  for (;;) {
    const s = read(), e = read();
    if (s === 0 && e === 0) return out;
    if (s === max) base = e;
    else out.push([base + s, base + e]);
  }
}

