// The lib<name>.wasm file: a WebAssembly module whose static-data addresses
// are relative (see build/relocate.ts), followed by custom sections that
// carry everything needed to load it in another process: the manifest
// (kernels, shape-function code, options), the static data, and the
// relocation tables; last, an integrity section: the SHA-256 of every byte
// before it, so a truncated or altered file never loads.
import { createHash } from "node:crypto";
import { LibraryFormatError } from "../checks/errors.js";
import type { KernelSignature } from "../../build/signatures.js";
import { readSections, readFunctionImports, SectionId } from "../../build/wasm-reader.js";
import { SANITIZE_MODULE } from "../checks/sanitizer-fast-path.js";
import type { ShapeModule } from "../../build/shape-sources.js";

export const LIBRARY_FORMAT = 2;

/** What a library file says about itself. */
export interface LibraryManifest {
  format: number;
  /** Build name: lib<name>.wasm. */
  name: string;
  abi: number;
  multicore: boolean;
  sanitize: boolean;
  extraCflags: string[];
  /** Bytes of private memory per core for the kernel heap. */
  heapBytes: number;
  kernels: KernelSignature[];
  shapeModules: ShapeModule[];
  /** C++ shape sources compiled for the host (build/cpp/shape-module.ts), base64; absent for TypeScript ones. */
  cppShapeModule?: string;
  /** Hash of the build settings and of every input file (build/hash.ts), to skip unchanged rebuilds. */
  hash: string;
  /** Every source file the build read: kernel sources and what they import, shape sources. */
  inputs: string[];
  /**
   * C++ libraries: the identity of the device runtime merged into the kernel module (build/cpp/runtime-cache.ts), so
   * a library merged with another runtime than the one gpsimd would use now is rebuilt (host/library/loader.ts).
   */
  runtime?: string;
  computeSrcs: string[];
  shapeSrcs: string[];
}

/** The parts of a library file. */
export interface LibraryParts {
  manifest: LibraryManifest;
  /** The module with relative addresses and no data segments. */
  wasm: Uint8Array;
  codeRelocs: Uint32Array;
  data: Uint8Array;
  dataRelocs: Uint32Array;
  /** (relocated offset, build offset) anchors, to map trap offsets to the source map. */
  offsetMap: Uint32Array;
  /** The compiler's source map (of the first build), or "" when there is none. */
  sourceMap: string;
}

/** The last section: SHA-256 of the file up to it. */
const INTEGRITY = "gpsimd.integrity";
const HASH_BYTES = 32;

const SECTIONS = ["gpsimd.manifest", "gpsimd.data", "gpsimd.code_relocs", "gpsimd.data_relocs", "gpsimd.offset_map", "gpsimd.source_map"] as const;

function leb(n: number): number[] {
  const out: number[] = [];
  do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n);
  return out;
}

function customSection(name: string, payload: Uint8Array): Uint8Array {
  const nameBytes = new TextEncoder().encode(name);
  const body = [...leb(nameBytes.length), ...nameBytes];
  const size = body.length + payload.length;
  const out = new Uint8Array(1 + leb(size).length + size);
  out.set([0, ...leb(size), ...body]);
  out.set(payload, out.length - payload.length);
  return out;
}

function u32Bytes(a: Uint32Array): Uint8Array {
  const out = new Uint8Array(a.length * 4);
  a.forEach((v, i) => new DataView(out.buffer).setUint32(i * 4, v, true));
  return out;
}

/** The bytes of a library file. */
export function encodeLibrary(parts: LibraryParts): Uint8Array {
  const sections = [
    customSection(SECTIONS[0], new TextEncoder().encode(JSON.stringify(parts.manifest))),
    customSection(SECTIONS[1], parts.data),
    customSection(SECTIONS[2], u32Bytes(parts.codeRelocs)),
    customSection(SECTIONS[3], u32Bytes(parts.dataRelocs)),
    customSection(SECTIONS[4], u32Bytes(parts.offsetMap)),
    customSection(SECTIONS[5], new TextEncoder().encode(parts.sourceMap)),
  ];
  const total = parts.wasm.length + sections.reduce((n, s) => n + s.length, 0);
  const body = new Uint8Array(total);
  body.set(parts.wasm);
  let at = parts.wasm.length;
  for (const s of sections) { body.set(s, at); at += s.length; }
  const seal = customSection(INTEGRITY, sha256(body));
  const out = new Uint8Array(total + seal.length);
  out.set(body);
  out.set(seal, total);
  return out;
}

function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(bytes).digest());
}

/** The integrity section every file ends with. */
const SEAL_LENGTH = customSection(INTEGRITY, new Uint8Array(HASH_BYTES)).length;

