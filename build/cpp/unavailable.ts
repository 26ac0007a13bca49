// What a linked C++ kernel may not use, found at build time rather than at its
// first call. The kernel links against the compiler's WASI libc: what is pure
// there (<cmath>, <cstring>, <algorithm>, snprintf) works, the heap and abort
// are the device runtime's (include/gpsimd/device-libc.h); what needs a host
// (files and the console, clocks, the environment, process exit) arrives as a
// WASI import, which a GpSimd core does not have. A kernel line that calls
// such a function (directly, or through calls that end in a WASI import, or a
// stdio or C++ stream function, which write through FILE's function pointers)
// is a build error naming the line; a WASI import reached only from inside the
// library (an error path of printf's formatter, say) is given a stub that
// stops the kernel with a named error if it ever runs (host-stubs.ts). Objects
// built before the kernel runs (globals with constructors) or destroyed after
// it (static locals with destructors) have no place either: static data is
// shared by the cores and outlives the launch, whose heap is emptied.
import { readSections, readFunctionImports, readFunctionBodies, decodeBody, ByteReader, SectionId, type FunctionBody } from "../wasm-reader.js";
import { readFunctionNames } from "../../host/checks/source-locator.js";
import { readLineTable, type LineRow } from "./dwarf-lines.js";
import { ABI_MODULE } from "./post-link.js";

/** Library functions that register destructors to run at exit (a static local object with a destructor calls one). */
const AT_EXIT = new Set(["__cxa_atexit", "atexit"]);
const OP_CALL = 0x10;

/** What a WASI function gives a program, and what a kernel does instead. */
function hostNeed(wasi: string): string {
  if (wasi.startsWith("fd_") || wasi.startsWith("path_")) return "files and the console, which a GpSimd core does not have (print with printf: the device's, shown after the operator)";
  if (wasi.startsWith("clock_")) return "a clock, which a GpSimd core does not have (time a kernel with `gpsimd profile`)";
  if (wasi.startsWith("environ_") || wasi.startsWith("args_")) return "the process environment, which a GpSimd core does not have (pass settings as kernel arguments or -D flags)";
  if (wasi === "proc_exit") return "to end the process; a kernel ends by returning its tensor (stop it with abort() or assert)";
  if (wasi === "random_get") return "random numbers from the host, which a GpSimd core does not have (rand() works)";
  return "the host system, which a GpSimd core does not have";
}

/**
 * The uses of unavailable library functions in a linked kernel (before the merge with the runtime), as
 * "file:line: error: ..." messages naming the kernel's line; empty when there are none.
 */
export function unavailableUses(wasm: Uint8Array, rows: LineRow[], sourceName: (file: string) => string): string[] {
  const sections = readSections(wasm);
  const importSection = sections.find((s) => s.id === SectionId.import);
  const imported = importSection ? readFunctionImports(wasm, importSection) : [];
  const names = new Map<number, string>();
  for (const s of sections) if (s.id === SectionId.custom) readFunctionNames(wasm, s, names);
  // Where a bad road ends: a host import (its WASI name), or a library function that registers an at-exit destructor.
  const seeds = new Map<number, string>();
  imported.forEach((im, i) => { if (im.module !== ABI_MODULE) seeds.set(i, im.name); });
  for (const [index, name] of names) if (AT_EXIT.has(name)) seeds.set(index, name);
  const ctors = [...names].find(([, n]) => n === "__wasm_call_ctors")?.[0];
  if (!seeds.size && ctors === undefined) return [];

  const first = imported.length;
  const code = sections.find((s) => s.id === SectionId.code);
  const bodies = code ? readFunctionBodies(wasm, code) : [];
  const calls = bodies.map((body) => callsIn(wasm, body));
  const nameOf = (index: number) => shortName(names.get(index) ?? `function ${index}`);

  // Every function that reaches a seed through direct calls, with the seeds it reaches (named in the message).
  const reaches = new Map<number, Set<string>>([...seeds].map(([f, s]) => [f, new Set([s])]));
  for (let changed = true; changed;) {
    changed = false;
    calls.forEach((list, i) => {
      for (const { target } of list) {
        const below = reaches.get(target);
        if (!below || target === first + i) continue;
        const mine = reaches.get(first + i) ?? new Set<string>();
        const size = mine.size;
        for (const s of below) mine.add(s);
        if (mine.size !== size || !reaches.has(first + i)) { reaches.set(first + i, mine); changed = true; }
      }
    });
  }

  const userPlace = placeFinder(rows, sourceName);
  const messages = new Set<string>();
  calls.forEach((list, i) => {
    for (const { target, offset } of list) {
      const name = names.get(target) ?? "";
      const needs = reaches.get(target) ?? (writesFiles(name) ? new Set(["fd_write"]) : undefined);
      const place = needs && userPlace(offset, bodies[i]);
      if (!needs || !place) continue;
      messages.add(AT_EXIT.has(name)
        ? `${place}: error: a static local object with a destructor is not available in a GpSimd kernel: ${AT_EXIT_REASON}`
        : STREAM.test(name)
          ? `${place}: error: std::cout and the other C++ streams are not available in a GpSimd kernel: ${reason(new Set(["fd_write"]))}`
          : `${place}: error: ${nameOf(target)} is not available in a GpSimd kernel: ${reason(needs)}`);
    }
  });
  if (ctors !== undefined && ctors >= first) {
    // The constructor's code is inlined from library headers (std::vector's): its rows move to the kernel's line that
    // called it, the global's definition.
    const atDefinitions = readLineTable(wasm, (file) => sourceName(file).startsWith("~lib/"));
    for (const { target } of calls[ctors - first]) {
      const body = bodies[target - first];
      const file = /^_GLOBAL__sub_I_(.+)$/.exec(names.get(target) ?? "")?.[1];
      const place = (body && (firstUserPlace(atDefinitions, body, sourceName) ?? firstUserPlace(rows, body, sourceName))) ?? (file && sourceOfBasename(rows, file, sourceName));
      if (!place) continue; // the library's own (C++ streams): their use is named above
      messages.add(`${place}: error: a global object with a constructor is not available in a GpSimd kernel: static data is shared by the cores and outlives a launch; make it a constant (constexpr, or a plain array) or build the object inside the kernel`);
    }
  }
  return [...messages];
}

