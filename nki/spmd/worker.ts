// An SPMD worker thread: adopts the main thread's device memory, then for each
// job loads the kernel's program (once per source text), claims instances
// from the job's counter and runs each with the outputs instance 0 allocated,
// over the arenas the main thread set aside for it. It answers every job with
// one message (see protocol.ts for when a job is over); if the thread dies
// mid-job, its exit handler marks the job crashed so the caller does not wait.
import { workerData, type MessagePort } from "node:worker_threads";
import { adoptDeviceMemory } from "../../host/device/hbm.js";
import { errorToData } from "../../host/checks/errors.js";
import { setOutput } from "../../host/output.js";
import { instanceAt } from "./grid.js";
import { fromWire, outputRecord } from "./wire.js";
import { J_CLAIM, J_FAILED_AT, J_RUNNING, J_CRASHED, STARTED, S_STATE, S_IN_JOB, reportStartFailure, type JobMessage, type DoneMessage, type InstanceReport, type WorkerInit } from "./protocol.js";
import { prepareThread } from "./thread-resources.js";
import { recordWrites } from "./overlaps.js";
import { programOf, sourceFromText } from "../host/programs.js";
import { findKernel, launchKernel, countsOf } from "../host/runtime.js";

const init = workerData as WorkerInit & { port: MessagePort };
let threadOptions: ReturnType<typeof prepareThread>;
try {
  adoptDeviceMemory(init.memory);
  threadOptions = prepareThread(init.engine, init.resources, init.memory);
} catch (e) {
  reportStartFailure(init.started, e);
  throw e;
}
let current: Int32Array | null = null;

process.on("exit", () => {
  if (!current) return;
  Atomics.store(current, J_CRASHED, init.index + 1);
  Atomics.notify(current, J_RUNNING);
});

/** Lowers the job's failed-at mark to `index` (instances after it are not started). */
function markFailed(c: Int32Array, index: number): void {
  for (let seen = Atomics.load(c, J_FAILED_AT); index < seen; seen = Atomics.load(c, J_FAILED_AT)) Atomics.compareExchange(c, J_FAILED_AT, seen, index);
}

function runJob(job: JobMessage): DoneMessage {
  const c = new Int32Array(job.control);
  const answer: DoneMessage = { type: "done", seq: job.seq, worker: init.index, ran: [], writes: [] };
  let printed = "";
  const restore = setOutput({ printf: (text) => { printed += text; }, warn: (text) => { printed += `gpsimd warning: ${text}\n`; } });
  let index = -1;
  try {
    const program = programOf(sourceFromText(job.source, job.file));
    const kernel = findKernel(program, job.kernel);
    const args = job.args.map(fromWire);
    const kwargs = Object.fromEntries(Object.entries(job.kwargs).map(([k, v]) => [k, fromWire(v)]));
    const outputs = job.outputs.map(outputRecord);
    for (;;) {
      index = Atomics.add(c, J_CLAIM, 1);
      if (index >= job.count || index > Atomics.load(c, J_FAILED_AT)) break;
      printed = "";
      const t0 = performance.now();
      const result = recordWrites(answer.writes, job.checks, () => launchKernel(program, kernel, args, kwargs, {
        grid: job.grid, instance: instanceAt(job.grid, index), outputs, deadline: job.deadline, device: job.device as "trn1" | "trn2", checks: job.checks, ...threadOptions,
      }));
      const report: InstanceReport = { index, ms: performance.now() - t0, printed, counts: countsOf(result) };
      answer.ran.push(report);
    }
  } catch (e) {
    // A failure before the first claim (the program did not load here) is charged to the next instance this thread would run.
    if (index < 0) index = Atomics.add(c, J_CLAIM, 1);
    markFailed(c, index);
    answer.failed = { index, error: errorToData(e), printed };
  } finally {
    restore();
  }
  return answer;
}

const state = new Int32Array(init.started);
init.port.on("message", (job: JobMessage) => {
  const c = new Int32Array(job.control);
  Atomics.add(c, J_RUNNING, 1);
  Atomics.store(state, S_IN_JOB, job.seq);
  current = c;
  const answer = runJob(job);
  init.port.postMessage(answer);
  current = null;
  Atomics.store(state, S_IN_JOB, 0);
  Atomics.sub(c, J_RUNNING, 1);
  Atomics.notify(c, J_RUNNING);
});
Atomics.store(state, S_STATE, STARTED);
