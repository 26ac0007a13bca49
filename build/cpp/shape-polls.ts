// C++ shape modules made stoppable, with their lines: a shape function (or a
// NEURON_LIBRARY body) runs on the calling thread, so an endless loop in it
// would hang the process. The module gets the kernels' stop polls
// (build/stop-polls.ts: at every loop head and at the entry of every function
// that calls another), whose stop word the host keeps set while shape code
// runs: each poll calls the host's gpsimd.stop, which looks at the clock
// every few thousand polls and stops the call past its deadline
// (host/library/cpp-shapes.ts). The host's memory is not shared with the
// shape module, so no other thread could set the word: the polls ask. Shape
// functions are small; a poll costs a host call.
//
// The line table (clang's DWARF, compiled with -gline-tables-only) becomes a
// source map that goes through the Binaryen pass and into the module as the
// custom section SHAPE_SOURCE_MAP_SECTION, so the stop names the shape
// source's line.
import binaryen from "binaryen";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { insertStopPolls } from "../stop-polls.js";
import { readLineTable, lineTableSourceMap } from "./dwarf-lines.js";
import { stripDwarf } from "./post-link.js";
import { runBinaryenTool } from "./binaryen-tools.js";
import { CPP_INCLUDE_DIR } from "./clang-driver.js";

/** The custom section that holds a shape module's source map (JSON text). */
import { SHAPE_SOURCE_MAP_SECTION } from "./shape-section-names.js";
export { SHAPE_SOURCE_MAP_SECTION };

/** A shape source's file as the map names it: gpsimd's headers and the C++ library as library files (~lib/). */
function mapName(file: string): string {
  if (file.startsWith(CPP_INCLUDE_DIR)) return `~lib/gpsimd/include/${path.relative(CPP_INCLUDE_DIR, file)}`;
  if (!path.isAbsolute(file) || file.startsWith("/usr/") || file.startsWith("/lib/")) return `~lib/${file.replace(/^\/+/, "")}`;
  return file;
}

/** The shape module (linked with DWARF line tables) with stop polls, its source map in a custom section. */
export async function stoppableShapeModule(linked: Uint8Array): Promise<Uint8Array> {
  const rows = readLineTable(linked, (file) => mapName(file).startsWith("~lib/"));
  const sourceMap = lineTableSourceMap(rows, mapName);
  const dir = await mkdtemp(path.join(tmpdir(), "gpsimd-shape-"));
  let text: string;
  try {
    await writeFile(path.join(dir, "in.wasm"), stripDwarf(linked));
    await writeFile(path.join(dir, "in.map"), sourceMap);
    ({ stdout: text } = await runBinaryenTool("wasm-dis", [path.join(dir, "in.wasm"), "-sm", path.join(dir, "in.map"), "--enable-bulk-memory", "--enable-mutable-globals", "--enable-sign-ext", "--enable-nontrapping-float-to-int"]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const debugInfo = binaryen.getDebugInfo();
  binaryen.setDebugInfo(true); // keeps names and debug locations; a global setting of binaryen.js, restored below
  const module = binaryen.parseText(text);
  try {
    module.setFeatures(binaryen.Features.All);
    insertStopPolls(module);
    const out = module.emitBinary("shape.map");
    return withCustomSection(out.binary, SHAPE_SOURCE_MAP_SECTION, new TextEncoder().encode(out.sourceMap ?? "{}"));
  } finally {
    module.dispose();
    binaryen.setDebugInfo(debugInfo);
  }
}

/** The module with a custom section appended (after every other: no offset moves). */
function withCustomSection(wasm: Uint8Array, name: string, content: Uint8Array): Uint8Array {
  const nameBytes = new TextEncoder().encode(name);
  const body = [...leb(nameBytes.length), ...nameBytes];
  const size = body.length + content.length;
  const header = [0, ...leb(size)];
  const out = new Uint8Array(wasm.length + header.length + size);
  out.set(wasm, 0);
  out.set(header, wasm.length);
  out.set(body, wasm.length + header.length);
  out.set(content, wasm.length + header.length + body.length);
  return out;
}

function leb(n: number): number[] {
  const bytes: number[] = [];
  do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; bytes.push(b); } while (n);
  return bytes;
}