/** Checks the integrity section at the end of the file; returns the length of what it covers. */
function checkIntegrity(bytes: Uint8Array, where: string): number {
  const start = bytes.length - SEAL_LENGTH;
  const expected = customSection(INTEGRITY, new Uint8Array(HASH_BYTES)).subarray(0, SEAL_LENGTH - HASH_BYTES);
  const header = start >= 8 ? bytes.subarray(start, start + expected.length) : null;
  if (!header || header.some((b, i) => b !== expected[i])) {
    throw new LibraryFormatError("E_LIBRARY_FORMAT", `${where} is damaged or incomplete (it does not end with its ${INTEGRITY} section: truncated, or built by an older gpsimd); rebuild it with custom_op.load`);
  }
  const stored = bytes.subarray(bytes.length - HASH_BYTES);
  const actual = sha256(bytes.subarray(0, start));
  if (stored.some((b, i) => b !== actual[i])) {
    throw new LibraryFormatError("E_LIBRARY_INTEGRITY", `${where} is damaged: its contents do not match the SHA-256 it was written with (a changed or corrupted byte); rebuild it with custom_op.load`);
  }
  return start;
}

/** Splits a library file into its parts; `where` names the file in errors. Any damage is LibraryFormatError. */
export function decodeLibrary(input: Uint8Array, where: string): LibraryParts {
  // A Buffer's slice() is a view, not a copy: work on a plain Uint8Array.
  const file = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (file.length < 8 || file[0] !== 0 || file[1] !== 0x61 || file[2] !== 0x73 || file[3] !== 0x6d) {
    throw new LibraryFormatError("E_LIBRARY_FORMAT", `${where} is not a WebAssembly file`);
  }
  const bytes = file.subarray(0, checkIntegrity(file, where));
  try {
    return splitSections(bytes, where);
  } catch (e) {
    if (e instanceof LibraryFormatError) throw e;
    // The hash matched, so the file is as written: a writer bug, not damage in transit.
    throw new LibraryFormatError("E_LIBRARY_FORMAT", `${where} cannot be read: ${e instanceof Error ? e.message : String(e)}; rebuild it with custom_op.load`, { cause: e });
  }
}

/**
 * The mode the manifest claims is the module's: a sanitize-mode kernel module imports the sanitizer's checks, a normal
 * one does not. (A C++ library merged with the other mode's device runtime, from a damaged cache, would otherwise
 * fail every call with an untyped TypeError about a missing import.)
 */
function checkSanitizeMode(wasm: Uint8Array, manifest: LibraryManifest, where: string): void {
  const imports = readSections(wasm).find((s) => s.id === SectionId.import);
  const checked = imports ? readFunctionImports(wasm, imports).some((i) => i.module === SANITIZE_MODULE) : false;
  if (checked === manifest.sanitize) return;
  throw new LibraryFormatError("E_LIBRARY_MODE", `${where} says it was built ${manifest.sanitize ? "in sanitize mode" : "without sanitize"}, but its kernel module ${checked ? "imports" : "lacks"} the sanitizer's checks (it was merged with the other mode's device runtime); rebuild it with custom_op.load`);
}

function splitSections(bytes: Uint8Array, where: string): LibraryParts {
  const found = new Map<string, Uint8Array>();
  let firstCustom = -1;
  let at = 8;
  const byte = (i: number) => {
    if (i >= bytes.length) throw new LibraryFormatError("E_LIBRARY_FORMAT", `${where} ends inside a section header; rebuild it`);
    return bytes[i];
  };
  while (at < bytes.length) {
    const start = at;
    const id = byte(at++);
    let size = 0, shift = 0, b: number;
    do { b = byte(at++); size += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    const end = at + size;
    if (end > bytes.length) throw new LibraryFormatError("E_LIBRARY_FORMAT", `${where}: a section runs past the end of the file; rebuild it`);
    if (id === 0) {
      let len = 0; shift = 0; let p = at;
      do { b = byte(p++); len += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
      const name = new TextDecoder().decode(bytes.subarray(p, p + len));
      if ((SECTIONS as readonly string[]).includes(name)) {
        if (firstCustom < 0) firstCustom = start;
        found.set(name, bytes.subarray(p + len, end));
      }
    }
    at = end;
  }
  for (const name of SECTIONS) {
    if (!found.has(name)) throw new LibraryFormatError("E_LIBRARY_FORMAT", `${where} is not a gpsimd library (no ${name} section); build it with custom_op.load`);
  }
  const manifest = JSON.parse(new TextDecoder().decode(found.get(SECTIONS[0]))) as LibraryManifest;
  if (manifest.format !== LIBRARY_FORMAT) {
    throw new LibraryFormatError("E_LIBRARY_FORMAT", `${where} has library format ${manifest.format}; this gpsimd reads format ${LIBRARY_FORMAT}: rebuild it`);
  }
  const u32 = (b: Uint8Array) => { const c = b.slice(); return new Uint32Array(c.buffer, 0, c.length >> 2); };
  const wasm = bytes.slice(0, firstCustom);
  checkSanitizeMode(wasm, manifest, where);
  return {
    manifest,
    wasm,
    data: found.get(SECTIONS[1])!.slice(),
    codeRelocs: u32(found.get(SECTIONS[2])!),
    dataRelocs: u32(found.get(SECTIONS[3])!),
    offsetMap: u32(found.get(SECTIONS[4])!),
    sourceMap: new TextDecoder().decode(found.get(SECTIONS[5])),
  };
}
