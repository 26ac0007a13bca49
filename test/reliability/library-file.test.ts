// Library files carry an integrity check: a file truncated at any section
// boundary or inside a section, or with any byte changed, is refused with
// LibraryFormatError (never a raw CompileError, SyntaxError or TypeError),
// and a failed load keeps no device memory.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { custom_op, randn, hbm, LibraryFormatError, GpsimdError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, values } from "../helpers.js";
import { GROUP } from "./memory-world.js";

const NAME = "memory_file_integrity";
let original: Uint8Array;
let dir: string;

beforeAll(() => {
  const lib = custom_op.load({
    name: NAME, compute_srcs: [fixturePath(GROUP, "static-table.ts")],
    shape_srcs: [fixturePath(GROUP, "register-lifetimes.ts"), fixturePath(GROUP, "shape.ts")], build_directory: TEST_BUILD_DIR,
  });
  lib.unload();
  original = new Uint8Array(readFileSync(path.join(TEST_BUILD_DIR, `lib${NAME}.wasm`))); // a copy: a Buffer's slice() would be a view
  dir = mkdtempSync(path.join(tmpdir(), "gpsimd-integrity-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where each top-level section of a wasm file starts, its payload starts and it ends (read independently of the loader). */
function sections(bytes: Uint8Array): { start: number; payload: number; end: number }[] {
  const out: { start: number; payload: number; end: number }[] = [];
  let at = 8;
  while (at < bytes.length) {
    const start = at++;
    let size = 0, shift = 0, b: number;
    do { b = bytes[at++]; size += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    out.push({ start, payload: at, end: at + size });
    at += size;
  }
  return out;
}

/** Loads bytes as a library file; returns what was thrown (null if it loaded, then unloads it). */
function loadBytes(bytes: Uint8Array): unknown {
  const file = path.join(dir, `lib${NAME}.wasm`);
  writeFileSync(file, bytes);
  try {
    custom_op.load_library(file).unload();
    return null;
  } catch (e) {
    return e;
  }
}

function expectRefused(bytes: Uint8Array, what: string): void {
  const e = loadBytes(bytes);
  expect(e, `${what}: ${String(e)}`).toBeInstanceOf(LibraryFormatError);
  expect((e as GpsimdError).message, what).toContain(`lib${NAME}.wasm`);
}

describe("a damaged library file is LibraryFormatError and leaks nothing", () => {
  it("the intact file loads and runs", () => {
    const file = path.join(dir, `lib${NAME}.wasm`);
    writeFileSync(file, original);
    const lib = custom_op.load_library(file);
    const x = randn([16], { seed: 1 });
    expect(values(lib.call("scale_by_table", [x]))[1]).toBe(Math.fround(values(x)[1] * -2));
    lib.unload();
  });

  it("truncated at every section boundary, inside every section, and inside the last one", () => {
    const before = hbm().bytesInUse;
    const cuts = new Set<number>([0, 4, 8]);
    for (const s of sections(original)) for (const at of [s.start, s.start + 1, s.payload, (s.payload + s.end) >> 1, s.end - 1]) cuts.add(at);
    for (let k = 1; k <= 40; k++) cuts.add(original.length - k); // the integrity section itself, byte by byte
    for (const at of cuts) if (at < original.length) expectRefused(original.subarray(0, at), `truncated to ${at} bytes`);
    expect(hbm().bytesInUse).toBe(before);
  });

  it("a flipped byte anywhere in the file (a sample of 300 places, every section included)", () => {
    const before = hbm().bytesInUse;
    const places = new Set<number>();
    for (let i = 0; i < 240; i++) places.add(Math.floor((i * original.length) / 240));
    for (const s of sections(original)) places.add(s.start).add(s.payload).add(s.end - 1);
    for (const at of places) {
      const bad = original.slice();
      bad[at] ^= 0x01 << (at % 8);
      expectRefused(bad, `bit ${at % 8} of byte ${at} flipped`);
    }
    expect(hbm().bytesInUse).toBe(before);
  });

  it("a folder, an empty file, and a file of the previous format without an integrity section", () => {
    const e = (() => { try { custom_op.load_library(dir); return null; } catch (err) { return err; } })();
    expect(e).toBeInstanceOf(LibraryFormatError);
    expect((e as GpsimdError).code).toBe("E_LIBRARY_READ");
    expect((e as GpsimdError).message).toContain("is a folder");
    expectRefused(new Uint8Array(0), "empty");
    const last = sections(original).at(-1)!;
    expectRefused(original.subarray(0, last.start), "without its integrity section");
  });
});
