// A worker thread of the core pool. It never returns to its event loop: it
// waits for a launch in shared memory, claims logical cores one at a time,
// runs the kernel on each, and reports through shared memory. Libraries
// arrive as messages, received synchronously when a launch needs them.
import { workerData, receiveMessageOnPort } from "node:worker_threads";
import { KernelInstance, type CoreSite } from "../kernel-instance.js";
import { createSourceLocator } from "../source-locator.js";
import { errorToData } from "../errors.js";
import { describeDescriptor } from "../describe.js";
import { sanitizerImports, isSanitized, type CoreBlock } from "../sanitizer.js";
import { CTX_DESC, DESC_BYTES, CTX_TCM_BASE, CTX_HEAP_END, CTX_DST, FLAG_MULTICORE, FLAG_PRINT_ALL_CORES, FLAG_TRACE, CTX_FLAGS } from "../layout.js";
import { TraceWriter, TRACE_CORE_BYTES } from "../trace.js";
import {
  C_SEQ, C_CLAIM, C_DONE, C_COMPLETE, C_NCORES, C_THREADS, C_LIBRARY, C_OP, C_TEMPLATE, C_COMMAND, C_LIBRARY_MESSAGES,
  C_PARKED, C_STATUS, C_CONTEXTS, C_SCALARS_BYTE_OFFSET, C_TRACE, COMMAND_EXIT, STATUS_RUNNING, STATUS_OK, STATUS_REPORT,
  STATUS_ERROR, MAILBOX_BYTES, claimWord, type WorkerInit, type WorkerMessage, type WorkerOp, type CoreReportData,
} from "./protocol.js";

const init = workerData as WorkerInit;
const control = new Int32Array(init.control);
const scalarsF64 = new Float64Array(init.control, C_SCALARS_BYTE_OFFSET);
const scalarsI64 = new BigInt64Array(init.control, C_SCALARS_BYTE_OFFSET);
const mailboxes = new Uint8Array(init.mailboxes);
const encoder = new TextEncoder();

interface WorkerLibrary { instance: KernelInstance; ops: WorkerOp[]; }
const libraries = new Map<number, WorkerLibrary>();
let messagesSeen = init.messagesAtStart;

/** Spin this long before parking: a launch that follows soon is picked up in ~µs instead of a futex wake. */
const SPIN_MS = Number(process.env.GPSIMD_WORKER_SPIN ?? 2);

function apply(msg: WorkerMessage): void {
  if (msg.type === "library") {
    const locator = msg.sourceMap ? createSourceLocator(msg.sourceMap, msg.offsetMap, msg.code) : null;
    const sanitizer = isSanitized(msg.module)
      ? sanitizerImports({ memory: init.memory, staticBase: msg.staticBase, staticBytes: msg.staticBytes, template: () => Atomics.load(control, C_TEMPLATE) >>> 0, coreBlocks })
      : undefined;
    libraries.set(msg.id, { instance: new KernelInstance(msg.module, init.memory, locator, sanitizer), ops: msg.ops });
  } else {
    libraries.delete(msg.id);
  }
}

/** Every core's private block in the launch in progress (the sanitizer names them in its messages). */
function coreBlocks(): CoreBlock[] {
  const view = new DataView(init.memory.buffer);
  return Array.from({ length: Atomics.load(control, C_NCORES) }, (_, core) => {
    const start = Atomics.load(control, C_CONTEXTS + core) >>> 0;
    return { core, start, end: view.getUint32(start + CTX_HEAP_END, true) };
  });
}

/** Receives the library messages broadcast since the last launch (posted before they were counted). */
function receiveLibraries(): void {
  const wanted = Atomics.load(control, C_LIBRARY_MESSAGES);
  while (messagesSeen < wanted) {
    const got = receiveMessageOnPort(init.port);
    if (!got) break;
    messagesSeen++;
    apply(got.message as WorkerMessage);
  }
}

// The libraries loaded before this worker started are already on the port.
for (let i = 0; i < init.replayed; i++) {
  const got = receiveMessageOnPort(init.port);
  if (got) apply(got.message as WorkerMessage);
}

/** Waits until the sequence number differs from `seen`; returns the new one. */
function waitForLaunch(seen: number): number {
  const until = performance.now() + SPIN_MS;
  for (;;) {
    const seq = Atomics.load(control, C_SEQ);
    if (seq !== seen) return seq;
    if (performance.now() > until) break;
  }
  // Parked: count ourselves first so the main thread knows a notify is needed. The count is
  // raised before re-checking C_SEQ (inside Atomics.wait), so a launch published after this
  // point either sees the count or changes C_SEQ before we sleep: no lost wake-up.
  Atomics.add(control, C_PARKED, 1);
  Atomics.wait(control, C_SEQ, seen);
  Atomics.sub(control, C_PARKED, 1);
  return Atomics.load(control, C_SEQ);
}

