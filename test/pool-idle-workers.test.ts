// A core thread that a launch leaves out (its library has fewer threads than the pool has workers) sleeps at once
// instead of spinning, and is not woken for it: launches of a threads: 1 library made the pool's worker spin after
// every one, so a process that asked for one thread kept two CPUs busy; stopped spinning, it was woken and slept
// again at every launch.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, shutdown } from "gpsimd";
import { loadOp } from "../ops/index.js";
import { readdirSync, readFileSync } from "node:fs";

/** CPU milliseconds of the calling thread (from /proc: Linux) and of the whole process. */
function threadTimes(): { main: number; all: number } {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  const all = process.cpuUsage();
  return { main: (ticks * 1000) / CLOCK_TICKS, all: (all.user + all.system) / 1000 };
}

/** Voluntary context switches (a sleep, a futex wait) of every thread of the process but the calling one. */
function otherThreadsSleeps(): number {
  let n = 0;
  for (const tid of readdirSync("/proc/self/task")) {
    if (Number(tid) === process.pid) continue;
    try {
      const m = /voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/self/task/${tid}/status`, "utf8"));
      n += m ? Number(m[1]) : 0;
    } catch { /* the thread ended */ }
  }
  return n;
}

/** USER_HZ: the unit of /proc's CPU times (100 on Linux everywhere in practice). */
const CLOCK_TICKS = 100;

describe.skipIf(process.platform !== "linux")("the core pool's workers", () => {
  // Loaded first with two threads, so the pool has a worker; then a library that runs on the calling thread alone.
  const two = loadOp("relu_multicore", { threads: 2 });
  const one = loadOp("add_multicore", { threads: 1 });
  afterAll(async () => { two.unload(); one.unload(); await shutdown(); });

  it("neither spin through nor wake for the launches of a library that runs on the calling thread alone", () => {
    const x = randn([64, 1024], { seed: 3 });
    ops.relu_multicore.relu_forward(x).dispose(); // the worker has run cores: it spins for a while, then sleeps
    const a = randn([32, 1024], { seed: 4 }), b = randn([32, 1024], { seed: 5 });
    const sum = ops.add_multicore.tensor_add(a, b);
    const [ad, bd] = [a.data() as Float32Array, b.data() as Float32Array];
    expect(Array.from(sum.data() as Float32Array)).toEqual(Array.from(ad, (v, i) => Math.fround(v + bd[i])));
    sum.dispose();
    // Back-to-back launches for 600 ms: the calling thread is busy all along. A spinning worker takes about as much
    // CPU time as the calling thread gets (the launches come far more often than its 2 ms spin lasts; on a loaded
    // machine both get the same share), a sleeping one next to none. Compared per thread, so the load does not matter.
    // First the same for a while, untimed: V8 compiles the libraries' hot functions again on threads of its own.
    for (const warm = performance.now(); performance.now() - warm < 600;) ops.add_multicore.tensor_add(a, b).dispose();
    const before = threadTimes(), sleepsBefore = otherThreadsSleeps();
    const start = performance.now();
    let launches = 0;
    for (; performance.now() - start < 600; launches++) ops.add_multicore.tensor_add(a, b).dispose();
    const after = threadTimes(), sleeps = otherThreadsSleeps() - sleepsBefore;
    const main = after.main - before.main, others = after.all - before.all - main;
    expect(main, "the calling thread's CPU time (ms)").toBeGreaterThan(50);
    expect(others / main, `the other threads' CPU time (${others.toFixed(0)} ms) / the calling thread's (${main.toFixed(0)} ms)`).toBeLessThan(0.3);
    // Nor are they woken for such launches: woken, the worker slept again at once, a futex wake and a sleep per launch
    // (1.8 sleeps of the other threads per launch before; about 1 per 100 launches now, V8's own threads and the watchdog).
    expect(launches).toBeGreaterThan(500);
    expect(sleeps / launches, `the other threads slept ${sleeps} times in ${launches} launches`).toBeLessThan(0.1);
  });
});
