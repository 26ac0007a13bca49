// Executed-instruction counting for the cost model's compute term: a rewrite
// of a kernel module's binary that adds, at the start of every straight-line
// segment of kernel code, `counter += n` for each instruction class the
// segment holds. Only profiling uses it (host/profiling/counting.ts makes a
// counting copy of a loaded library); no build ever emits it.
//
// Contract (any kernel module gpsimd builds: AssemblyScript or C++ merged with
// the runtime, relocated, stop-polled, sanitized or not):
// - Adds one mutable i64 global per class of build/count-names.ts, exported as
//   counterExport(class), 0 at instantiation (the host resets them before each
//   run and reads them after it), and one private i32 scratch global.
// - A segment starts at a function's entry, after `loop`, `if` and `else`
//   (an arm or a loop head is entered from elsewhere), after `end` (a merge
//   point) and after every branch (`br`, `br_if`, `br_table`, `return`,
//   `unreachable`: what follows runs only when the branch is not taken).
//   Calls do not end a segment: a call that does not return throws, and a
//   launch that throws has no estimate.
// - The kernel library is not counted, only the calls into it: functions the
//   runtime defines (isRuntimeFunction) are left as they are, and code of the
//   runtime the optimiser inlined into a kernel function (found through the
//   source map: its instructions map to the runtime's files) counts as one
//   call each time control enters it from kernel code. Its cost is the
//   accessor and DMA terms of the cost model.
// - Stop polls (build/stop-polls.ts) and the sanitizer's checks are the
//   emulator's, not the kernel's: not counted.
// - memory.copy and memory.fill count their length at run time, one load and
//   one store (copy) or one store (fill) per 64 bytes, a 512-bit word.
// - Every byte of the original code is kept in order: the offset map it
//   returns takes an offset in the new module back to the old one, so traps
//   in a counting module still name their source line.
import {
  ByteReader, SectionId, readSections, readFunctionBodies, decodeBody, type Section, type Instruction, type FunctionBody,
} from "./wasm-reader.js";
import { INSTRUCTION_CLASSES, counterExport, type InstructionClass } from "./count-names.js";
import { STOP_IMPORT } from "./stop-poll-names.js";
import { OWN_FUNCTIONS } from "./ownership-names.js";
import { readFunctionNames } from "../host/checks/source-locator.js";

/** What the pass needs to know about the module's code. */
export interface CountingOptions {
  /** The kernel library's own functions, by name-section name (not instrumented; a call to one counts as a library call). */
  isRuntimeFunction(name: string): boolean;
  /**
   * The source file of the instruction at `offset` of a defined function whose body starts at `bodyStart`, or null
   * when the source map gives none there. Omitted: no source map, every instruction of a kernel function is kernel.
   */
  sourceFileAt?(offset: number, bodyStart: number): string | null;
  /** Source files of the kernel library (its code inlined into kernel functions is not counted). */
  isRuntimeFile(file: string): boolean;
  /** Source files of checks the build added to kernel code (build/ownership-pass.ts): the emulator's, not counted at all. */
  isCheckFile?(file: string): boolean;
}

/** The counting module and how its offsets map back. */
export interface CountingModule {
  wasm: Uint8Array<ArrayBuffer>;
  /** Pairs (offset in wasm, offset in the input), sorted, one wherever the shift changes (as build/relocate.ts's offsetMap). */
  anchors: Uint32Array;
  /** Functions instrumented. */
  functions: number;
  /** Segments that got increments. */
  segments: number;
}

const CLASS_INDEX = new Map(INSTRUCTION_CLASSES.map((c, i) => [c, i]));
const SCALAR_DIVIDES = new Set([0x6d, 0x6e, 0x6f, 0x70, 0x7f, 0x80, 0x81, 0x82, 0x91, 0x95, 0x9f, 0xa3]);
/** f32x4.sqrt, f32x4.div, f64x2.sqrt, f64x2.div */
const VECTOR_DIVIDES = new Set([227, 231, 239, 243]);
/** Instructions after which a new segment starts: loop, if, else, end, br, br_if, br_table, return, unreachable, return_call(_indirect). */
const SEGMENT_ENDS = new Set([0x03, 0x04, 0x05, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x00, 0x12, 0x13]);
const MEMORY_COPY = 10;
const MEMORY_FILL = 11;

