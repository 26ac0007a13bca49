// Finds the kernel source line of a trap from a WebAssembly stack trace, with asc's
// source map of build A and the relocation's offset map (build/relocate.ts).
import { toOriginalOffset } from "../../build/relocate.js";
import { WRAPPER_FRAME } from "../../build/cpp/kernel-exports.js";
import { isCppSource } from "../../build/cpp/kernel-decls.js";
import { ByteReader, SectionId, decodeBody, readFunctionBodies, readImports, readSections, OP_I32_CONST, type FunctionBody, type Section } from "../../build/wasm-reader.js";
import { isSitedAllocator } from "../../build/allocation-site-names.js";

/** A place in a kernel's sources. */
export interface SourcePlace { function: string; file: string | null; line: number; column: number; }

/** Maps a stack trace of an error thrown in a kernel module to the first frame's source place. */
export interface SourceLocator {
  locate(stack: string): SourcePlace | null;
  /**
   * The innermost frame of a kernel function (not ~lib/, not gpsimd's kernel library), at the kernel statement that
   * called into the library; without a file when no line of the kernel's own maps there. Null if none.
   */
  locateKernel(stack: string): SourcePlace | null;
  /**
   * The kernel statement whose tcm_malloc the build numbered `site` (build/allocation-sites.ts): the place of the
   * call that passes it. Null for 0, or when no call passes it (the optimiser folded it away: not seen so far).
   */
  locateAllocation(site: number): SourcePlace | null;
}

/**
 * The stack of the calling host import, deep enough to reach the kernel's frame under the kernel library's
 * (V8 keeps 10 frames by default). Costs a stack walk: call it on error paths only.
 */
