// The build suite (bench/suites/build.ts) measures in its setup (its runs are processes) and had no finish step: it
// printed its rounds twice (as they came, then again with the targets), saved no findings, and its targets never
// reached the summary's table or the README, since a suite without benny cases left no results file to read back.
import { describe, it, expect, afterAll } from "vitest";
import { rmSync } from "node:fs";
import { runSuite } from "../../bench/harness.js";
import { readResults, resultPath, RESULT_KINDS } from "../../bench/results.js";
import { targetsTable, suiteTable } from "../../bench/report.js";
import { buildReport, type BuildFigures } from "../../bench/build-timing.js";

const NAME = "build-report-test";
afterAll(() => { for (const kind of RESULT_KINDS) rmSync(resultPath(NAME, kind), { force: true }); });

/** What `--verbose` prints after a build (cli/build-times.ts), with `ms` on the compiler thread. */
function verboseOutput(ms: number): string {
  return [
    "gpsimd: building giou_fixed", `gpsimd: where the build of giou_fixed went (${ms} ms on the compiler thread):`,
    `gpsimd:   compile kernel (from precompiled headers)   ${ms - 100} ms   99 %`, "gpsimd:   other   100 ms    1 %", "── ok: result",
  ].join("\n");
}

const figures: BuildFigures = {
  cppRounds: [
    { ms: 3000, gxx: 400, load: "1.2", output: verboseOutput(2900) },
    { ms: 2500, gxx: 500, load: "1.3", output: verboseOutput(2400) },
    { ms: 4000, gxx: 500, load: "1.4", output: verboseOutput(3900) },
  ],
  ascRounds: [{ ms: 300, load: "1.0" }, { ms: 400, load: "1.1" }, { ms: 350, load: "1.0" }],
  cold: { ms: 9500, gxx: 450, load: "1.5", output: verboseOutput(9000) },
  cached: [9, 7, 8, 30, 6],
  load: "1.6",
};

describe("the build suite's report", () => {
  it("gives each target its figure and verdict, and the builds' breakdowns, without the rounds again", () => {
    const { findings, targets } = buildReport(figures);
    const byGoal = (goal: string) => targets.find((t) => t.goal === goal)!;
    // Medians: C++ edit 3.00 s (not met, 1.5x the goal); ratio to g++ median of 7.5, 5, 8 = 7.5x (not met);
    // cold 9.5 s (met); cached median 8 ms (met); AssemblyScript median 0.35 s (met).
    expect(byGoal("≤ 2 s")).toMatchObject({ met: false });
    expect(byGoal("≤ 2 s").value).toMatch(/^3\.00 s \(median of 3, load 1\.2, 1\.3, 1\.4\)$/);
    expect(byGoal("≤ 6x")).toMatchObject({ met: false });
    expect(byGoal("≤ 6x").value).toMatch(/^7\.5x /);
    expect(byGoal("≤ 10 s")).toMatchObject({ met: true, value: "9.50 s (g++ 0.45 s just before, load 1.5)" });
    expect(byGoal("≤ 50 ms")).toMatchObject({ met: true, value: "8.0 ms (median of 5)" });
    expect(byGoal("≤ 0.5 s")).toMatchObject({ met: true });
    expect(findings.join("\n")).toContain("-> NOT met (1.5x the goal)");
    expect(findings.join("\n")).toContain("-> NOT met (1.3x the goal)");
    // The median edit's breakdown (3000 ms: 2900 on the thread) and the cold run's.
    const text = findings.join("\n");
    expect(text).toContain("where the build of giou_fixed went (2900 ms on the compiler thread)");
    expect(text).toContain("where the build of giou_fixed went (9000 ms on the compiler thread)");
    expect(text).not.toMatch(/C\+\+ edit \d|AssemblyScript edit \d|watch started/);
  });

  it("is saved with the run and its targets reach the targets table, though the suite times no case", async () => {
    const { findings, targets } = buildReport(figures);
    await runSuite({
      name: NAME, title: "a suite measuring in setup", notes: [],
      setup: () => [],
      finish: (meta) => { meta.targets = targets; return findings; },
    });
    const saved = readResults(NAME);
    expect(saved, "the run's results read back").not.toBeNull();
    expect(saved!.meta.findings).toEqual(findings);
    const table = targetsTable([saved!]);
    const cold = table.rows.find((r) => r[0].startsWith("cold gpsimd run"));
    expect(cold).toEqual([targets[2].name, "≤ 10 s", "9.50 s (g++ 0.45 s just before, load 1.5)", "yes"]);
    expect(table.rows.find((r) => r[0].startsWith("C++ edit -> result in gpsimd watch"))?.[3]).toBe("NO");
    // The suite's own table is its findings.
    expect(suiteTable(saved!).rows.map((r) => r[0])).toContain(findings[1]);
  }, 60_000);
});
