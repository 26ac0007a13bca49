import { describe, it, expect, beforeAll } from "vitest";
import asc from "assemblyscript/asc";
import {
  RelocationError,
  decodeRelocatable,
  encodeRelocatable,
  makeRelocatable,
  relocateCode,
  relocateData,
  toOriginalOffset,
  type RelocatableModule,
} from "../build/relocate.js";
import {
  ByteReader,
  SectionId,
  decodeBody,
  opcodeName,
  readDataSegments,
  readFunctionBodies,
  readGlobals,
  readSections,
  type Instruction,
} from "../build/wasm-reader.js";

const A = 65536;
const B = A + 16777216;
const C = 1048576 + 4096;

// No --initialMemory: asc rejects a minimum that does not cover the static data (AS105 at base B with
// `--initialMemory 2`), so it picks the minimum itself and the two builds differ there, which makeRelocatable allows.
const FLAGS = [
  "-O3", "--runtime", "stub", "--importMemory", "--sharedMemory", "--maximumMemory", "65536",
  "--enable", "simd,threads", "--noExportMemory",
];

const SAMPLE = `
const T: StaticArray<i32> = [1, 2, 3];
const ARR: i32[] = [10, 20, 30];
const NAMES: StaticArray<string> = ["alpha", "beta"];
const BYTES = memory.data<u8>([5, 6, 7, 8]);
let current: string = "hello";
function twice(x: i32): i32 { return x * 2; }
function thrice(x: i32): i32 { return x * 3; }
const OPS: StaticArray<(x: i32) => i32> = [twice, thrice];

export function greet(): string { return "hi " + current; }
export function hello(): string { return "hello"; }
export function nameAt(i: i32): string { return NAMES[i]; }
export function sumT(): i32 { let s = 0; for (let i = 0; i < T.length; i++) s += unchecked(T[i]); return s; }
export function sumArr(): i32 { let s = 0; for (let i = 0; i < ARR.length; i++) s += ARR[i]; return s; }
export function bytesPtr(): usize { return BYTES; }
export function byteAt(i: i32): u8 { return load<u8>(i, BYTES); }
export function setCurrent(which: i32): void { current = which ? "one" : "two"; }
export function simd(): f32 { const v = v128.load(changetype<usize>(T)); return f32x4.extract_lane(f32x4.pmax(v, v), 2); }
export function atomicAdd(n: i32): i32 { return atomic.add<i32>(changetype<usize>(T), n); }
export function strLen(): i32 { return current.length; }
export function apply(i: i32, x: i32): i32 { return OPS[i](x); }
`;

/** Compiles AssemblyScript source with FLAGS at the given memory base. */
async function compile(source: string, base: number): Promise<Uint8Array<ArrayBuffer>> {
  let binary: Uint8Array<ArrayBuffer> | undefined;
  const stderr = asc.createMemoryStream();
  const { error } = await asc.main(["input.ts", "-o", "output.wasm", ...FLAGS, "--memoryBase", String(base)], {
    readFile: (name) => (name === "input.ts" ? source : null),
    writeFile: (name, contents) => {
      if (name === "output.wasm") binary = new Uint8Array(contents as Uint8Array);
    },
    listFiles: () => [],
    stdout: asc.createMemoryStream(),
    stderr,
  });
  if (error || !binary) throw new Error(`asc failed: ${error?.message}\n${stderr.toString()}`);
  return binary;
}

/** Every instruction of the code and global sections as text: opcode, fixed bytes and decoded address fields. */
function immediates(wasm: Uint8Array): string[] {
  const sections = readSections(wasm);
  const code = sections.find((s) => s.id === SectionId.code)!;
  const globals = sections.find((s) => s.id === SectionId.global)!;
  const describe = (ins: Instruction) => {
    const fixed = wasm.subarray(ins.start, ins.fields[0]?.start ?? ins.end);
    return `${opcodeName(ins)} [${fixed.join(" ")}] ${ins.fields.map((f) => `${f.kind}=${f.value}`).join(" ")}`;
  };
  return [
    ...readGlobals(wasm, globals).flatMap((g) => g.init.map(describe)),
    ...readFunctionBodies(wasm, code).flatMap((body) => decodeBody(wasm, body).map(describe)),
  ];
}

/** The active data segments of a build laid out from `base`. */
function dataImage(wasm: Uint8Array, base: number): Uint8Array {
  const data = readSections(wasm).find((s) => s.id === SectionId.data)!;
  const segments = readDataSegments(wasm, data).map((s) => ({
    at: s.offset[0].fields[0].value - base,
    bytes: wasm.subarray(s.data.start, s.data.end),
  }));
  const image = new Uint8Array(Math.max(...segments.map((s) => s.at + s.bytes.length)));
  for (const s of segments) image.set(s.bytes, s.at);
  return image;
}

