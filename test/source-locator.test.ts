import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { compileOnce } from "../build/asc.js";
import { makeRelocatable, relocateCode, relocateData, toOriginalOffset, type RelocatableModule } from "../build/relocate.js";
import { SectionId, decodeBody, readFunctionBodies, readSections } from "../build/wasm-reader.js";
import { BUILD_BASE_A, BUILD_BASE_B } from "../host/library/build-constants.js";
import { createSourceLocator, functionName, type SourceLocator } from "../host/checks/source-locator.js";


/**
 * A kernel source; `// @name` marks the line where the trap called name happens. The loads of static data put
 * relocated (re-encoded) addresses before each trap, so that its offset moves.
 */
const KERNEL = `
const LIMITS = memory.data<i32>([0, 100]);

export function trap_unreachable(x: i32): i32 {
  if (x > load<i32>(LIMITS)) unreachable(); // @unreachable
  return x + 1;
}

export function trap_divide(a: i32, b: i32): i32 {
  const q = a / (b + load<i32>(LIMITS)); // @divide
  return q + 1;
}

// Recursive, so that it is not inlined into its caller (at most its first level is).
function helper_traps(n: i32): i32 {
  if (n > load<i32>(LIMITS, 4)) return helper_traps(n - 1) + 1;
  if (n > 0) unreachable(); // @helper
  return n;
}

export function trap_in_helper(n: i32): i32 {
  return helper_traps(n) * 2;
}
`;

function lineOf(marker: string): number {
  const index = KERNEL.split("\n").findIndex((line) => line.includes(`// @${marker}`));
  if (index < 0) throw new Error(`no marker ${marker}`);
  return index + 1;
}

const BASE = 2 * 1024 * 1024;

describe("createSourceLocator on a compiled kernel", () => {
  let dir: string;
  let file: string;
  let buildA: Uint8Array;
  let sourceMapA: string;
  let m: RelocatableModule;
  let locator: SourceLocator;
  let exports: Record<string, (...args: number[]) => number>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "gpsimd-locator-"));
    file = path.join(dir, "kernel.ts");
    await writeFile(file, KERNEL);
    const input = { sources: [file], optimizeLevel: 3, constants: {}, passes: [] };
    const [a, b] = await Promise.all([
      compileOnce({ ...input, memoryBase: BUILD_BASE_A }),
      compileOnce({ ...input, memoryBase: BUILD_BASE_B }),
    ]);
    for (const build of [a, b]) {
      if (!build.binary) throw new Error(`asc failed: ${build.diagnostics.map((d) => d.message).join("\n")}\n${build.text}`);
    }
    if (!a.sourceMap) throw new Error("asc wrote no source map");
    [buildA, sourceMapA] = [a.binary!, a.sourceMap];
    m = makeRelocatable(a.binary!, b.binary!, BUILD_BASE_A, BUILD_BASE_B);
    const code = relocateCode(m, BASE);
    locator = createSourceLocator(a.sourceMap, m.offsetMap, code);

    const memory = new WebAssembly.Memory({ initial: 64, maximum: 65536, shared: true });
    new Uint8Array(memory.buffer).set(relocateData(m, BASE), BASE);
    const module = new WebAssembly.Module(code);
    const imports: WebAssembly.Imports = {};
    for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
      const value =
        kind === "memory" ? memory
        : name === "abort" ? () => { throw new Error("abort"); }
        : () => 0;
      (imports[from] ??= {})[name] = value;
    }
    exports = new WebAssembly.Instance(module, imports).exports as typeof exports;
  }, 60_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Calls an export that must trap and returns the error. */
  function trap(name: string, ...args: number[]): Error {
    try {
      exports[name]!(...args);
    } catch (error) {
      expect(error).toBeInstanceOf(WebAssembly.RuntimeError);
      return error as Error;
    }
    return expect.fail(`${name} did not trap`);
  }

  /** The byte offset of the first wasm frame of a stack. */
  function firstOffset(stack: string): number {
    return parseInt(/wasm-function\[\d+\]:0x([0-9a-f]+)/.exec(stack)![1]!, 16);
  }

  it("relies on asc's source map format: one generated line, columns at instruction starts of build A", () => {
    const map = JSON.parse(sourceMapA) as { mappings: string };
    expect(map.mappings).not.toContain(";");
    const code = readSections(buildA).find((s) => s.id === SectionId.code)!;
    const starts = new Set(readFunctionBodies(buildA, code).flatMap((b) => decodeBody(buildA, b).map((ins) => ins.start)));
    const columns = map.mappings.split(",").map(unVlq).reduce<number[]>((acc, [delta]) => [...acc, (acc.at(-1) ?? 0) + delta!], []);
    expect(columns.length).toBeGreaterThan(10);
    expect(columns.filter((column) => !starts.has(column))).toEqual([]);
  });

  // [marker, export, arguments, message, innermost function, the text the column points at]
  it.each([
    ["unreachable", "trap_unreachable", [1], /unreachable/, "trap_unreachable", "unreachable()"],
    ["divide", "trap_divide", [7, 0], /divide by zero/, "trap_divide", "a / (b"],
    ["helper", "trap_in_helper", [101], /unreachable/, "helper_traps", "unreachable()"],
  ] as const)("locates the %s trap", (marker, name, args, message, innermost, token) => {
    const error = trap(name, ...args);
    expect(error.message).toMatch(message);
    const place = locator.locate(error.stack!);
    expect(place).not.toBeNull();
    expect(place!.file).toBe(file);
    expect(place!.line).toBe(lineOf(marker));
    expect(place!.column).toBe(KERNEL.split("\n")[place!.line - 1]!.indexOf(token) + 1);
    expect(place!.function).toContain(innermost);
  });

  it("needs the offset map: the relocated offsets differ from build A's", () => {
    const offsets = [trap("trap_unreachable", 1), trap("trap_divide", 1, 0), trap("trap_in_helper", 101)].map((e) =>
      firstOffset(e.stack!),
    );
    expect(offsets.every((x) => toOriginalOffset(m.offsetMap, x) !== x)).toBe(true);
  });

  it("returns null for a stack without wasm frames", () => {
    expect(locator.locate(new Error("plain").stack!)).toBeNull();
  });
});