/** C stdio on FILEs and C++ streams: they write through FILE's function pointers, which end in WASI fd_write. */
const FILE_FUNCTIONS = new Set([
  "fprintf", "vfprintf", "vprintf", "fputs", "fputc", "putc", "fwrite", "fflush", "fopen", "fclose", "fread", "fgets", "fgetc",
  "getc", "getchar", "fscanf", "scanf", "vscanf", "perror", "fseek", "ftell", "rewind", "freopen", "setvbuf", "setbuf",
]);
const STREAM = /basic_(?:o|i|io|f|if|of)stream</;
function writesFiles(name: string): boolean {
  return FILE_FUNCTIONS.has(name) || STREAM.test(name);
}

const AT_EXIT_REASON = "its destructor would run at exit, but static data outlives a launch, whose heap is emptied; make the object a local, or a constant";

function reason(needs: Set<string>): string {
  const wasi = [...needs].filter((n) => !AT_EXIT.has(n)).sort();
  if (!wasi.length) return `it registers a destructor to run at exit: ${AT_EXIT_REASON}`;
  return `it needs ${hostNeed(wasi[0])} (WASI ${wasi.join(", ")})`;
}

/** The direct calls of a function body, with the byte offset of each call in the module. */
function callsIn(wasm: Uint8Array, body: FunctionBody): { target: number; offset: number }[] {
  const out: { target: number; offset: number }[] = [];
  for (const ins of decodeBody(wasm, body)) {
    if (ins.prefix === 0 && ins.code === OP_CALL) out.push({ target: new ByteReader(wasm, ins.start + 1, ins.end).u32(), offset: ins.start });
  }
  return out;
}

/**
 * The kernel's place ("file:line") of the instruction at `offset`: its own line-table row when that is in the
 * kernel's sources, else (code inlined from a library header) the nearest row of the kernel's sources before it in
 * the same function; null when the function has none (library code).
 */
function placeFinder(rows: LineRow[], sourceName: (file: string) => string): (offset: number, body: FunctionBody) => string | null {
  const isUser = (row: LineRow) => row.line > 0 && !sourceName(row.file).startsWith("~lib/");
  return (offset, body) => {
    let lo = 0, hi = rows.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (rows[mid].offset <= offset) lo = mid + 1; else hi = mid; }
    for (let k = lo - 1; k >= 0 && rows[k].offset >= body.start; k--) {
      if (isUser(rows[k])) return `${sourceName(rows[k].file)}:${rows[k].line}`;
    }
    return null;
  };
}

/** The first place in the kernel's sources inside a function body, if any. */
function firstUserPlace(rows: LineRow[], body: FunctionBody, sourceName: (file: string) => string): string | null {
  const row = rows.find((r) => r.offset >= body.start && r.offset < body.end && r.line > 0 && !sourceName(r.file).startsWith("~lib/"));
  return row ? `${sourceName(row.file)}:${row.line}` : null;
}

/**
 * The kernel source whose base name is `base` (as clang spells it in _GLOBAL__sub_I_<base>: every character but
 * letters, digits, '_' and '.' becomes '_', so my-kernel.cpp is my_kernel.cpp), from the line table's files.
 */
function sourceOfBasename(rows: LineRow[], base: string, sourceName: (file: string) => string): string | null {
  const spelled = (file: string) => file.slice(file.lastIndexOf("/") + 1).replace(/[^A-Za-z0-9_.]/g, "_");
  const row = rows.find((r) => !sourceName(r.file).startsWith("~lib/") && spelled(r.file) === base);
  return row ? sourceName(row.file) : null;
}

/** A demangled name as a C++ author writes it: libc++'s inline namespace and ABI tags left out. */
function shortName(name: string): string {
  const s = name.replace(/std::__\d+::/g, "std::").replace(/\[abi:\w+\]/g, "");
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}