/** Instantiates a build on a fresh shared memory, optionally pre-loaded with `data` at `base`, and calls its exports. */
async function run(wasm: Uint8Array<ArrayBuffer>, data?: { bytes: Uint8Array; base: number }): Promise<Record<string, unknown>> {
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 65536, shared: true });
  if (data) new Uint8Array(memory.buffer).set(data.bytes, data.base);
  const abort = () => {
    throw new Error("abort");
  };
  const { instance } = await WebAssembly.instantiate(wasm, { env: { memory, abort } });
  const fn = instance.exports as Record<string, (...args: number[]) => number>;
  const string = (ptr: number) => {
    const byteLength = new Uint32Array(memory.buffer, ptr - 4, 1)[0]!;
    return String.fromCharCode(...new Uint16Array(memory.buffer, ptr, byteLength / 2));
  };
  const results: Record<string, unknown> = {
    greet: string(fn.greet!()),
    hello: [fn.hello!(), string(fn.hello!())],
    names: [string(fn.nameAt!(0)), string(fn.nameAt!(1))],
    sumT: fn.sumT!(),
    sumArr: fn.sumArr!(),
    bytesPtr: fn.bytesPtr!(),
    byteAt: [0, 1, 2, 3].map((i) => fn.byteAt!(i)),
    simd: fn.simd!(),
    atomicAdd: [fn.atomicAdd!(5), fn.atomicAdd!(5)],
    apply: [fn.apply!(0, 7), fn.apply!(1, 7)],
  };
  fn.setCurrent!(1);
  results.afterSet = [string(fn.greet!()), fn.strLen!()];
  return results;
}

function expectRelocationError(action: () => unknown, message: RegExp): void {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(RelocationError);
    expect((error as RelocationError).code).toBe("E_RELOCATION");
    expect((error as Error).message).toMatch(message);
    return;
  }
  expect.fail("expected a RelocationError");
}

