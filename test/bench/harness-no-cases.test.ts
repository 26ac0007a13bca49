// A suite that measures everything itself and gives the harness no case to time (bench/suites/build.ts) must still
// finish: benny's suite never settles without a case, and a run awaiting it ended the process silently, before the
// summary, the README update and every later suite.
import { describe, it, expect } from "vitest";
import { runSuite } from "../../bench/harness.js";

describe("bench harness", () => {
  it("finishes a suite with no timed case and runs its finish step", async () => {
    let finished = false;
    const run = runSuite({
      name: "harness-no-cases-test", title: "no cases", notes: [],
      setup: () => [],
      finish: async () => { finished = true; return ["measured in setup"]; },
    });
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("timed out"), 20_000).unref());
    expect(await Promise.race([run.then(() => "done"), timeout])).toBe("done");
    expect(finished).toBe(true);
  });
});