export function currentStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 64;
  try {
    return new Error().stack ?? "";
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The function's own name: asc names functions by their module path ("work/k/relu/relu_forward"); a C++ frame is
 * named as written, without its parameters ("calls(long long)" is calls), and a C++ kernel's generated wrapper,
 * into which the kernel was inlined, as the kernel.
 */
export function functionName(place: SourcePlace): string {
  const wrapper = WRAPPER_FRAME.exec(place.function);
  if (wrapper) return wrapper[1];
  const cpp = CPP_SIGNATURE.exec(place.function);
  return cpp ? cpp[1] : place.function.replace(/^[^<]*\//, "");
}

/** A demangled C++ signature: the qualified name, then the parameter list (and const). */
const CPP_SIGNATURE = /^((?:operator\(\)|[^(])+)\(.*\)(?: const)?$/;

/** " at fn (file:line:column)", or " at fn" for a place without a file. */
export function describePlace(place: SourcePlace): string {
  return ` at ${functionName(place)}${place.file ? ` (${place.file}:${place.line}:${place.column})` : ""}`;
}

/**
 * Builds a locator from asc's source map (JSON text, of build A), the relocation offset map, and the names of the
 * module's functions (from its name section; you can read the name section from the final wasm bytes).
 *
 * `locate` reports the innermost wasm frame of the stack, unless it lies in the standard library (`~lib/`, which
 * includes gpsimd's own AssemblyScript library): then the first outer frame in the kernel's sources, if any. A frame
 * whose offset has no source mapping comes back with `file: null` and line and column 0. `locateKernel` reports the
 * kernel statement that called into the library, for errors raised by the library's host imports.
 */
export function createSourceLocator(sourceMapJson: string, offsetMap: Uint32Array, wasm: Uint8Array): SourceLocator {
  const map = parseSourceMap(sourceMapJson);
  const module = readModuleInfo(wasm);

  /**
   * Whether a function is the kernel's own (not the standard library's, gpsimd's kernel library, a C++ kernel's
   * headers, libc or generated exports): its name is not ~lib/... and, with a source map, some instruction of its
   * body maps to a kernel source (C++ libc pieces and gpsimd's exports unit keep plain names such as printf).
   */
  const kernelFunctions = new Map<number, boolean>();
  const isKernelFunction = (index: number, name: string): boolean => {
    if (name.startsWith(LIBRARY_PREFIX)) return false;
    const body = module.bodies[index - module.importedFunctions];
    if (!map || !body) return true;
    let owns = kernelFunctions.get(index);
    if (owns === undefined) {
      const [start, end] = [toOriginalOffset(offsetMap, body.start), toOriginalOffset(offsetMap, body.end)];
      owns = false;
      for (let i = Math.max(findSegment(map.segments, start), 0); i < map.segments.length && map.segments[i].column < end && !owns; i++) {
        owns = map.segments[i].column >= start && isKernel(i);
      }
      kernelFunctions.set(index, owns);
    }
    return owns;
  };
  const isKernel = (i: number) => map!.segments[i].source >= 0 && !isLibraryFile(map!.files[map!.segments[i].source]);

  /**
   * The source place of a frame, and whether the frame is the kernel's own. Binaryen leaves some instructions of a
   * kernel function without a mapping (an integer division that traps, a call), and code inlined from the library
   * maps to the library's lines: both belong to the kernel statement of the last mapping of the kernel's own sources
   * before them in the function (a wasm instruction follows its operands, so that is the expression it computes or
   * the statement that calls). In a C++ kernel, a call Binaryen marked as having no line at all (the device
   * runtime, which has no lines, inlined at a kernel statement: the C ABI entry and the call it makes) belongs to the
   * expression that takes its result, which follows it: with `atCall`, such a frame takes the next mapping of the
   * kernel's own .cpp sources in the body. (An AssemblyScript kernel's operands carry the statement's line.)
   */
  const place = (index: number, offset: number, atCall: boolean): Frame => {
    const name = module.names.get(index) ?? `wasm-function[${index}]`;
    const kernel = isKernelFunction(index, name);
    const unmapped = { function: name, file: null, line: 0, column: 0, kernel };
    if (!map) return unmapped;
    // A segment before the function's body belongs to another function: this instruction has no mapping.
    const body = module.bodies[index - module.importedFunctions];
    const bodyStart = body === undefined ? 0 : toOriginalOffset(offsetMap, body.start);
    const inBody = (i: number) => i >= 0 && map.segments[i].column >= bodyStart;
    let at = findSegment(map.segments, toOriginalOffset(offsetMap, offset));
    if (kernel) {
      const bodyEnd = body === undefined ? 0 : toOriginalOffset(offsetMap, body.end);
      let next = atCall && inBody(at) && map.segments[at].source < 0 ? at + 1 : map.segments.length;
      while (next < map.segments.length && map.segments[next].column < bodyEnd && !isKernel(next)) next++;
      if (next < map.segments.length && map.segments[next].column < bodyEnd && isCppSource(map.files[map.segments[next].source])) {
        at = next;
      } else {
        let own = at;
        while (inBody(own) && !isKernel(own)) own--;
        if (inBody(own)) at = own;
      }
    }
    if (!inBody(at) || map.segments[at].source < 0) return unmapped;
    const segment = map.segments[at];
    return { function: name, file: map.files[segment.source] ?? null, line: segment.line + 1, column: segment.sourceColumn + 1, kernel };
  };

  /** The frames of a stack; `innermostAtCall`: whether the innermost wasm frame is at a call (a host import's stack), or at the instruction that trapped. */
  const frames = (stack: string, innermostAtCall: boolean): Frame[] =>
    [...stack.matchAll(WASM_FRAME)].map((frame, i) => place(Number(frame[1]), parseInt(frame[2], 16), innermostAtCall || i > 0));
  const placeOf = ({ kernel: _k, ...p }: Frame): SourcePlace => p;
  let allocationCalls: Map<number, { index: number; offset: number }> | null = null;
  return {
    locate(stack: string): SourcePlace | null {
      const all = frames(stack, false);
      const found = all.find((f) => f.kernel && !isLibrary(f)) ?? all[0];
      return found ? placeOf(found) : null;
    },
    locateKernel(stack: string): SourcePlace | null {
      const kernel = frames(stack, true).find((f) => f.kernel);
      // Library code inlined before any of the function's own code keeps no kernel line: name the function only.
      return kernel ? (kernel.file !== null && isLibrary(kernel) ? { ...placeOf(kernel), file: null, line: 0, column: 0 } : placeOf(kernel)) : null;
    },
    locateAllocation(site: number): SourcePlace | null {
      allocationCalls ??= findAllocationCalls(wasm, module);
      const call = site ? allocationCalls.get(site) : undefined;
      return call ? placeOf(place(call.index, call.offset, true)) : null;
    },
  };
}

/**
 * Every numbered allocation call of the module (build/allocation-sites.ts): `i32.const site` right before a call of
 * an allocator that takes a site, by site. Read on the first leak a library reports, not at load.
 */
function findAllocationCalls(wasm: Uint8Array, module: ModuleInfo): Map<number, { index: number; offset: number }> {
  const calls = new Map<number, { index: number; offset: number }>();
  const allocators = new Set([...module.names].filter(([, name]) => isSitedAllocator(name)).map(([index]) => index));
  if (!allocators.size) return calls;
  module.bodies.forEach((body, i) => {
    let code;
    try { code = decodeBody(wasm, body); } catch { return; } // a module that compiled decodes; just in case, skip it
    for (let k = 1; k < code.length; k++) {
      const [before, call] = [code[k - 1], code[k]];
      if (call.prefix !== 0 || call.code !== OP_CALL || before.prefix !== 0 || before.code !== OP_I32_CONST) continue;
      if (!allocators.has(new ByteReader(wasm, call.start + 1).u32())) continue;
      const site = before.fields[0].value;
      if (site && !calls.has(site)) calls.set(site, { index: module.importedFunctions + i, offset: call.start });
    }
  });
  return calls;
}

const OP_CALL = 0x10;

/**
 * The source file of the instruction at `offset` of a function whose body starts at `bodyStart` (offsets in the module
 * the offset map describes): the file of the last mapping at or before it within the body, null where that mapping
 * has none. Null when the source map cannot be read. build/count-pass.ts tells the kernel library's inlined code by it.
 */
export function sourceFileLookup(sourceMapJson: string, offsetMap: Uint32Array): ((offset: number, bodyStart: number) => string | null) | null {
  const map = parseSourceMap(sourceMapJson);
  if (!map) return null;
  return (offset, bodyStart) => {
    const at = findSegment(map.segments, toOriginalOffset(offsetMap, offset));
    if (at < 0 || map.segments[at].column < toOriginalOffset(offsetMap, bodyStart) || map.segments[at].source < 0) return null;
    return map.files[map.segments[at].source] ?? null;
  };
}

/** A frame's place, and whether its function is the kernel's own. */
interface Frame extends SourcePlace { kernel: boolean }

// `at name (wasm://wasm/8c3a12ee:wasm-function[12]:0x3a4)`, `at <anonymous>:wasm-function[12]:0x3a4`, ...
const WASM_FRAME = /wasm-function\[(\d+)\]:0x([0-9a-fA-F]+)/g;

const LIBRARY_PREFIX = "~lib/";

/** Whether a place is in the standard library (by its file, or by its function's name when unmapped). */
function isLibrary(place: SourcePlace): boolean {
  return isLibraryFile(place.file ?? place.function);
}

/** Whether a source file is AssemblyScript's or gpsimd's own library (asc names both ~lib/...). */
function isLibraryFile(file: string | undefined): boolean {
  return file === undefined || file.startsWith(LIBRARY_PREFIX);
}

/** One mapping of generated line 1: wasm byte `column` of build A comes from `sources[source]` (-1: unmapped). */
interface Segment {
  column: number;
  source: number;
  /** 0-based */
  line: number;
  /** 0-based */
  sourceColumn: number;
}

interface SourceMap {
  /** Sorted by column. */
  segments: Segment[];
  /** `sources`, made absolute. */
  files: string[];
}

function parseSourceMap(json: string): SourceMap | null {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  const { sources, mappings } = (raw ?? {}) as { sources?: unknown; mappings?: unknown };
  if (!Array.isArray(sources) || typeof mappings !== "string") return null;
  // asc writes paths relative to its --baseDir "/" (and a meaningless sourceRoot "./out"); library files keep "~lib/".
  const files = sources.map((s) => {
    const file = String(s);
    return file.startsWith(LIBRARY_PREFIX) || file.startsWith("/") ? file : `/${file}`;
  });
  const segments = decodeFirstLine(mappings);
  if (segments === null) return null;
  return { segments, files };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_VALUES = new Map([...BASE64].map((c, i) => [c, i]));

/** Decodes the segments of the first generated line of source map `mappings` (wasm maps have only that line). */
function decodeFirstLine(mappings: string): Segment[] | null {
  const end = mappings.indexOf(";");
  const line = end < 0 ? mappings : mappings.slice(0, end);
  const segments: Segment[] = [];
  const state = [0, 0, 0, 0, 0]; // generated column, source, source line, source column, name: all relative
  for (const text of line.split(",")) {
    if (text === "") continue;
    const fields = decodeVlq(text);
    if (fields === null || (fields.length !== 1 && fields.length !== 4 && fields.length !== 5)) return null;
    fields.forEach((delta, i) => { state[i] += delta; });
    segments.push(
      fields.length === 1
        ? { column: state[0], source: -1, line: 0, sourceColumn: 0 }
        : { column: state[0], source: state[1], line: state[2], sourceColumn: state[3] },
    );
  }
  segments.sort((a, b) => a.column - b.column); // stable: keeps the last of equal columns last
  return segments;
}

/** The values of one segment's base64 VLQ fields; null if malformed. */
function decodeVlq(text: string): number[] | null {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const c of text) {
    const digit = BASE64_VALUES.get(c);
    if (digit === undefined || shift > 30) return null;
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2); // the lowest bit is the sign
    value = 0;
    shift = 0;
  }
  return shift === 0 ? values : null;
}

/** Index of the segment with the greatest column <= offset (the last of several at that column); -1 if none. */
function findSegment(segments: Segment[], offset: number): number {
  let [lo, hi] = [0, segments.length]; // first segment with column > offset
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (segments[mid].column <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** What the locator needs of the final module: function names, imported function count, bodies. */
interface ModuleInfo {
  names: Map<number, string>;
  importedFunctions: number;
  /** Where each defined function's body (its locals, then its code) is in the module. */
  bodies: FunctionBody[];
}

function readModuleInfo(wasm: Uint8Array): ModuleInfo {
  const info: ModuleInfo = { names: new Map(), importedFunctions: 0, bodies: [] };
  let sections: Section[];
  try {
    sections = readSections(wasm);
  } catch {
    return info; // a module that compiled is readable; just in case, locate by offsets only
  }
  for (const section of sections) {
    try {
      if (section.id === SectionId.import) info.importedFunctions = readImports(wasm, section).functions;
      else if (section.id === SectionId.code) info.bodies = readFunctionBodies(wasm, section);
      else if (section.id === SectionId.custom) readFunctionNames(wasm, section, info.names);
    } catch {
      // a malformed name section only loses names
    }
  }
  return info;
}

const utf8 = new TextDecoder();

/** Reads the function names subsection (id 1) of the custom section "name", if that is what `section` is. */
export function readFunctionNames(wasm: Uint8Array, section: Section, names: Map<number, string>): void {
  const r = new ByteReader(wasm, section.contentStart, section.end);
  const text = (range: { start: number; end: number }) => utf8.decode(wasm.subarray(range.start, range.end));
  if (text(r.vector()) !== "name") return;
  while (!r.atEnd) {
    const id = r.u8();
    const { start, end } = r.vector();
    if (id !== 1) continue;
    const sub = new ByteReader(wasm, start, end);
    for (let count = sub.u32(); count > 0; count--) {
      const index = sub.u32();
      names.set(index, text(sub.vector()));
    }
  }
}
