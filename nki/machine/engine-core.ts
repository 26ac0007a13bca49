// The tile engine's machinery under the instructions (engine.ts): one WebAssembly instance per thread
// over the shared device memory, and the scratch region its calls read operand descriptors from (only
// numbers cross into WebAssembly), with the init-map check every instruction starts with.
import { ENGINE_RANK, SLOT_ADDR, SLOT_DTYPE, SLOT_INIT, SLOT_SCALAR, SLOT_SHAPE, SLOT_STRIDES, PARAMS, slotOffset } from "./engine-layout.js";
import { collapse, operandError, unravel, type Operand, type UninitRead } from "./engine-operands.js";

/** The module's exports (assembly/nki/index.ts); s is always the scratch region's address. */
export interface EngineExports {
  elementwise(s: number, kind: number, code0: number, code1: number, flags: number): void;
  reduce(s: number, code: number, flags: number): void;
  matmul(s: number, accumulate: number): void;
  affine(s: number): void;
  scan(s: number, code0: number, code1: number): void;
  gather(s: number): number;
  max8(s: number): void;
  match8(s: number, reverse: number, replace: number, imm: number): void;
  firstUninit(s: number, k: number): number;
  markInit(s: number, k: number, value: number): void;
}

export abstract class EngineCore {
  protected readonly exports: EngineExports;
  protected i32: Int32Array = new Int32Array(0);
  protected f64: Float64Array = new Float64Array(0);

  constructor(module: WebAssembly.Module, protected readonly scratch: number, private readonly memory: WebAssembly.Memory) {
    if (!Number.isInteger(scratch) || scratch <= 0 || scratch % 64 !== 0) operandError(`the engine's scratch region must be a 64-byte aligned device address (got ${scratch})`);
    // sin, cos and tan are the host's (assembly/nki/float-ops.ts says why)
    const imports = { env: { memory, sin: Math.sin, cos: Math.cos, tan: Math.tan } };
    this.exports = new WebAssembly.Instance(module, imports).exports as unknown as EngineExports;
  }

  /**
   * The first read of a never-written element among the inputs, in row-major order of `walkShape` (the
   * instruction's shape; null: each input's own), the lowest input first at the same place. Reported by
   * the index in each input's own shape (a broadcast dimension gives 0).
   */
  protected firstUninit(reads: ({ operand: Operand; strides: readonly number[] } | null)[], walkShape: readonly number[] | null, ownShapes: readonly (readonly number[])[]): UninitRead | null {
    let best: { operand: number; linear: number } | null = null;
    reads.forEach((r, i) => {
      if (!r || !r.operand.init) return;
      const shape = walkShape ?? r.operand.shape;
      const walk = collapse(shape, [r.strides]);
      this.views();
      this.writeSlot(1, r.operand, walk.shape, walk.strides[0]!);
      const linear = this.exports.firstUninit(this.scratch, 1);
      if (linear >= 0 && (!best || linear < best.linear)) best = { operand: i, linear };
    });
    if (!best) return null;
    const { operand, linear } = best;
    const shape = walkShape ?? reads[operand]!.operand.shape;
    const own = ownShapes[operand]!;
    return { operand, index: unravel(linear, shape).map((v, d) => (own[d] === 1 ? 0 : v)) };
  }

  /** Fresh views when the memory has grown. */
  protected views(): void {
    const buffer = this.memory.buffer;
    if (buffer.byteLength !== this.i32.byteLength) {
      this.i32 = new Int32Array(buffer);
      this.f64 = new Float64Array(buffer);
    }
  }

  protected writeSlot(k: number, o: Operand, shape: readonly number[], strides: readonly number[]): void {
    const w = (this.scratch + slotOffset(k)) >> 2;
    const i32 = this.i32;
    i32[w + SLOT_ADDR] = o.addr | 0;
    i32[w + SLOT_DTYPE] = o.dtype;
    i32[w + SLOT_INIT] = (o.init ?? 0) | 0;
    i32[w + SLOT_SCALAR] = 0;
    for (let d = 0; d < ENGINE_RANK; d++) {
      i32[w + SLOT_SHAPE + d] = shape[d]!;
      i32[w + SLOT_STRIDES + d] = strides[d]!;
    }
  }

  protected writeScalar(k: number, value: number): void {
    const w = (this.scratch + slotOffset(k)) >> 2;
    this.i32.fill(0, w, w + 16);
    this.i32[w + SLOT_SCALAR] = 1;
    this.f64[(this.scratch + PARAMS) / 8 + k] = value;
  }
}
