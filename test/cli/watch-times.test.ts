// `gpsimd watch --verbose` splits a run's time (cli/watch-times.ts). A C++ build records details (the post-link
// passes, builds A and B of a stage that runs both) beside the stages they are part of; they were added to the sum
// of the stages as well, so "between stages" came out 0 ms however much of the build no stage covered.
import { describe, it, expect } from "vitest";
import { runTimeLines } from "../../cli/watch-times.js";
import type { BuildRecord } from "../../host/library/compile-service.js";
import type { CompileAnswer } from "../../build/compile-worker.js";

/** A C++ rebuild as the compiler thread reports it: 1000 ms, of which the stages cover 900 (details inside them). */
function cppBuild(): BuildRecord {
  const stages = [
    { name: "compile kernel (from precompiled headers)", ms: 300 },
    { name: "post-link passes on the kernel (builds A and B)", ms: 100 },
    { name: "post-link: line tables (wasm-dis, build A)", ms: 70, detail: true },
    { name: "post-link pass: ownership checks", ms: 20, detail: true },
    { name: "merge with the runtime, optimise (builds A and B)", ms: 500 },
    { name: "optimise -O3 (wasm-opt, build A)", ms: 450, detail: true },
    { name: "optimise -O3 (wasm-opt, build B)", ms: 460, detail: true },
  ];
  return { name: "giou_fixed", startMs: 1020, endMs: 2040, answer: { millis: 1000, stages } as unknown as CompileAnswer };
}

/** The milliseconds of the row named `name` (rows are "  name   value unit"). */
function rowMs(lines: string[], name: string): number {
  const line = lines.find((l) => l.trim().startsWith(name));
  expect(line, `a row "${name}" in:\n${lines.join("\n")}`).toBeDefined();
  const [, value, unit] = /([\d.]+) (s|ms|µs)$/.exec(line!.trim())!;
  return Number(value) * (unit === "s" ? 1000 : unit === "µs" ? 1e-3 : 1);
}

describe("gpsimd watch --verbose: a build's stages", () => {
  it("counts each stage once: details are listed under their stage and not added to the sum", () => {
    const lines = runTimeLines({ savedMs: 0, startMs: 1000, endMs: 2100 }, cppBuild());
    // 1000 ms on the thread, 300 + 100 + 500 in stages: 100 ms between them (the details' 1000 ms are inside those).
    expect(rowMs(lines, "between stages")).toBe(100);
    expect(rowMs(lines, "build of giou_fixed on the compiler thread")).toBe(1000);
    expect(rowMs(lines, "handing the build back")).toBe(20);
    expect(rowMs(lines, "loading onto the cores")).toBe(60);
    // A detail is indented one step further than the stage it belongs to.
    const indent = (name: string) => /^ */.exec(lines.find((l) => l.includes(name))!)![0].length;
    expect(indent("optimise -O3 (wasm-opt, build A)")).toBe(indent("merge with the runtime") + 2);
    expect(indent("post-link pass: ownership checks")).toBe(indent("post-link passes on the kernel") + 2);
  });

  it("says only the command's time when the library was up to date", () => {
    const lines = runTimeLines({ savedMs: 0, startMs: 40, endMs: 55 }, null);
    expect(rowMs(lines, "waiting for the save to settle")).toBe(40);
    expect(rowMs(lines, "the command (library up to date: no build)")).toBe(15);
  });
});
