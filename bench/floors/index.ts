// The floors of each workload (suite.ts Floor): plain wasm on one thread and
// split over the machine's threads, native C at two vector widths, and the
// copies the API makes a TCM kernel do (memcpy, in native C when a compiler is
// here, else memory.copy in plain wasm).
import { availableParallelism } from "node:os";
import { PlainWasm, type FloorExports } from "./plain-wasm.js";
import { nativeBinary, runNative, NATIVE_BUILDS, type NativeBuild } from "./native.js";

const NATIVE_BUILD_TITLES: Record<NativeBuild, string> = { "c-native": "-O3 -march=native (this CPU's full vector width)", "c-128bit": "-O3, SIMD limited to 128 bits (wasm's width)" };

function sizeText(bytes: number): string {
  return bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}
import type { Floor, Scope } from "../suite.js";

/** Threads a split floor uses: every CPU of the machine. */
export const FLOOR_THREADS = availableParallelism();

/** Below this many elements a thread split costs more than it saves: no split floor. */
const SPLIT_MIN = 1 << 16;

/** Why native floors are missing in this run (printed once in the suite's notes), or null. */
export function nativeFloorsMissing(): string | null {
  const bin = nativeBinary("c-native");
  return typeof bin === "string" ? null : bin.missing;
}

function timed(calls: number, call: () => void): number {
  const start = performance.now();
  for (let i = 0; i < calls; i++) call();
  return (performance.now() - start) / 1e3 / calls;
}

async function timedAsync(calls: number, call: () => Promise<void>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < calls; i++) await call();
  return (performance.now() - start) / 1e3 / calls;
}

/** What a workload computes, in the floor module's terms. */
interface FloorWork {
  fn: keyof FloorExports;
  /** Inputs in argument order (placed once in the floor's memory). */
  inputs: Float32Array[];
  /** Output elements. */
  outputs: number;
  /** Index range the function runs over, and the alignment a thread's part keeps (GIOU works in groups of 4 pairs). */
  total: number;
  align: number;
  /** The native workload and its size. */
  native: "giou" | "relu-fwd" | "relu-bwd";
  /** Bytes a TCM kernel copies between tensors and TCM per call (in + out). */
  copiedBytes: number;
  /** The same work done as a TCM kernel does it (copies through a 16 KB buffer per thread), if the module has it. */
  tcmFn?: keyof FloorExports;
}



/** The floors of one workload; `check` receives the plain-wasm output once, to be verified like any variant's. */
async function floorsOf(scope: Scope, work: FloorWork, check: (out: Float32Array) => void): Promise<Floor[]> {
  const bytes = work.inputs.reduce((s, x) => s + x.byteLength, 0) + work.outputs * 4 + work.copiedBytes + (1 << 20);
  const wasm = await PlainWasm.create(bytes);
  scope.atEnd(() => { void wasm.close(); });
  const inputs = work.inputs.map((x) => wasm.place(x));
  const out = wasm.place(work.outputs * 4);
  const f = wasm.exports[work.fn] as (...a: number[]) => void;
  const args = [out, ...inputs];
  f(...args, 0, work.total);
  check(wasm.read(out, work.outputs));
  const floors: Floor[] = [
    { name: "wasm-1t", title: "the kernel's arithmetic as plain wasm, one thread", burst: (calls) => timed(calls, () => f(...args, 0, work.total)) },
  ];
  if (FLOOR_THREADS > 1 && work.total >= SPLIT_MIN) {
    floors.push({
      name: `wasm-${FLOOR_THREADS}t`, title: `the same over ${FLOOR_THREADS} threads (spinning workers)`,
      burst: (calls) => timedAsync(calls, () => wasm.splitRun(FLOOR_THREADS, work.fn, args, work.total, work.align)),
    });
  }
  if (work.tcmFn) {
    // The least a TCM kernel can take on this machine: its copies and its arithmetic, with nothing of gpsimd around.
    const g = wasm.exports[work.tcmFn] as (...a: number[]) => void;
    const tcmArgs = [out, ...inputs];
    g(...tcmArgs, 0, work.total);
    check(wasm.read(out, work.outputs));
    floors.push({ name: "wasm-tcm-1t", title: "the same as a TCM kernel does it (copies through a 16 KB buffer), plain wasm, one thread", burst: (calls) => timed(calls, () => g(...tcmArgs, 0, work.total)) });
    if (FLOOR_THREADS > 1 && work.total >= SPLIT_MIN) {
      floors.push({
        name: `wasm-tcm-${FLOOR_THREADS}t`, title: `the same TCM scheme over ${FLOOR_THREADS} threads, a 16 KB buffer each`,
        burst: (calls) => timedAsync(calls, () => wasm.splitRun(FLOOR_THREADS, work.tcmFn!, tcmArgs, work.total, work.align)),
      });
    }
  }
  for (const build of Object.keys(NATIVE_BUILDS) as NativeBuild[]) {
    const bin = nativeBinary(build);
    if (typeof bin === "string") floors.push({ name: build, title: `native C, one thread: ${NATIVE_BUILD_TITLES[build]}`, burst: (calls) => runNative(bin, work.native, work.total, calls) });
  }
  const native = nativeBinary("c-native");
  if (typeof native === "string") {
    floors.push({ name: "memcpy", title: `memcpy of the ${sizeText(work.copiedBytes)} a TCM kernel copies, 4 KB at a time (native)`, burst: (calls) => runNative(native, "copy-chunks", work.copiedBytes, calls) });
  } else {
    const src = wasm.place(work.copiedBytes), buffer = wasm.place(16384);
    floors.push({ name: "memcpy", title: `memory.copy of the ${sizeText(work.copiedBytes)} a TCM kernel copies, 4 KB at a time (plain wasm)`, burst: (calls) => timed(calls, () => wasm.exports.copy_chunks(buffer, src, 4096, 0, work.copiedBytes)) });
  }
  return floors;
}

/** W1 floors for n box pairs. */
export function giouFloors(scope: Scope, pred: Float32Array, target: Float32Array, check: (out: Float32Array) => void): Promise<Floor[]> {
  const n = pred.length / 4;
  return floorsOf(scope, { fn: "giou", inputs: [pred, target], outputs: n, total: n, align: 4, native: "giou", copiedBytes: n * 36, tcmFn: "giou_tcm" }, check);
}

/** W2 floors: forward (x) or backward (grad, x). */
export function reluFloors(scope: Scope, inputs: Float32Array[], check: (out: Float32Array) => void): Promise<Floor[]> {
  const n = inputs[0].length;
  const backward = inputs.length === 2;
  return floorsOf(scope, {
    fn: backward ? "relu_backward" : "relu_forward", inputs, outputs: n, total: n, align: 16,
    native: backward ? "relu-bwd" : "relu-fwd", copiedBytes: n * 4 * (inputs.length + 1),
    ...(backward ? {} : { tcmFn: "relu_forward_tcm" as const }),
  }, check);
}