// ---- a hand-made module and source map ----

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Base64 VLQ of one segment's fields. */
function vlq(fields: number[]): string {
  return fields
    .map((field) => {
      let value = field < 0 ? (-field << 1) | 1 : field << 1;
      let out = "";
      do {
        const digit = value & 31;
        value >>>= 5;
        out += BASE64[value ? digit | 32 : digit];
      } while (value);
      return out;
    })
    .join("");
}

/** The fields of one segment (the inverse of vlq). */
function unVlq(text: string): number[] {
  const fields: number[] = [];
  let [value, shift] = [0, 0];
  for (const c of text) {
    const digit = BASE64.indexOf(c);
    value += (digit & 31) << shift;
    shift += 5;
    if (digit & 32) continue;
    fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
    [value, shift] = [0, 0];
  }
  return fields;
}

/** Mappings for absolute [column, source, line, column] segments (or [column] for unmapped). */
function mappings(segments: number[][]): string {
  const last = [0, 0, 0, 0];
  return segments
    .map((segment) => {
      const deltas = segment.map((value, i) => value - last[i]!);
      segment.forEach((value, i) => { last[i] = value; });
      return vlq(deltas);
    })
    .join(",");
}

const name = (text: string) => [text.length, ...Buffer.from(text)];
const section = (id: number, content: number[]) => [id, content.length, ...content];

