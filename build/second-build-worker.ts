// The thread that compiles build B of an AssemblyScript library while the compiler thread compiles build A
// (build/second-build.ts says why). It keeps its own asc and Binaryen loaded between builds.
import { parentPort } from "node:worker_threads";
import { compileOnce } from "./asc.js";
import { kernelAscInput } from "./kernel-compile.js";
import type { SecondBuildJob, SecondBuildAnswer } from "./second-build.js";

parentPort!.on("message", async (job: SecondBuildJob) => {
  let answer: SecondBuildAnswer;
  try {
    const sourceCache = new Map<string, string>();
    const out = await compileOnce({ ...kernelAscInput(job.settings, false), memoryBase: job.memoryBase, sourceCache });
    answer = {
      id: job.id, binary: out.binary, text: out.text, texts: [...sourceCache],
      errors: out.diagnostics.filter((d) => d.category === "error").map((d) => d.message),
    };
  } catch (e) {
    answer = { id: job.id, binary: null, text: "", texts: [], errors: [], failure: e instanceof Error ? e.stack ?? e.message : String(e) };
  }
  parentPort!.postMessage(answer);
});
