// clang's line tables (-gline-tables-only -gdwarf-4) as a source map: reads
// the .debug_line section of a linked wasm module and writes a source map
// (v3, the module as one line, columns = byte offsets in the module), the
// form gpsimd's source locator already reads for AssemblyScript kernels and
// the form Binaryen carries through its passes (wasm-merge/wasm-opt -ism/-osm).
import { ByteReader, SectionId, readSections, WasmFormatError } from "../wasm-reader.js";
import { readInlinedCalls, type InlinedCall } from "./dwarf-inlines.js";
import { customName, u16, u32le, sleb } from "./dwarf-read.js";

/** One row of the line table: a module byte offset and its source place (line 0: no source). */
export interface LineRow { offset: number; file: string; line: number; column: number; }

/**
 * Reads the rows of every line program in the module's .debug_line, in address order, with the code clang inlined
 * from a library file (`isLibrary`: gpsimd's headers, libc++) placed at the statement of the kernel's own sources
 * that called it (dwarf-inlines.ts): an error raised through a header's accessor or tcm_malloc names that line.
 */
export function readLineTable(wasm: Uint8Array, isLibrary: (file: string) => boolean = () => false): LineRow[] {
  const sections = readSections(wasm);
  const code = sections.find((s) => s.id === SectionId.code);
  const custom = (name: string) => sections.find((s) => s.id === SectionId.custom && customName(wasm, s.contentStart).name === name);
  const lines = custom(".debug_line");
  if (!code || !lines) return [];
  const start = customName(wasm, lines.contentStart).end;
  const r = new ByteReader(wasm, start, lines.end);
  const rows: LineRow[] = [];
  const files = new Map<number, string[]>();
  while (!r.atEnd) files.set(r.pos - start, readProgram(r, code.contentStart, rows));
  rows.sort((a, b) => a.offset - b.offset);
  let calls: InlinedCall[];
  try {
    calls = readInlinedCalls(wasm, (offset) => files.get(offset) ?? []);
  } catch (e) {
    if (!(e instanceof WasmFormatError)) throw e;
    calls = []; // a .debug_info this reader does not know: header code keeps the headers' lines
  }
  return atCallers(rows, calls, isLibrary);
}

/**
 * Each row in a library file, inside inlined calls, moves to the innermost call site in a file that is not a
 * library's (the header function called by another header function is followed out to the kernel's statement).
 * Rows of the kernel's own files, inlined or not, keep their place (a trap in an inlined kernel helper names its line).
 */
function atCallers(rows: LineRow[], calls: InlinedCall[], isLibrary: (file: string) => boolean): LineRow[] {
  if (!calls.length) return rows;
  const innermostFirst = [...calls].sort((a, b) => b.depth - a.depth);
  return rows.map((row) => {
    if (row.line === 0 || !isLibrary(row.file)) return row;
    const caller = innermostFirst.find((c) => !isLibrary(c.file) && c.ranges.some(([s, e]) => row.offset >= s && row.offset < e));
    return caller ? { ...row, file: caller.file, line: caller.line, column: caller.column } : row;
  });
}

function cstring(r: ByteReader): string {
  const from = r.pos;
  while (r.u8() !== 0) { /* to the terminator */ }
  return new TextDecoder().decode(r.bytes.subarray(from, r.pos - 1));
}

/** Decodes one DWARF 4 line program (32-bit format), appending its rows; returns its file table (index 0 unused). */
function readProgram(r: ByteReader, codeStart: number, rows: LineRow[]): string[] {
  const length = u32le(r);
  const end = r.pos + length;
  const version = u16(r);
  if (version < 2 || version > 4) throw new WasmFormatError(`.debug_line version ${version}: expected DWARF 4 (-gdwarf-4)`);
  const headerLength = u32le(r);
  const programStart = r.pos + headerLength;
  const minInst = r.u8();
  if (version >= 4) r.u8(); // maximum operations per instruction
  const defaultStmt = r.u8();
  const lineBase = (r.u8() << 24) >> 24;
  const lineRange = r.u8();
  const opcodeBase = r.u8();
  const opLengths = Array.from({ length: opcodeBase - 1 }, () => r.u8());
  const dirs = [""];
  for (let d = cstring(r); d !== ""; d = cstring(r)) dirs.push(d);
  const files = [""];
  const addFile = (name: string, dir: number) => files.push(name.startsWith("/") || !dirs[dir] ? name : `${dirs[dir]}/${name}`);
  for (let f = cstring(r); f !== ""; f = cstring(r)) { const dir = r.u32(); r.u32(); r.u32(); addFile(f, dir); }
  r.pos = programStart;
  let address = 0, file = 1, line = 1, column = 0;
  void defaultStmt;
  const emit = () => rows.push({ offset: codeStart + address, file: files[file] ?? "", line, column });
  const reset = () => { address = 0; file = 1; line = 1; column = 0; };
  while (r.pos < end) {
    const op = r.u8();
    if (op >= opcodeBase) {
      const adj = op - opcodeBase;
      address += Math.floor(adj / lineRange) * minInst;
      line += lineBase + (adj % lineRange);
      emit();
    } else if (op === 0) {
      const len = r.u32();
      const next = r.pos + len;
      const sub = r.u8();
      if (sub === 1) { emit(); reset(); }
      else if (sub === 2) address = u32le(r);
      else if (sub === 3) { const name = cstring(r); const dir = r.u32(); r.u32(); r.u32(); addFile(name, dir); }
      r.pos = next;
    } else if (op === 1) emit();
    else if (op === 2) address += r.u32() * minInst;
    else if (op === 3) line += sleb(r);
    else if (op === 4) file = r.u32();
    else if (op === 5) column = r.u32();
    else if (op === 8) address += Math.floor((255 - opcodeBase) / lineRange) * minInst;
    else if (op === 9) address += u16(r);
    else for (let i = 0; i < opLengths[op - 1]; i++) r.u32();
  }
  r.pos = end;
  return files;
}

const VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function vlq(n: number): string {
  let v = n < 0 ? (-n << 1) | 1 : n << 1;
  let out = "";
  do { let digit = v & 31; v >>>= 5; if (v) digit |= 32; out += VLQ[digit]; } while (v);
  return out;
}

/** A source map of the rows; `rename` maps a DWARF file name to the name the map should give it. */
export function lineTableSourceMap(rows: LineRow[], rename: (file: string) => string): string {
  const sources: string[] = [];
  const index = new Map<string, number>();
  const segments: string[] = [];
  let [prevOffset, prevSource, prevLine, prevColumn] = [0, 0, 0, 0];
  const last = rows.filter((row, i) => rows[i + 1]?.offset !== row.offset); // the last row at an offset wins
  for (const row of last) {
    const delta = row.offset - prevOffset;
    prevOffset = row.offset;
    if (row.line === 0) { segments.push(vlq(delta)); continue; }
    const name = rename(row.file);
    let s = index.get(name);
    if (s === undefined) { s = sources.length; sources.push(name); index.set(name, s); }
    const column = Math.max(row.column - 1, 0);
    segments.push(vlq(delta) + vlq(s - prevSource) + vlq(row.line - 1 - prevLine) + vlq(column - prevColumn));
    [prevSource, prevLine, prevColumn] = [s, row.line - 1, column];
  }
  return JSON.stringify({ version: 3, sources, names: [], mappings: segments.join(",") });
}
