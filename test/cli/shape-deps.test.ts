// gpsimd check --shape: a size may depend on another's (1..n, k=1..n). A 2-D valid convolution needs its filter
// no larger than its input; with independent sizes the shape function rejects most draws and the run fails
// although every compared case passed; with ranges no draw is rejected and it passes.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { FIXTURES_DIR } from "../helpers.js";
import { gpsimd } from "./run-cli.js";

const CONV = path.join(FIXTURES_DIR, "verdict", "conv2d");
let work: string;
const check = async (...args: string[]) => {
  const r = await gpsimd(["check", CONV, "conv2d", "--runs", "30", "--max-numel", "65536", "--out", path.join(work, "out"), ...args, "--json"], work);
  return { ...r, v: JSON.parse(r.stdout) as { check: { compared: number; rejected: number; generated: number }; errors: { code: string }[] } };
};

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "gpsimd-shape-deps-"));
  expect((await gpsimd(["build", CONV, "--out", path.join(work, "out")], work)).code).toBe(0);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("gpsimd check sizes that depend on other sizes", () => {
  it("independent sizes: most draws rejected, the run fails though every compared case passed", async () => {
    const r = await check("--shape", "n,m", "--shape", "k,l");
    expect(r.code).toBe(1);
    expect(r.v.check.compared).toBe(30);
    expect(r.v.check.rejected).toBeGreaterThan(r.v.check.compared);
    expect(r.v.errors.map((e) => e.code)).toEqual(["E_CHECK_REJECTED"]);
  });

  it("--shape n,m --shape 1..n,1..m: no draw is rejected and every case passes", async () => {
    const r = await check("--shape", "n,m", "--shape", "1..n,1..m");
    expect(r.stderr).toContain("shapes [n, m] [1..n, 1..m]");
    expect(r.stderr).toContain("OK: 30 cases passed");
    expect(r.v.check).toMatchObject({ compared: 30, rejected: 0 });
    expect(r.code).toBe(0);
  });

  it("a named range (k=2..n) can be used again in the same or another tensor", async () => {
    const r = await check("--shape", "n,n", "--shape", "k=2..n,k");
    expect(r.v.check).toMatchObject({ compared: 30, rejected: 0 });
    expect(r.code).toBe(0);
  });

  it("a malformed range is a usage error", async () => {
    const r = await gpsimd(["check", CONV, "conv2d", "--shape", "n,m", "--shape", "1..,m", "--out", path.join(work, "out")], work);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("expected sizes, letters and ranges, e.g. n,b,4 or 1..n or k=1..n");
  });
});
