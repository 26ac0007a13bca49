// gpsimd check never claims more than it compared: shape-function rejections are counted and a run that
// compares too few cases fails; the rerun line repeats the run; a missing --arg is a usage error; sizes shrink
// to a local minimum; every shipped operator folder checks against its own reference.ts.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO, FIXTURES_DIR } from "../helpers.js";
import { gpsimd } from "./run-cli.js";

const FOLDER = path.join(FIXTURES_DIR, "tools");
let out: string;

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), "gpsimd-check-"));
  const built = await gpsimd(["build", FOLDER, "--out", out]);
  expect(built.code).toBe(0);
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const check = (op: string, ...args: string[]) => gpsimd(["check", FOLDER, op, "--out", out, ...args]);

describe("gpsimd check counts what it compared", () => {
  it("fails with the counts and an example when the shape function rejects most cases", async () => {
    const r = await check("picky", "--runs", "30");
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("OK");
    const counts = /FAIL tools_fixtures::picky: only (\d+) of the 30 cases asked for were compared: (\d+) generated, (\d+) rejected by the shape function, 0 larger than --max-numel/.exec(r.stdout);
    expect(counts).not.toBeNull();
    const [compared, generated, rejected] = counts!.slice(1).map(Number);
    expect(compared).toBeLessThan(30);
    expect(compared + rejected).toBe(generated);
    expect(r.stdout).toMatch(/a rejected case: float32\[\d+\]: shape function of tools_fixtures::picky failed: picky takes exactly 3 elements, got float32\[\d+\]/);
  }, 120_000);

  it("fails when the shape function rejects every case", async () => {
    const r = await check("picky", "--shape", "4", "--runs", "10");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/only 0 of the 10 cases asked for were compared: (\d+) generated, \1 rejected by the shape function/);
  }, 120_000);

  it("passes only after comparing every case asked for", async () => {
    const r = await check("picky", "--shape", "3", "--runs", "10");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("OK: 10 cases passed (seed 1)");
  }, 120_000);
});

describe("gpsimd check's failures", () => {
  it("prints a rerun line that repeats the run exactly", async () => {
    const first = await check("doubled", "--shape", "5,n", "--dtype", "float32", "--values", "uniform", "--atol", "0.001", "--rtol", "0.01", "--export", "doubled", "--runs", "12", "--max-numel", "50000");
    expect(first.code).toBe(1);
    const line = /rerun: gpsimd (.*)/.exec(first.stdout)![1];
    for (const option of ["--shape 5,n", "--dtype float32", "--values uniform", "--atol 0.001", "--rtol 0.01", "--export doubled", "--runs 12", "--max-numel 50000", "--seed 1"]) expect(line).toContain(option);
    const again = await gpsimd(line.split(" "));
    expect(again.code).toBe(first.code);
    expect(again.stdout).toBe(first.stdout);
  }, 120_000);

  it("shrinks every random size to a local minimum", async () => {
    // doubled goes wrong once the last dimension has 6 elements: the smallest case is [1, 6] (edge sizes alone give 7).
    const r = await check("doubled", "--shape", "m,n", "--runs", "30");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/t_in: float32\[1, 6\], values/);
    expect(r.stdout).toMatch(/element 0 \(\[0, 0\]\) is 0, the reference says \S+; 1 of 6 elements differ/);
  }, 120_000);

  it("reports a missing --arg as a usage error (exit 2), before running anything", async () => {
    const r = await check("bins", "--runs", "5");
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain("FAIL");
    expect(r.stderr).toBe("gpsimd check: tools_fixtures::bins takes 1 scalar argument (i64 nbins), but 0 --arg were given; give one --arg per scalar, in parameter order\n");
  }, 120_000);
});

describe("int64_t scalars arrive as numbers under the CLI", () => {
  it("in the shape function and the reference (check), and in run and profile", async () => {
    const checked = await check("bins", "--shape", "n", "--arg", "5", "--runs", "5");
    expect(checked.stdout).toContain("OK: 5 cases passed");
    const ran = await gpsimd(["run", FOLDER, "bins", "--out", out, "--shape", "4", "--arg", "5"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("first 5: [0, 1, 2, 3, 4]");
    const trace = path.join(out, "bins.trace.json");
    const profiled = await gpsimd(["profile", FOLDER, "bins", "--out", out, "--shape", "4", "--arg", "5", "--runs", "1", "--trace-runs", "1", "--trace", trace]);
    expect(profiled.stderr).toBe("");
    expect(profiled.code).toBe(0);
  }, 120_000);
});

describe("every shipped operator folder checks against its own reference.ts", () => {
  const quick = ["--runs", "4", "--max-numel", "20000", "--atol", "1e-4"];
  const uniform = ["--values", "uniform"];
  const cases: [string, string, string[]][] = [
    ["relu", "relu_forward", []], ["relu", "relu_backward", []],
    ["negate", "tensor_negate", []], ["add", "tensor_add", []],
    ["avgpool", "avgpool2d", ["--shape", "c,8,16", "--arg", "2"]],
    ["giou", "giou", ["--shape", "n,b,4", "--values", "boxes"]],
    ["gemm", "gemm", ["--shape", "m,k", "--shape", "k,n"]], ["gemm", "gemm_nt", ["--shape", "m,k", "--shape", "n,k"]],
    ["gemm", "gemm_tn", ["--shape", "k,m", "--shape", "k,n"]], ["gemm", "linear", ["--shape", "m,k", "--shape", "k,n", "--shape", "n"]],
    ["gemm", "bias_grad", ["--shape", "m,n"]], ["gemm", "pack_weights", ["--shape", "k,n"]],
    ["gemm", "linear_packed", ["--shape", "k,m", "--shape", "2,k,48", "--shape", "96", "--arg", "1"]],
    ["nn", "log_softmax", ["--shape", "m,c"]], ["nn", "log_softmax_backward", ["--shape", "m,c"]],
  ];
  for (const [folder, op, options] of cases) {
    it(`${folder}: ${op}`, async () => {
      const values = options.includes("--values") ? [] : uniform;
      const r = await gpsimd(["check", path.join(REPO, "ops", folder), op, "--variant", "tcm", ...quick, ...values, ...options]);
      expect(r.stdout).toContain(` (${path.join(REPO, "ops", folder, "reference.ts")}): 4 cases`);
      expect(r.stdout).toContain("OK: 4 cases passed");
      expect(r.code).toBe(0);
    }, 120_000);
  }
});
