// The tile engine on worker threads: the compiled module posted to two workers at once, each with its
// own scratch region, computing over the one shared device memory. The workers load the compiled engine
// from dist/ (npx tsc -p . first; npm test builds it).
import { describe, it, expect } from "vitest";
import { Worker } from "node:worker_threads";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { hbm } from "../../host/device/hbm.js";
import { engineModule, ENGINE_SCRATCH_BYTES, EngineDType as D, tileEngine } from "../../nki/machine/engine.js";
import { PACKAGE_ROOT } from "../../build/paths.js";
import { engineBytes } from "../../nki/machine/engine-build.js";
import { operand, fillWith, get, rng, indices } from "./engine-helpers.js";

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
import(workerData.engineUrl).then(({ tileEngineFromModule }) => {
  const { module, scratch, memory, out, a, b, rounds } = workerData;
  const engine = tileEngineFromModule(module, scratch, memory);
  for (let i = 0; i < rounds; i++) engine.binary("add", out, out, a);
  engine.matmul(b.out, b.st, b.mv, false);
  parentPort.postMessage("done");
}, (e) => parentPort.postMessage(String(e && e.stack || e)));
`;

describe("engine on worker threads", () => {
  it("the module imports only the shared memory and the host's sin/cos/tan, and has no data to write at instantiation", () => {
    const imports = WebAssembly.Module.imports(engineModule()).map((i) => `${i.module}.${i.name}:${i.kind}`).sort();
    expect(imports).toEqual(["env.cos:function", "env.memory:memory", "env.sin:function", "env.tan:function"]);
    const wasm = engineBytes();
    const sections: number[] = [];
    for (let p = 8; p < wasm.length;) {
      const id = wasm[p++]!;
      let size = 0, shift = 0, b: number;
      do { b = wasm[p++]!; size |= (b & 127) << shift; shift += 7; } while (b & 128);
      sections.push(id);
      p += size;
    }
    expect(sections).not.toContain(11); // data
  });

  it("two workers instantiate the posted module and compute at once over shared memory", async () => {
    const engineUrl = pathToFileURL(path.join(PACKAGE_ROOT, "dist", "nki", "machine", "engine.js")).href;
    const r = rng(77);
    const jobs = [0, 1].map(() => {
      const a = operand(D.F32, [64, 300]), out = operand(D.BF16, [64, 300]);
      fillWith(a, () => r(2)); fillWith(out, () => 0);
      const st = operand(D.F32, [40, 24]), mv = operand(D.F32, [40, 33]), mm = operand(D.F32, [24, 33]);
      fillWith(st, () => r(1)); fillWith(mv, () => r(1));
      return { a, out, b: { out: mm, st, mv }, scratch: hbm().alloc(ENGINE_SCRATCH_BYTES, "worker engine scratch") };
    });
    const rounds = 3;
    const results = await Promise.all(jobs.map((job) => new Promise<string>((resolve, reject) => {
      const w = new Worker(WORKER, { eval: true, workerData: { engineUrl, module: engineModule(), memory: hbm().memory, rounds, ...job } });
      w.once("message", (m: string) => { resolve(m); void w.terminate(); });
      w.once("error", reject);
    })));
    expect(results).toEqual(["done", "done"]);
    // the same instructions on the main thread's engine, into fresh outputs
    const e = tileEngine();
    for (const job of jobs) {
      const out = operand(D.BF16, job.out.shape);
      fillWith(out, () => 0);
      for (let i = 0; i < rounds; i++) e.binary("add", out, out, job.a);
      for (const i of indices(out.shape)) expect(get(job.out, i)).toBe(get(out, i));
      const mm = operand(D.F32, job.b.out.shape);
      e.matmul(mm, job.b.st, job.b.mv, false);
      for (const i of indices(mm.shape)) expect(get(job.b.out, i)).toBe(get(mm, i));
    }
  });
});
