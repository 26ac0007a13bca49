// The sanitizer's per-access check as a tiny WebAssembly module, so that an
// instrumented kernel calls wasm, not JavaScript, on every load and store.
// It compares the address with four blocks kept in globals (the core's private
// block, the static data, the tensor last read, the tensor last written) and
// calls the JavaScript `miss` for anything else; the value hooks return their
// value. The module is assembled here byte by byte (about 450 bytes).
//
//   (func $load_ptr (param $id i32) (param $bytes i32) (param $offset i32) (param $addr i32) (result i32)
//     (local $a i64) (local $e i64)
//     a = u64(addr) + u64(offset); e = a + u64(bytes)
//     if (a >= privLo && e <= privHi) return addr      ;; and the same for static, and read (store_ptr: write)
//     return miss(addr, offset, bytes, 0)               ;; store_ptr: 1
//   )

const I32 = 0x7f, I64 = 0x7e, F32 = 0x7d, F64 = 0x7c;
const FUNC = 0x60, MUT = 0x01, EMPTY_BLOCK = 0x40, KIND_FUNC = 0x00, KIND_GLOBAL = 0x03;
const OP = {
  localGet: 0x20, localSet: 0x21, globalGet: 0x23, i32Const: 0x41, i64Const: 0x42, call: 0x10, if: 0x04, return: 0x0f, end: 0x0b,
  i32And: 0x71, i64LeU: 0x58, i64GeU: 0x5a, i64Add: 0x7c, i64ExtendI32U: 0xad,
};
const SECTION = { type: 1, import: 2, function: 3, global: 6, export: 7, code: 10 };

/** The globals, in index order: [lo, hi) of each block the fast path accepts. */
const GLOBALS = ["privateLo", "privateHi", "staticLo", "staticHi", "readLo", "readHi", "writeLo", "writeHi"] as const;
type GlobalName = (typeof GLOBALS)[number];
const g = (name: GlobalName) => GLOBALS.indexOf(name);

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, items: number[][]) => { const body = vec(items); return [id, ...uleb(body.length), ...body]; };
const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const body = (locals: number[][], code: number[]) => { const b = [...vec(locals), ...code, OP.end]; return [...uleb(b.length), ...b]; };

/** load_ptr / store_ptr: params (id, bytes, offset, addr); locals a = 4, e = 5. */
function checkBody(third: [GlobalName, GlobalName], store: number): number[] {
  const accept = (lo: GlobalName, hi: GlobalName) => [
    OP.localGet, 4, OP.globalGet, g(lo), OP.i64GeU, OP.localGet, 5, OP.globalGet, g(hi), OP.i64LeU, OP.i32And,
    OP.if, EMPTY_BLOCK, OP.localGet, 3, OP.return, OP.end,
  ];
  return body([[2, I64]], [
    OP.localGet, 3, OP.i64ExtendI32U, OP.localGet, 2, OP.i64ExtendI32U, OP.i64Add, OP.localSet, 4,
    OP.localGet, 4, OP.localGet, 1, OP.i64ExtendI32U, OP.i64Add, OP.localSet, 5,
    ...accept("privateLo", "privateHi"), ...accept("staticLo", "staticHi"), ...accept(...third),
    OP.localGet, 3, OP.localGet, 2, OP.localGet, 1, OP.i32Const, store, OP.call, 0,
  ]);
}

function assemble(): Uint8Array<ArrayBuffer> {
  // Types: 0 (i32 x4) -> i32 for the checks and miss; 1..4 (i32 id, T value) -> T for the value hooks.
  const types = [[FUNC, ...vec([[I32], [I32], [I32], [I32]]), 1, I32], ...[I32, I64, F32, F64].map((t) => [FUNC, 2, I32, t, 1, t])];
  const functions = [[0], [0], [1], [2], [3], [4]]; // load_ptr, store_ptr, val_i32, val_i64, val_f32, val_f64 (miss is function 0)
  const globals = GLOBALS.map(() => [I64, MUT, OP.i64Const, 0, OP.end]);
  const exports = [
    ...GLOBALS.map((n, i) => [...name(n), KIND_GLOBAL, i]),
    ...["load_ptr", "store_ptr", "val_i32", "val_i64", "val_f32", "val_f64"].map((n, i) => [...name(n), KIND_FUNC, i + 1]),
  ];
  const passValue = body([], [OP.localGet, 1]);
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(SECTION.type, types),
    ...section(SECTION.import, [[...name("js"), ...name("miss"), KIND_FUNC, 0]]),
    ...section(SECTION.function, functions),
    ...section(SECTION.global, globals),
    ...section(SECTION.export, exports),
    ...section(SECTION.code, [checkBody(["readLo", "readHi"], 0), checkBody(["writeLo", "writeHi"], 1), passValue, passValue, passValue, passValue]),
  ]);
}

let compiled: WebAssembly.Module | null = null;

/** The slow path: called with (addr, offset, bytes, store) for an access no block accepts; returns addr or throws. */
export type Miss = (addr: number, offset: number, bytes: number, store: number) => number;

/** One instance of the fast path: the functions a sanitized kernel imports, and the blocks they accept. */
export class FastPath {
  /** load_ptr, store_ptr and the value hooks, to import into the kernel. */
  readonly hooks: Record<"load_ptr" | "store_ptr" | "val_i32" | "val_i64" | "val_f32" | "val_f64", Function>;
  private readonly globals: Record<GlobalName, WebAssembly.Global>;

  constructor(miss: Miss) {
    compiled ??= new WebAssembly.Module(assemble());
    const exports = new WebAssembly.Instance(compiled, { js: { miss } }).exports;
    this.hooks = {
      load_ptr: exports.load_ptr as Function, store_ptr: exports.store_ptr as Function,
      val_i32: exports.val_i32 as Function, val_i64: exports.val_i64 as Function, val_f32: exports.val_f32 as Function, val_f64: exports.val_f64 as Function,
    };
    this.globals = Object.fromEntries(GLOBALS.map((n) => [n, exports[n] as WebAssembly.Global])) as Record<GlobalName, WebAssembly.Global>;
  }

  /** Accepts [lo, hi) for loads and stores (private, static), loads only (read) or stores only (write); an empty block accepts nothing. */
  accept(block: "private" | "static" | "read" | "write", lo: number, hi: number): void {
    this.globals[`${block}Lo`].value = BigInt(lo);
    this.globals[`${block}Hi`].value = BigInt(hi);
  }

  /** Accepts nothing: every access goes to miss. */
  clear(): void {
    for (const n of GLOBALS) this.globals[n].value = 0n;
  }
}