describe("createSourceLocator on a hand-made module", () => {
  // Two functions: 0 "~lib/x/f" and 1 "k/g", each `nop; nop; end`; an import-free module with a name section.
  const body = [0, 0x01, 0x01, 0x0b];
  const names = [2, 0, ...name("~lib/x/f"), 1, ...name("k/g")];
  const wasm = Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(SectionId.type, [1, 0x60, 0, 0]),
    ...section(SectionId.function, [2, 0, 0]),
    ...section(SectionId.code, [2, body.length, ...body, body.length, ...body]),
    ...section(SectionId.custom, [...name("name"), ...section(1, names)]),
  ]);
  const code = readSections(wasm).find((s) => s.id === SectionId.code)!;
  const [f, g] = readFunctionBodies(wasm, code).map((b) => b.codeStart); // the first nop of each
  // Pretend build A had 100 more bytes before g (a dropped section, say).
  const SHIFT = 100;
  const offsetMap = Uint32Array.from([0, 0, g! - 1, g! - 1 + SHIFT]);
  const sourceMap = JSON.stringify({
    version: 3,
    sources: ["~lib/x.ts", "dir/k.ts"],
    names: [],
    // g: its own line, then library code inlined into it (~lib/x.ts:21), then an unmapped instruction
    mappings: mappings([[f!, 0, 40, 7], [f! + 1, 0, 3, 2], [g! + SHIFT, 1, 9, 4], [g! + SHIFT + 1, 0, 20, 0], [g! + SHIFT + 2]]),
  });
  const locator = createSourceLocator(sourceMap, offsetMap, wasm);
  const frame = (index: number, offset: number) => `    at fn (wasm://wasm/1234abcd:wasm-function[${index}]:0x${offset.toString(16)})`;

  it("maps the innermost frame through the offset map and the source map; inlined library code to the kernel's line", () => {
    expect(locator.locate(`RuntimeError: unreachable\n${frame(1, g! + 1)}\n    at file:///x.js:1:1`)).toEqual({
      function: "k/g", file: "/dir/k.ts", line: 10, column: 5,
    });
    // V8's other spellings of a wasm frame
    expect(locator.locate(`Error\n    at <anonymous>:wasm-function[1]:0x${g!.toString(16)}`)).toMatchObject({ line: 10 });
    expect(locator.locate(`Error\n    at k/g (wasm-function[1]:0x${g!.toString(16)})`)).toMatchObject({ line: 10 });
  });

  it("takes the last segment at or before the offset, decoding negative deltas", () => {
    expect(locator.locate(frame(0, f!))).toEqual({ function: "~lib/x/f", file: "~lib/x.ts", line: 41, column: 8 });
    expect(locator.locate(frame(0, f! + 2))).toEqual({ function: "~lib/x/f", file: "~lib/x.ts", line: 4, column: 3 });
  });

  it("prefers the first frame outside ~lib/, else the first frame", () => {
    const stack = `RuntimeError: unreachable\n${frame(0, f! + 1)}\n${frame(1, g!)}`;
    expect(locator.locate(stack)).toMatchObject({ function: "k/g", file: "/dir/k.ts", line: 10 });
    expect(locator.locate(frame(0, f! + 1))).toMatchObject({ function: "~lib/x/f", file: "~lib/x.ts", line: 4 });
  });

  it("gives an unmapped instruction the function's last mapping before it, never another function's", () => {
    // after the unmapped segment in g: an operator follows its operands, mapped just before it
    expect(locator.locate(frame(1, g! + 2))).toEqual({ function: "k/g", file: "/dir/k.ts", line: 10, column: 5 });
    // g's locals come before its first segment; the last segment before them is f's
    expect(locator.locate(frame(1, g! - 1))).toEqual({ function: "k/g", file: null, line: 0, column: 0 });
    // a function without a name
    expect(locator.locate(frame(7, g!))).toMatchObject({ function: "wasm-function[7]" });
  });

  it("survives a broken source map", () => {
    expect(createSourceLocator("{", offsetMap, wasm).locate(frame(1, g!))).toEqual({
      function: "k/g", file: null, line: 0, column: 0,
    });
  });
});

describe("functionName", () => {
  const name = (fn: string) => functionName({ function: fn, file: null, line: 0, column: 0 });
  it("an AssemblyScript function without its module path", () => {
    expect(name("work/k/relu/relu_forward")).toBe("relu_forward");
  });
  it("a C++ function without its parameters; a C++ kernel's generated wrappers as the kernel", () => {
    expect(name("calls(long long)")).toBe("calls");
    expect(name("torch::Tensor::numel() const")).toBe("torch::Tensor::numel");
    expect(name("Box::operator()(float, float)")).toBe("Box::operator()");
    expect(name("gpsimd_kernel_giou_forward.command_export")).toBe("giou_forward");
    expect(name("gpsimd_kernel_giou")).toBe("giou");
    expect(name("gpsimd_call_scale(unsigned int, double, long long)")).toBe("scale");
  });
});
