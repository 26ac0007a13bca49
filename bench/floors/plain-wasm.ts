// The plain-wasm floor: the kernels' own arithmetic (wasm/floors.ts) compiled
// by asc as an ordinary WebAssembly module over a memory of its own, run on
// arrays already in place. What gpsimd adds (launch, TCM copies, checks) is
// the difference between a kernel and this floor, measured in the same run.
import path from "node:path";
import { readFile } from "node:fs/promises";
import asc from "assemblyscript/asc";
import { PACKAGE_ROOT } from "../../ops/index.js";
import { ThreadSplit, TCM_BUFFER_BYTES } from "./split.js";

/** The floor module's exports (addresses are byte offsets into its memory). */
export interface FloorExports {
  giou(out: number, pred: number, target: number, begin: number, end: number): void;
  giou_tcm(out: number, pred: number, target: number, begin: number, end: number): void;
  relu_forward(out: number, x: number, begin: number, end: number): void;
  relu_forward_tcm(out: number, x: number, begin: number, end: number): void;
  set_tcm_buffer(at: number): void;
  relu_backward(out: number, grad: number, x: number, begin: number, end: number): void;
  add(out: number, a: number, b: number, begin: number, end: number): void;
  copy_chunks(buffer: number, src: number, chunk: number, begin: number, end: number): void;
}

/** Threads a floor can be split over (each has a TCM-sized buffer of its own). */
const MAX_FLOOR_THREADS = 16;

const SOURCE = path.join(PACKAGE_ROOT, "bench", "floors", "wasm", "floors.ts");

let compiled: Promise<WebAssembly.Module> | null = null;

/** The floor module, compiled once per process (-O3, SIMD, shared imported memory like a kernel's). */
export function floorModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    let binary: Uint8Array | null = null, errors = "";
    const result = await asc.main([
      path.relative("/", SOURCE), "--outFile", "floors.wasm", "--optimizeLevel", "3", "--shrinkLevel", "0", "--runtime", "stub",
      "--importMemory", "--sharedMemory", "--initialMemory", "1", "--maximumMemory", "65536", "--enable", "simd,threads", "--baseDir", "/", "--noColors",
    ], {
      readFile: async (file: string, baseDir: string) => { try { return await readFile(path.resolve(baseDir, file), "utf8"); } catch { return null; } },
      writeFile: (file: string, contents: Uint8Array | string) => { if (file.endsWith(".wasm") && contents instanceof Uint8Array) binary = contents; },
      listFiles: () => [],
      stdout: { write: () => true }, stderr: { write: (s: string | Uint8Array) => { errors += String(s); return true; } },
    } as never);
    if (result.error || !binary) throw new Error(`bench floors: asc failed on ${SOURCE}: ${result.error?.message ?? ""}\n${errors}`);
    return new WebAssembly.Module(binary);
  })();
  return compiled;
}

/** A floor memory with its module instantiated on this thread and, for split runs, on threads - 1 workers. */
export class PlainWasm {
  readonly memory: WebAssembly.Memory;
  readonly exports: FloorExports;
  private next = 1024;
  private split: ThreadSplit | null = null;

  /** The TCM-sized buffers of the threads (the TCM floors'): thread t's is at tcmBuffers + t * TCM_BUFFER_BYTES. */
  readonly tcmBuffers: number;

  private constructor(readonly module: WebAssembly.Module, bytes: number) {
    const buffers = MAX_FLOOR_THREADS * TCM_BUFFER_BYTES;
    this.memory = new WebAssembly.Memory({ initial: Math.ceil((bytes + buffers + 65536) / 65536), maximum: 65536, shared: true } as WebAssembly.MemoryDescriptor);
    this.exports = new WebAssembly.Instance(module, { env: { memory: this.memory, abort: () => { throw new Error("floor module aborted"); } } }).exports as unknown as FloorExports;
    this.tcmBuffers = this.place(buffers);
    this.exports.set_tcm_buffer(this.tcmBuffers); // this thread is thread 0
  }

  /** A floor with room for `bytes` of arrays. */
  static async create(bytes: number): Promise<PlainWasm> {
    return new PlainWasm(await floorModule(), bytes);
  }

  /** Copies values into the floor's memory (64-byte aligned); returns their address. */
  place(values: Float32Array | number): number {
    const bytes = typeof values === "number" ? values : values.byteLength;
    const at = this.next;
    this.next = Math.ceil((at + bytes) / 4096) * 4096 + 2048; // like device memory: no 4K aliasing between arrays
    if (this.next > this.memory.buffer.byteLength) throw new Error("bench floors: floor memory too small");
    if (typeof values !== "number") new Float32Array(this.memory.buffer, at, values.length).set(values);
    return at;
  }

  /** Reads n float32 values at address. */
  read(at: number, n: number): Float32Array {
    return new Float32Array(this.memory.buffer, at, n).slice();
  }

  /** Runs export `fn` over [0, total) split evenly over `threads` threads (this one included), in parts aligned to `align`. */
  async splitRun(threads: number, fn: keyof FloorExports, fixed: number[], total: number, align: number): Promise<void> {
    if (threads > MAX_FLOOR_THREADS) throw new Error(`bench floors: at most ${MAX_FLOOR_THREADS} threads (${threads} asked)`);
    this.split ??= await ThreadSplit.start(this.module, this.memory, threads, this.tcmBuffers);
    this.split.run(this.exports, fn, fixed, total, align);
  }

  /** Stops the worker threads. */
  async close(): Promise<void> {
    await this.split?.close();
    this.split = null;
  }
}