describe("makeRelocatable on asc builds", () => {
  let buildA: Uint8Array;
  let buildB: Uint8Array;
  let direct: Uint8Array<ArrayBuffer>;
  let m: RelocatableModule;

  beforeAll(async () => {
    [buildA, buildB, direct] = await Promise.all([compile(SAMPLE, A), compile(SAMPLE, B), compile(SAMPLE, C)]);
    m = makeRelocatable(buildA, buildB, A, B);
  });

  it("drops the data and data-count sections and finds relocations in code, globals and memarg offsets", () => {
    const sections = readSections(m.wasm);
    expect(sections.map((s) => s.id)).not.toContain(SectionId.data);
    expect(sections.map((s) => s.id)).not.toContain(SectionId.dataCount);
    const globals = sections.find((s) => s.id === SectionId.global)!;
    expect(m.codeRelocs.some((at) => at >= globals.contentStart && at < globals.end)).toBe(true); // let current = "hello"
    expect(m.codeRelocs.some((at) => m.wasm[at - 1] !== 0x41)).toBe(true); // the memarg offset of load<u8>(i, BYTES)
    expect(m.dataRelocs.length).toBeGreaterThan(0); // NAMES, ARR
  });

  it("restores build A when relocated to A", () => {
    expect(immediates(relocateCode(m, A))).toEqual(immediates(buildA));
    expect(relocateData(m, A)).toEqual(dataImage(buildA, A));
  });

  it("relocates code to the same immediates as a direct build at C", () => {
    const relocated = relocateCode(m, C);
    expect(WebAssembly.validate(relocated)).toBe(true);
    expect(immediates(relocated)).toEqual(immediates(direct));
  });

  it("relocates data to the direct build's image at C", () => {
    expect(relocateData(m, C)).toEqual(dataImage(direct, C));
  });

  it("runs like the direct build", async () => {
    const expected = await run(direct);
    expect(expected).toMatchObject({ greet: "hi hello", names: ["alpha", "beta"], sumT: 6, sumArr: 60, apply: [14, 21] });
    expect(await run(relocateCode(m, C), { bytes: relocateData(m, C), base: C })).toEqual(expected);
  });

  it("writes i32.const addresses of 2^31 and above as negative LEBs", () => {
    const base = 0x8000_0000;
    const [relative, high] = [relocateCode(m, 0), relocateCode(m, base)];
    expect(WebAssembly.validate(high)).toBe(true);
    for (const at of m.codeRelocs) {
      const [r, h] = [new ByteReader(relative, at), new ByteReader(high, at)];
      if (relative[at - 1] === 0x41) expect(h.s32()).toBe((r.s32() + base) | 0);
      else expect(h.u32()).toBe(r.u32() + base);
    }
  });

  it("rejects bases that overflow 32 bits", () => {
    expectRelocationError(() => relocateCode(m, 0xffff_ffff), /does not fit in 32 bits/);
    expectRelocationError(() => relocateData(m, 0xffff_ffff), /does not fit in 32 bits/);
  });

  it("maps every instruction, function body and section of the relocated module back to build A", () => {
    const starts = (wasm: Uint8Array) => {
      const sections = readSections(wasm).filter((s) => s.id !== SectionId.data && s.id !== SectionId.dataCount);
      const code = sections.find((s) => s.id === SectionId.code)!;
      const globals = sections.find((s) => s.id === SectionId.global)!;
      const bodies = readFunctionBodies(wasm, code);
      return [
        ...sections.flatMap((s) => [s.start, s.contentStart]),
        ...readGlobals(wasm, globals).flatMap((g) => g.init.map((ins) => ins.start)),
        ...bodies.flatMap((body) => [body.start, body.codeStart, ...decodeBody(wasm, body).map((ins) => ins.start)]),
      ];
    };
    const [relocated, original] = [starts(m.wasm), starts(buildA)];
    expect(relocated.length).toBe(original.length);
    expect(relocated.map((x) => toOriginalOffset(m.offsetMap, x))).toEqual(original);
    // The relocated code has the same layout as m.wasm; the anchors are sorted and each changes the shift.
    expect(starts(relocateCode(m, C))).toEqual(relocated);
    const anchors = Array.from({ length: m.offsetMap.length / 2 }, (_, i) => [m.offsetMap[2 * i]!, m.offsetMap[2 * i + 1]!]);
    expect(anchors[0]).toEqual([0, 0]);
    anchors.slice(1).forEach(([at, from], i) => {
      const [prevAt, prevFrom] = anchors[i]!;
      expect(at).toBeGreaterThan(prevAt!);
      expect(at! - from!).not.toBe(prevAt! - prevFrom!);
    });
    // Shifts change at least at every padded LEB that grew the code (a few relocs are already 5 bytes in build A).
    expect(anchors.length).toBeGreaterThan(m.codeRelocs.length / 2);
  });

  it("maps offsets before the first anchor and past the end linearly", () => {
    const map = Uint32Array.from([10, 4, 20, 30]);
    expect([0, 9, 10, 15, 19, 20, 100].map((x) => toOriginalOffset(map, x))).toEqual([0, 9, 4, 9, 13, 30, 110]);
    expect(toOriginalOffset(new Uint32Array(0), 7)).toBe(7);
  });

  it("round-trips through encode/decode", () => {
    const blob = encodeRelocatable(m);
    expect(decodeRelocatable(blob)).toEqual(m);
    expectRelocationError(() => decodeRelocatable(blob.subarray(0, blob.length - 1)), /wrong length/);
    expectRelocationError(() => decodeRelocatable(new Uint8Array(24)), /not a relocatable module/);
  });

  it("rejects builds of different sources", async () => {
    const other = await compile(SAMPLE.replace("x * 3", "x * 4"), B);
    expectRelocationError(() => makeRelocatable(buildA, other, A, B), /code section, function \d+, instruction 0x.. at offset \d+/);
  });

  it("rejects an immediate that differs by other than the delta", () => {
    const tampered = buildB.slice();
    const code = readSections(tampered).find((s) => s.id === SectionId.code)!;
    const small = readFunctionBodies(tampered, code)
      .flatMap((body) => decodeBody(tampered, body))
      .flatMap((ins) => ins.fields)
      .find((f) => f.kind === "i32.const" && f.value > 0 && f.value < 63)!;
    tampered[small.start]!++;
    expectRelocationError(() => makeRelocatable(buildA, tampered, A, B), /code section, function \d+, instruction 0x41 at offset \d+.*differ by 1/);
  });

  it("rejects static data that differs by other than the delta", () => {
    const tampered = buildB.slice();
    const at = Buffer.from(tampered).indexOf(Buffer.from("alpha", "utf16le"));
    tampered[at] = "A".charCodeAt(0);
    expectRelocationError(() => makeRelocatable(buildA, tampered, A, B), /data section, word at address \d+/);
  });
});

/** A module made of the given sections. */
function module(...sections: [id: number, content: number[]][]): Uint8Array {
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  return Uint8Array.from([...header, ...sections.flatMap(([id, content]) => [id, content.length, ...content])]);
}