/** Claims the next core of launch seq, or returns -1 when none is left (or the launch is over). */
function claim(seq: number, ncores: number): number {
  for (;;) {
    const word = Atomics.load(control, C_CLAIM);
    if (word >>> 8 !== (seq & 0xFFFFFF)) return -1;
    const next = word & 0xFF;
    if (next >= ncores) return -1;
    if (Atomics.compareExchange(control, C_CLAIM, word, claimWord(seq, next + 1)) === word) return next;
  }
}

function writeReport(core: number, report: CoreReportData): void {
  let bytes = encoder.encode(JSON.stringify(report));
  if (bytes.length > MAILBOX_BYTES - 4) {
    // Too much to say: keep the error and the first warnings, and say that writes were lost.
    bytes = encoder.encode(JSON.stringify({ ...report, writes: [], warnings: [...report.warnings.slice(0, 20), "write log too large to report: cross-core checks skipped"], writesLost: true }));
  }
  const at = core * MAILBOX_BYTES;
  new DataView(init.mailboxes).setUint32(at, bytes.length, true);
  mailboxes.set(bytes, at + 4);
}

function runCore(seq: number, core: number): void {
  Atomics.store(control, C_STATUS + core, STATUS_RUNNING);
  let status = STATUS_OK;
  const lib = libraries.get(Atomics.load(control, C_LIBRARY));
  const op = lib?.ops[Atomics.load(control, C_OP)];
  const ctx = Atomics.load(control, C_CONTEXTS + core) >>> 0;
  try {
    if (!lib || !op) throw new Error(`worker ${init.index}: library ${Atomics.load(control, C_LIBRARY)} is not loaded here`);
    const template = Atomics.load(control, C_TEMPLATE) >>> 0;
    const view = new DataView(init.memory.buffer);
    const flags = view.getInt32(template + CTX_FLAGS, true);
    const args = op.kernel.params.map((p, i) =>
      p.kind === "tensor" ? ctx + CTX_DESC + i * DESC_BYTES : p.kind === "i64" ? scalarsI64[i] : scalarsF64[i]);
    const site: CoreSite = {
      op: op.name, core, ctx, multicore: (flags & FLAG_MULTICORE) !== 0, printAllCores: (flags & FLAG_PRINT_ALL_CORES) !== 0, kernel: op.kernel,
      tcmBase: view.getUint32(ctx + CTX_TCM_BASE, true),
      tensorName: (slot) => describeDescriptor(new DataView(init.memory.buffer), ctx, slot, op.kernel),
    };
    const traceArea = flags & FLAG_TRACE ? Atomics.load(control, C_TRACE) >>> 0 : 0;
    lib.instance.traceTo(traceArea ? new TraceWriter(new Float64Array(init.memory.buffer), (traceArea + core * TRACE_CORE_BYTES) / 8) : null, init.index);
    const outcome = lib.instance.run(site, op.kernel.name, args, template);
    const output = view.getUint32(ctx + CTX_DST, true);
    const returned = !site.multicore && outcome.returned !== 0 && outcome.returned !== output ? outcome.returned : 0;
    if (outcome.warnings.length || outcome.writes.length || outcome.droppedPrintf || returned) {
      writeReport(core, { warnings: outcome.warnings, writes: outcome.writes, dropped: outcome.droppedPrintf, returned });
      status = STATUS_REPORT;
    }
  } catch (e) {
    writeReport(core, { error: errorToData(e), warnings: [], writes: [], dropped: 0 });
    status = STATUS_ERROR;
  }
  // Publish the status before counting the core done: the main thread reads statuses
  // only after it has seen C_DONE reach the core count (seq-cst atomics order these).
  Atomics.store(control, C_STATUS + core, status);
  if (Atomics.add(control, C_DONE, 1) + 1 === Atomics.load(control, C_NCORES)) {
    Atomics.store(control, C_COMPLETE, seq);
    Atomics.notify(control, C_COMPLETE);
  }
}

let seen = init.seqAtStart;
for (;;) {
  seen = waitForLaunch(seen);
  if (Atomics.load(control, C_COMMAND) === COMMAND_EXIT) break;
  receiveLibraries();
  if (init.index >= Atomics.load(control, C_THREADS)) continue;
  const ncores = Atomics.load(control, C_NCORES);
  for (let core = claim(seen, ncores); core >= 0; core = claim(seen, ncores)) runCore(seen, core);
}
