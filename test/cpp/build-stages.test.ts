// Where a C++ build's time goes: `gpsimd build --verbose` prints the build's stages as the compiler thread timed
// them (build/build-stages.ts), each one a C++ build has, with non-negative times that add up to the build's total;
// and the breakdown's arithmetic on hand-made stages.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { FIXTURES_DIR } from "../helpers.js";
import { gpsimd } from "../cli/run-cli.js";
import { formatStages, stagesTotal } from "../../build/build-stages.js";

const FOLDER = path.join(FIXTURES_DIR, "cpp-cli", "relu_cpp");

describe("formatStages", () => {
  it("lists each stage with its share of the total, details indented and left out of the sum, and what no stage covers", () => {
    const stages = [{ name: "compile", ms: 600 }, { name: "post-link", ms: 300 }, { name: "pass x", ms: 100, detail: true }];
    expect(stagesTotal(stages)).toBe(900);
    expect(formatStages(stages, 1000)).toEqual([
      "compile       600 ms   60 %",
      "post-link     300 ms   30 %",
      "  pass x      100 ms",
      "other         100 ms   10 %",
    ]);
  });
});

describe("gpsimd build --verbose on C++", () => {
  let out: string;
  let stderr = "";
  let code = -1;
  beforeAll(async () => {
    out = mkdtempSync(path.join(tmpdir(), "gpsimd-build-stages-"));
    ({ code, stderr } = await gpsimd(["build", FOLDER, "--out", out, "--force", "--verbose"]));
  }, 300_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  /** The breakdown's rows: [name, ms, detail]. */
  function rows(): { name: string; ms: number; detail: boolean }[] {
    const lines = stderr.split("\n");
    const head = lines.findIndex((l) => /^gpsimd: where the build of relu_cpp went \(\d+ ms on the compiler thread\):$/.test(l));
    expect(head, stderr).toBeGreaterThanOrEqual(0);
    const out: { name: string; ms: number; detail: boolean }[] = [];
    for (const line of lines.slice(head + 1)) {
      const m = /^gpsimd:   ( {2})?(\S.*?)\s+(-?\d+) ms(?:\s+\d+ %)?$/.exec(line);
      if (!m) break;
      out.push({ name: m[2], ms: Number(m[3]), detail: !!m[1] });
    }
    return out;
  }

  it("names every stage of a C++ build, each post-link pass among them", () => {
    expect(code, stderr).toBe(0);
    const names = rows().map((r) => r.name);
    for (const stage of [/^compiler start$/, /^compile shape function/, /^device runtime/, /^compile kernel/, /^link/, /^line tables/,
      /post-link pass: ownership checks/, /post-link pass: allocation sites/, /post-link pass: stop polls/, /post-link pass: stack checks/,
      /merge with the runtime/, /^optimise -O3/, /^relocate$/, /^write library file$/, /^other$/]) {
      expect(names.some((n) => stage.test(n)), `${stage} in ${names.join(" | ")}`).toBe(true);
    }
  });

  it("gives every stage a non-negative time, and the stages (without their details) plus 'other' add up to the total", () => {
    const total = Number(/went \((\d+) ms on the compiler thread\)/.exec(stderr)![1]);
    const all = rows();
    expect(all.every((r) => r.ms >= 0)).toBe(true);
    const top = all.filter((r) => !r.detail && r.name !== "other");
    const other = all.find((r) => r.name === "other")!.ms;
    const sum = top.reduce((n, r) => n + r.ms, 0);
    // Each row is rounded to a millisecond: the sum is the total within one per row.
    expect(Math.abs(sum + other - total)).toBeLessThanOrEqual(top.length + 1);
    // What no stage covers is bookkeeping between them, a small part of a build that takes seconds.
    expect(other).toBeLessThan(Math.max(200, 0.05 * total));
  });
});