/** The class of a kernel instruction other than a call; null: free (locals, constants, structure) or dynamic. */
function classOf(ins: Instruction): InstructionClass | null {
  const op = ins.code;
  if (ins.prefix === 0) {
    if (op === 0x04 || op === 0x0c || op === 0x0d || op === 0x0e || op === 0x0f || op === 0x11 || op === 0x12 || op === 0x13) return "branch";
    if (op === 0x1b || op === 0x1c) return "scalar";
    if (op >= 0x28 && op <= 0x3e) return "memory";
    if (op >= 0x45 && op <= 0xc4) return SCALAR_DIVIDES.has(op) ? "divide" : "scalar";
    return null;
  }
  if (ins.prefix === 0xfc) return op <= 7 ? "scalar" : null;
  if (ins.prefix === 0xfd) {
    if (op <= 11 || (op >= 84 && op <= 93)) return "memory";
    if (op === 12) return null; // v128.const
    return VECTOR_DIVIDES.has(op) ? "divide" : "vector";
  }
  if (ins.prefix === 0xfe) return op === 3 ? null : "memory";
  return null;
}

/** Unsigned LEB128. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

/** Signed LEB128 of a non-negative integer. */
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n % 128;
    n = Math.floor(n / 128);
    if (n === 0 && (byte & 0x40) === 0) { out.push(byte); return out; }
    out.push(byte | 0x80);
  }
}

const utf8 = new TextDecoder();

/** Function imports (module, name) in index order, and the number of imported globals. */
function readImportEntries(bytes: Uint8Array, section: Section | undefined): { functions: { module: string; name: string }[]; globals: number } {
  const result = { functions: [] as { module: string; name: string }[], globals: 0 };
  if (!section) return result;
  const r = new ByteReader(bytes, section.contentStart, section.end);
  const text = () => { const v = r.vector(); return utf8.decode(bytes.subarray(v.start, v.end)); };
  for (let count = r.u32(); count > 0; count--) {
    const module = text();
    const name = text();
    const kind = r.u8();
    if (kind === 0) { r.u32(); result.functions.push({ module, name }); }
    else if (kind === 1) { r.u8(); limits(r); }
    else if (kind === 2) limits(r);
    else if (kind === 3) { r.skip(2); result.globals++; }
    else if (kind === 4) { r.u8(); r.u32(); }
    else throw new Error(`count pass: unknown import kind ${kind}`);
  }
  return result;
}

function limits(r: ByteReader): void {
  const flags = r.u8();
  r.skipLeb(10);
  if (flags & 1) r.skipLeb(10);
}

/** Names of functions from the "name" custom section. */
function functionNames(bytes: Uint8Array, sections: Section[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const s of sections) if (s.id === SectionId.custom) readFunctionNames(bytes, s, names);
  return names;
}

/** Number of entries of a vector section (0 when absent). */
function entryCount(bytes: Uint8Array, section: Section | undefined): number {
  return section ? new ByteReader(bytes, section.contentStart, section.end).u32() : 0;
}

/** A straight-line segment: where its increments go, and what it executes. */
interface Segment { at: number; counts: number[]; }

/** Bytes inserted before the original byte at `at`. */
interface Insertion { at: number; bytes: number[]; }

