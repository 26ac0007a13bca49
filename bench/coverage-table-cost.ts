// What the cross-core overlap and gap check of a clean 8-core call costs, by thread, interleaved in one process:
// the calling thread reading and merging every core's write log (writeLog + tilesExactly: how every clean call was
// decided before host/cores/coverage-table.ts) against each core entering its run into the coverage table
// (enterCoreWrites, on the core's own thread) and the calling thread's coverageClean.
// `node dist/bench/coverage-table-cost.js`: nanoseconds per call, the best of 7 rounds of each.
import os from "node:os";
import { writeLog } from "../host/library/library.js";
import { tilesExactly, type CoreWrites } from "../host/checks/cross-core.js";
import { enterCoreWrites, coverageClean, SLOT_WORDS } from "../host/cores/coverage-table.js";
import { CTX_WLOG, CTX_WLOG_COUNT } from "../host/device/layout.js";
import { MAX_CORES } from "../host/cores/protocol.js";

const CORES = 8, PART = 16384, NUMEL = CORES * PART; // ReLU [32, 4096]: one run of 16384 elements per core
const memory = new WebAssembly.Memory({ initial: 16, maximum: 16, shared: true });
const view = new DataView(memory.buffer);
const ctxOf = (k: number) => (k + 1) * 32768; // a context block per core, as far apart as the memory allows
for (let k = 0; k < CORES; k++) {
  view.setInt32(ctxOf(k) + CTX_WLOG_COUNT, 1, true);
  view.setUint32(ctxOf(k) + CTX_WLOG, k * PART, true);
  view.setUint32(ctxOf(k) + CTX_WLOG + 4, (k + 1) * PART, true);
}
const table = new Uint32Array(new SharedArrayBuffer(MAX_CORES * SLOT_WORDS * 4));
let seq = 0;

const subjects: [string, () => void][] = [
  ["calling thread, before: 8 logs read and tilesExactly", () => {
    const writes: CoreWrites[] = [];
    for (let k = 0; k < CORES; k++) writes.push({ core: k, intervals: writeLog(view, ctxOf(k)) });
    if (!tilesExactly(writes, NUMEL)) throw new Error("not clean");
  }],
  ["each core, now: enterCoreWrites (one core's share)", () => {
    seq++;
    for (let k = 0; k < CORES; k++) enterCoreWrites(table, k, CORES, seq, view, ctxOf(k), [], []);
  }],
  ["calling thread, now: coverageClean", () => {
    if (!coverageClean(table, CORES, seq, NUMEL)) throw new Error("not clean");
  }],
];
const CALLS = 100_000;
const best = new Map<string, number>();
for (let round = 0; round < 7; round++) {
  for (const [name, fn] of subjects) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) fn();
    const ns = ((performance.now() - start) * 1e6) / CALLS / (name.startsWith("each core") ? CORES : 1);
    best.set(name, Math.min(best.get(name) ?? Infinity, ns));
  }
}
console.log(`coverage-table-cost: ns per 8-core call (best of 7 rounds of ${CALLS}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const [name, ns] of best) console.log(`  ${name.padEnd(56)} ${ns.toFixed(0)} ns`);