describe("makeRelocatable on unsupported modules", () => {
  const memory: [number, number[]] = [SectionId.memory, [1, 0x00, 1]];
  const relocate = (wasm: Uint8Array) => () => makeRelocatable(wasm, wasm, A, B);

  it("rejects passive data segments", () => {
    expectRelocationError(relocate(module(memory, [SectionId.data, [1, 0x01, 1, 0x2a]])), /passive/);
  });

  it("rejects a data segment offset that is not an i32.const", () => {
    const globalImport = [1, 1, 0x65, 1, 0x67, 0x03, 0x7f, 0x00]; // (import "e" "g" (global i32))
    const wasm = module([SectionId.import, globalImport], memory, [SectionId.data, [1, 0x00, 0x23, 0x00, 0x0b, 1, 0x2a]]);
    expectRelocationError(relocate(wasm), /segment 0: the offset is not an i32.const/);
  });

  it("rejects more than one memory", () => {
    expectRelocationError(relocate(module([SectionId.memory, [2, 0x00, 1, 0x00, 1]])), /more than one memory/);
  });

  it("rejects memory.init", () => {
    const types: [number, number[]] = [SectionId.type, [1, 0x60, 0, 0]];
    const functions: [number, number[]] = [SectionId.function, [1, 0]];
    // i32.const 0 ×3, memory.init 0 0, end
    const body = [0, 0x41, 0, 0x41, 0, 0x41, 0, 0xfc, 8, 0, 0, 0x0b];
    const wasm = module(types, functions, memory, [SectionId.dataCount, [1]], [SectionId.code, [1, body.length, ...body]]);
    expectRelocationError(relocate(wasm), /function 0, instruction 0xfc 8 at offset \d+: memory.init/);
  });

  it("names an unknown opcode and its offset", () => {
    const body = [0, 0xff, 0x0b];
    const wasm = module([SectionId.type, [1, 0x60, 0, 0]], [SectionId.function, [1, 0]], [SectionId.code, [1, body.length, ...body]]);
    expectRelocationError(relocate(wasm), /code section, function 0: unknown opcode 0xff at offset \d+/);
  });
});

describe("instruction decoder", () => {
  it("knows every immediate asc can emit", () => {
    const zeros = (n: number) => Array<number>(n).fill(0);
    // [bytes, opcode name, address fields]
    const program: [number[], string, string[]?][] = [
      [[0x02, 0x80, 0x01], "0x02"], // block with type index 128 (s33)
      [[0x03, 0x40], "0x03"],
      [[0x04, 0x7f], "0x04"],
      [[0x0e, 2, 0, 1, 0], "0x0e"],
      [[0x11, 3, 0], "0x11"],
      [[0x1c, 1, 0x7b], "0x1c"],
      [[0xd0, 0x70], "0xd0"],
      [[0xd1], "0xd1"],
      [[0xd2, 0x81, 0x01], "0xd2"],
      [[0x25, 0], "0x25"],
      [[0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f], "0x42"],
      [[0x43, ...zeros(4)], "0x43"],
      [[0x44, ...zeros(8)], "0x44"],
      [[0x41, 0x7f], "0x41", ["i32.const=4294967295"]],
      [[0x2d, 0, 0x90, 0x4e], "0x2d", ["memarg offset=10000"]],
      [[0x3f, 0], "0x3f"],
      [[0x40, 0], "0x40"],
      [[0xc0], "0xc0"],
      [[0xfc, 0], "0xfc 0"],
      [[0xfc, 10, 0, 0], "0xfc 10"],
      [[0xfc, 11, 0], "0xfc 11"],
      [[0xfc, 12, 1, 0], "0xfc 12"],
      [[0xfc, 14, 0, 0], "0xfc 14"],
      [[0xfc, 17, 0], "0xfc 17"],
      [[0xfd, 0, 4, 16], "0xfd 0", ["memarg offset=16"]],
      [[0xfd, 12, ...zeros(16)], "0xfd 12"],
      [[0xfd, 13, ...zeros(16)], "0xfd 13"],
      [[0xfd, 21, 15], "0xfd 21"],
      [[0xfd, 84, 0, 8, 15], "0xfd 84", ["memarg offset=8"]],
      [[0xfd, 92, 2, 0], "0xfd 92", ["memarg offset=0"]],
      [[0xfd, 0xeb, 0x01], "0xfd 235"], // f32x4.pmax
      [[0xfe, 0, 2, 4], "0xfe 0", ["memarg offset=4"]],
      [[0xfe, 3, 0], "0xfe 3"],
      [[0xfe, 0x1e, 2, 0], "0xfe 30", ["memarg offset=0"]],
      [[0x0b], "0x0b"],
    ];
    const bytes = Uint8Array.from(program.flatMap(([b]) => b));
    const decoded = decodeBody(bytes, { start: 0, codeStart: 0, end: bytes.length });
    expect(decoded.map((ins) => [opcodeName(ins), ins.fields.map((f) => `${f.kind}=${f.value}`)])).toEqual(
      program.map(([, name, fields]) => [name, fields ?? []]),
    );
    expect(decoded.map((ins) => ins.end - ins.start)).toEqual(program.map(([b]) => b.length));
  });
});