/** The counting copy of a kernel module (see the contract above). */
export function instrumentCounting(bytes: Uint8Array, options: CountingOptions): CountingModule {
  const sections = readSections(bytes);
  const find = (id: number) => sections.find((s) => s.id === id);
  const imports = readImportEntries(bytes, find(SectionId.import));
  const globalSection = find(SectionId.global);
  const exportSection = find(SectionId.export);
  const codeSection = find(SectionId.code);
  if (!codeSection) throw new Error("count pass: the module has no code");
  const names = functionNames(bytes, sections);
  const importedFunctions = imports.functions.length;
  const stopImport = imports.functions.findIndex((f) => f.module === STOP_IMPORT.module && f.name === STOP_IMPORT.name);
  // New globals go after every existing one: counters, then the scratch.
  const firstNew = imports.globals + entryCount(bytes, globalSection);
  const counterGlobal = INSTRUCTION_CLASSES.map((_, i) => firstNew + i);
  const scratch = firstNew + INSTRUCTION_CLASSES.length;
  const M = counterGlobal[CLASS_INDEX.get("memory")!];

  const increment = (cls: number, n: number) => [0x23, ...uleb(counterGlobal[cls]), 0x42, ...sleb(n), 0x7c, 0x24, ...uleb(counterGlobal[cls])];
  /** Before memory.copy/fill (stack: ..., n): memory += ceil(n / 64) * (copy ? 2 : 1), n left as it was. */
  const dynamicMemory = (copy: boolean) => [
    0x24, ...uleb(scratch), 0x23, ...uleb(M), 0x23, ...uleb(scratch), 0xad, 0x42, 63, 0x7c, 0x42, 6, 0x88,
    ...(copy ? [0x42, 1, 0x86] : []), 0x7c, 0x24, ...uleb(M), 0x23, ...uleb(scratch),
  ];

  const callee = (call: Instruction) => new ByteReader(bytes, call.start + 1, call.end).u32();
  const insertions: Insertion[] = [];
  let functions = 0;
  let segmentCount = 0;
  const bodies = readFunctionBodies(bytes, codeSection);
  bodies.forEach((body: FunctionBody, k: number) => {
    const name = names.get(importedFunctions + k) ?? "";
    if (options.isRuntimeFunction(name)) return;
    functions++;
    const code = decodeBody(bytes, body);
    const segments: Segment[] = [];
    let current: Segment = { at: body.codeStart, counts: INSTRUCTION_CLASSES.map(() => 0) };
    segments.push(current);
    let inRuntime = false; // the last mapped instruction was the kernel library's (inlined)
    let inCheck = false; // the last mapped instruction was a check the build added (not counted)
    for (let i = 0; i < code.length; i++) {
      const ins = code[i];
      if (isPoll(code, i)) { i += 4; continue; }
      const file = options.sourceFileAt?.(ins.start, body.start);
      if (file !== undefined && file !== null) {
        inCheck = options.isCheckFile?.(file) ?? false;
        if (!inCheck) {
          const runtime = options.isRuntimeFile(file);
          if (runtime && !inRuntime) current.counts[CLASS_INDEX.get("libraryCall")!]++;
          inRuntime = runtime;
        }
      }
      if (!inRuntime && !inCheck) {
        let cls: InstructionClass | null;
        if (ins.prefix === 0 && ins.code === 0x10) cls = callClass(callee(ins));
        else cls = classOf(ins);
        if (cls) current.counts[CLASS_INDEX.get(cls)!]++;
        if (ins.prefix === 0xfc && (ins.code === MEMORY_COPY || ins.code === MEMORY_FILL)) insertions.push({ at: ins.start, bytes: dynamicMemory(ins.code === MEMORY_COPY) });
      }
      if (ins.prefix === 0 && SEGMENT_ENDS.has(ins.code) && i < code.length - 1) {
        current = { at: ins.end, counts: INSTRUCTION_CLASSES.map(() => 0) };
        segments.push(current);
      }
    }
    for (const s of segments) {
      const bytesOut = s.counts.flatMap((n, cls) => (n > 0 ? increment(cls, n) : []));
      if (bytesOut.length) { insertions.push({ at: s.at, bytes: bytesOut }); segmentCount++; }
    }
  });

  /** Whether code[i..i+4] is a stop poll: global.get, i32.atomic.load, if, call $stop, end. */
  function isPoll(code: Instruction[], i: number): boolean {
    if (stopImport < 0 || i + 4 >= code.length) return false;
    const [g, load, branch, call, end] = code.slice(i, i + 5);
    return g.prefix === 0 && g.code === 0x23 && load.prefix === 0xfe && load.code === 0x10 && branch.prefix === 0 && branch.code === 0x04
      && call.prefix === 0 && call.code === 0x10 && callee(call) === stopImport && end.prefix === 0 && end.code === 0x0b;
  }

  /**
   * A call's class: into the kernel library (its functions and the host's imports), the emulator's own (none: stop
   * polls, sanitize's checks, the default mode's check-window slow path, which keeps its access's place for its
   * report), or a kernel call (a branch).
   */
  function callClass(callee: number): InstructionClass | null {
    if (callee < importedFunctions) {
      const imp = imports.functions[callee];
      return callee === stopImport || imp.module === "sanitize" || imp.name === OWN_FUNCTIONS.window ? null : "libraryCall";
    }
    const name = names.get(callee) ?? "";
    if (name === OWN_FUNCTIONS.window || name.endsWith(`/${OWN_FUNCTIONS.window}`)) return null;
    return options.isRuntimeFunction(name) ? "libraryCall" : "branch";
  }

  insertions.sort((a, b) => a.at - b.at); // two at one place (a segment's start, a memory.copy) are both stack-neutral: either order
  return rewrite(bytes, sections, { globalSection, exportSection, codeSection, bodies, insertions, counterGlobal, functions, segments: segmentCount });
}

interface Plan {
  globalSection?: Section;
  exportSection?: Section;
  codeSection: Section;
  bodies: FunctionBody[];
  insertions: Insertion[];
  counterGlobal: number[];
  functions: number;
  segments: number;
}

/** Writes the new module: new globals and exports, code with the insertions, every other byte as it was. */
function rewrite(bytes: Uint8Array, sections: Section[], plan: Plan): CountingModule {
  const out: number[] = [];
  const anchors: number[] = [];
  const copy = (start: number, end: number) => {
    if (end <= start) return;
    anchors.push(out.length, start);
    for (let i = start; i < end; i++) out.push(bytes[i]);
  };
  const newGlobals = [
    ...plan.counterGlobal.map(() => [0x7e, 0x01, 0x42, 0x00, 0x0b]), // mut i64 = 0
    [0x7f, 0x01, 0x41, 0x00, 0x0b], // the scratch: mut i32 = 0
  ];
  const newExports = INSTRUCTION_CLASSES.map((c, i) => {
    const name = [...new TextEncoder().encode(counterExport(c))];
    return [...uleb(name.length), ...name, 0x03, ...uleb(plan.counterGlobal[i])];
  });
  /** A vector section with entries appended: count re-encoded, old entries copied (anchored), new ones after. */
  const extended = (id: number, old: Section | undefined, added: number[][]) => {
    const r = old ? new ByteReader(bytes, old.contentStart, old.end) : null;
    const count = r ? r.u32() : 0;
    const head = [...uleb(count + added.length)];
    const oldEntries = r ? r.end - r.pos : 0;
    const size = head.length + oldEntries + added.reduce((n, e) => n + e.length, 0);
    out.push(id, ...uleb(size), ...head);
    if (r) copy(r.pos, r.end);
    for (const e of added) out.push(...e);
  };
  // Where the new sections go when the module has none: globals before exports, exports before start/elements/code.
  const globalBefore = new Set<number>([SectionId.export, SectionId.start, SectionId.element, SectionId.dataCount, SectionId.code, SectionId.data]);
  const exportBefore = new Set<number>([SectionId.start, SectionId.element, SectionId.dataCount, SectionId.code, SectionId.data]);
  let globalsDone = false, exportsDone = false;
  copy(0, 8);
  for (const s of sections) {
    if (!globalsDone && !plan.globalSection && globalBefore.has(s.id)) { extended(SectionId.global, undefined, newGlobals); globalsDone = true; }
    if (!exportsDone && !plan.exportSection && exportBefore.has(s.id)) { extended(SectionId.export, undefined, newExports); exportsDone = true; }
    if (s === plan.globalSection) { extended(SectionId.global, s, newGlobals); globalsDone = true; continue; }
    if (s === plan.exportSection) { extended(SectionId.export, s, newExports); exportsDone = true; continue; }
    if (s !== plan.codeSection) { copy(s.start, s.end); continue; }
    // The code section: each body with its insertions, its size and the section's size re-encoded.
    const pieces: { bytes: number[]; from: number }[][] = [];
    let next = 0;
    for (const body of plan.bodies) {
      const parts: { bytes: number[]; from: number }[] = [];
      let at = body.start;
      while (next < plan.insertions.length && plan.insertions[next].at < body.end) {
        const ins = plan.insertions[next++];
        parts.push({ bytes: [...bytes.subarray(at, ins.at)], from: at }, { bytes: ins.bytes, from: -1 });
        at = ins.at;
      }
      parts.push({ bytes: [...bytes.subarray(at, body.end)], from: at });
      pieces.push(parts);
    }
    const bodySizes = pieces.map((parts) => parts.reduce((n, p) => n + p.bytes.length, 0));
    const head = uleb(plan.bodies.length);
    const content = head.length + bodySizes.reduce((n, size) => n + uleb(size).length + size, 0);
    out.push(SectionId.code, ...uleb(content), ...head);
    pieces.forEach((parts, i) => {
      out.push(...uleb(bodySizes[i]));
      for (const p of parts) {
        if (p.from >= 0 && p.bytes.length) anchors.push(out.length, p.from);
        for (const b of p.bytes) out.push(b);
      }
    });
  }
  if (!globalsDone) extended(SectionId.global, undefined, newGlobals);
  if (!exportsDone) extended(SectionId.export, undefined, newExports);
  return { wasm: Uint8Array.from(out), anchors: Uint32Array.from(anchors), functions: plan.functions, segments: plan.segments };
}
